"""Kind transformer-layer: the examples agree with torch.nn.TransformerEncoderLayer and
TransformerDecoderLayer (dropout 0, batch_first, norm_first both ways, relu, gelu and the tanh GELU,
weights mapped from the row convention), LayerNorm with torch.nn.LayerNorm, the activations with
torch.nn.functional.gelu; exact and numeric agree; `check` names the slips; bad input names its key;
`generate` makes variants `check` accepts."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

TORCH = "PyTorch is the oracle here (pip install torch==2.13.0)"
EXAMPLES = ["layer-encoder", "layer-decoder"]


def raw(name: str) -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / f"{name}.toml").read_text(encoding="utf-8"))


def val(d: Any, sid: str) -> np.ndarray:
    return np.asarray(d.step(sid).value, dtype=float)


def torch_layer(r: dict[str, Any]) -> np.ndarray:
    """The layer's output rows from PyTorch, its weights loaded from the row-convention file."""
    torch = pytest.importorskip("torch", reason=TORCH)
    F = torch.nn.functional
    g, f = r["given"], r["ffn"]
    X = torch.tensor(g["X"], dtype=torch.float64)
    dm, dff = X.shape[1], len(f["W_1"][0])
    act = f.get("activation", "relu")
    activation = {"relu": "relu", "gelu": "gelu", "gelu-tanh": lambda x: F.gelu(x, approximate="tanh")}[act]
    s = r.get("settings", {})
    decoder = "cross_attention" in r
    cls = torch.nn.TransformerDecoderLayer if decoder else torch.nn.TransformerEncoderLayer
    layer = cls(
        dm,
        g["heads"],
        dff,
        dropout=0.0,
        activation=activation,
        layer_norm_eps=float(s.get("eps", 1e-5)),
        batch_first=True,
        norm_first=s.get("norm", "post") == "pre",
        dtype=torch.float64,
    )

    def t(x: Any) -> Any:
        return torch.tensor(x, dtype=torch.float64)

    zeros = [0.0] * dm
    with torch.no_grad():
        for mha, key in (
            (layer.self_attn, "self_attention"),
            (getattr(layer, "multihead_attn", None), "cross_attention"),
        ):
            if key not in r:
                continue
            a = r[key]
            mha.in_proj_weight.copy_(torch.cat([t(a["W_Q"]).T, t(a["W_K"]).T, t(a["W_V"]).T]))
            mha.in_proj_bias.copy_(torch.cat([t(a.get(b, zeros)) for b in ("b_Q", "b_K", "b_V")]))
            mha.out_proj.weight.copy_(t(a["W_O"]).T)
            mha.out_proj.bias.copy_(t(a.get("b_O", zeros)))
        layer.linear1.weight.copy_(t(f["W_1"]).T)
        layer.linear1.bias.copy_(t(f.get("b_1", [0.0] * dff)))
        layer.linear2.weight.copy_(t(f["W_2"]).T)
        layer.linear2.bias.copy_(t(f.get("b_2", zeros)))
        for k in range(1, 4 if decoder else 3):
            norm = r.get(f"norm{k}", {})
            getattr(layer, f"norm{k}").weight.copy_(t(norm.get("gamma", [1.0] * dm)))
            getattr(layer, f"norm{k}").bias.copy_(t(norm.get("beta", zeros)))
        layer.eval()
        if decoder:
            n = X.shape[0]
            causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)  # True: may not attend
            return layer(X[None], t(g["memory"])[None], tgt_mask=causal)[0].numpy()
        return layer(X[None])[0].numpy()


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_agree_with_torch_exact_and_numeric(name: str) -> None:
    want = torch_layer(raw(name))
    for exact in (False, True):
        d = attncalc.solve(PROBLEMS / f"{name}.toml", exact=exact)
        np.testing.assert_allclose(val(d, "output"), want, rtol=0, atol=1e-9, err_msg=f"{name} exact={exact}")


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu-tanh"])
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_norm_and_activation_agrees_with_torch(name: str, norm: str, activation: str) -> None:
    r = raw(name)
    r["settings"] = {**r["settings"], "norm": norm}
    r["ffn"] = {**r["ffn"], "activation": activation}
    d = solve_raw(r, exact=False)
    np.testing.assert_allclose(val(d, "output"), torch_layer(r), rtol=0, atol=1e-9)
    ids = d.step_ids
    if norm == "pre":  # the norm before its sublayer; the output is the last residual sum
        assert ids.index("norm1.output") < ids.index("self.Q")
        np.testing.assert_array_equal(val(d, "output"), val(d, ids[-2]))
    else:
        assert ids.index("residual1") < ids.index("norm1.mean")


def test_layer_norm_steps_agree_with_torch_layer_norm() -> None:
    torch = pytest.importorskip("torch", reason=TORCH)
    d = attncalc.solve(PROBLEMS / "layer-encoder.toml", exact=False)
    r = raw("layer-encoder")
    x = torch.tensor(val(d, "residual2"))
    ln = torch.nn.LayerNorm(4, eps=1e-5, dtype=torch.float64)
    with torch.no_grad():
        ln.weight.copy_(torch.tensor(r["norm2"]["gamma"], dtype=torch.float64))
        ln.bias.copy_(torch.tensor(r["norm2"]["beta"], dtype=torch.float64))
        np.testing.assert_allclose(val(d, "norm2.output"), ln(x).numpy(), atol=1e-12)
    np.testing.assert_allclose(val(d, "norm2.mean"), x.mean(dim=1).numpy(), atol=1e-12)
    np.testing.assert_allclose(val(d, "norm2.variance"), x.var(dim=1, unbiased=False).numpy(), atol=1e-12)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_agrees_with_torch(approximate: str) -> None:
    torch = pytest.importorskip("torch", reason=TORCH)
    r = raw("layer-encoder")
    r["ffn"]["activation"] = "gelu" if approximate == "none" else "gelu-tanh"
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        a = torch.tensor(val(d, "ffn.hidden_pre"))
        want = torch.nn.functional.gelu(a, approximate=approximate).numpy()
        np.testing.assert_allclose(val(d, "ffn.hidden"), want, atol=1e-12)


def test_exact_forms_fall_back_with_the_usual_note() -> None:
    d = attncalc.solve(PROBLEMS / "layer-encoder.toml")
    assert any(n.startswith("Exact forms stop at") for n in d.notes)
    assert d.step("self.head.1.weights").exact is not None


def test_views_outline_first_and_fit_80_columns() -> None:
    d = attncalc.solve(PROBLEMS / "layer-decoder.toml", exact=False)
    text = d.to_text(width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert text.index("Outline (decoder layer, pre-norm)") < text.index("[norm1.mean]")
    assert "[cross.head.2.weights]" in text and "Sublayer 2 of 3: cross-attention" in text
    assert "decoder layer (cross-attention over memory)" in text


# ------------------------------------------------------------------ bad input


LAYER = raw("layer-encoder")


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (lambda r: r["self_attention"].update(W_Q=[[1, 0]]), "self_attention.W_Q", "4 rows"),
        (lambda r: r["self_attention"].pop("W_O"), "self_attention.W_O", "missing"),
        (lambda r: r["self_attention"].update(positions="sinusoidal"), "self_attention.positions", "rope"),
        (lambda r: r["given"].update(memory=[[1, 0, 0, 1]]), "given.memory", "decoder layer"),
        (lambda r: r.update(norm3={"gamma": [1, 1, 1, 1]}), "norm3", "decoder layer"),
        (lambda r: r["norm2"].update(gamma=[1, 1]), "norm2.gamma", "needs 4"),
        (lambda r: r["ffn"].update(W_2=[[1, 0, 0, 0]]), "ffn.W_2", "8×4"),
        (lambda r: r["ffn"].update(activation="swish"), "ffn.activation", "choose one of"),
        (lambda r: r["settings"].update(norm="middle"), "settings.norm", "choose one of"),
        (lambda r: r["settings"].update(eps=0), "settings.eps", "above 0"),
        (lambda r: r.update(cross_attention=r["self_attention"]), "given.memory", "missing"),
    ],
)
def test_bad_input_names_the_key(change: Any, key: str, words: str) -> None:
    r = json.loads(json.dumps(LAYER))
    change(r)
    with pytest.raises(ProblemError) as e:
        solve_raw(r)
    assert e.value.key == key and words in str(e.value), str(e.value)


def test_layer_settings_are_refused_elsewhere() -> None:
    with pytest.raises(ProblemError) as e:
        solve_raw({"kind": "softmax", "given": {"logits": [1, 2]}, "settings": {"norm": "pre"}})
    assert e.value.key == "settings.norm"


# ------------------------------------------------------------------ check and generate


def _check(problem: Any, answers: dict[str, Any]) -> dict[str, Any]:
    return {r["id"]: r for r in attncalc.check(problem, answers).to_json()["results"]}


def r3(x: Any) -> Any:
    return np.round(np.asarray(x, dtype=float), 3).tolist()


def _residual1() -> np.ndarray:
    return val(attncalc.solve(PROBLEMS / "layer-encoder.toml", exact=False), "residual1")


def test_slip_unbiased_variance() -> None:
    x = _residual1()
    got = _check(PROBLEMS / "layer-encoder.toml", {"norm1.variance": r3(x.var(axis=1, ddof=1))})
    assert got["norm1.variance"]["mistake"] == "unbiased_variance"


def test_slip_normalised_over_the_wrong_axis() -> None:
    x = _residual1()
    wrong = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + 1e-5)
    got = _check(PROBLEMS / "layer-encoder.toml", {"norm1.normalized": r3(wrong)})
    assert got["norm1.normalized"]["mistake"] == "norm_wrong_axis"


def test_slip_residual_left_out() -> None:
    d = attncalc.solve(PROBLEMS / "layer-encoder.toml", exact=False)
    got = _check(PROBLEMS / "layer-encoder.toml", {"residual1": r3(val(d, "self.output"))})
    assert got["residual1"]["mistake"] == "residual_left_out"


def test_slip_norm_before_and_after_swapped() -> None:
    """Post-norm asked: a student who normalised X first (pre-norm) gives LayerNorm(X) as norm1.output."""
    X = np.array(LAYER["given"]["X"], dtype=float)
    pre = (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5)
    got = _check(PROBLEMS / "layer-encoder.toml", {"norm1.normalized": r3(pre)})
    assert got["norm1.normalized"]["mistake"] == "norm_swapped"


def test_slip_relu_where_gelu_was_asked() -> None:
    d = attncalc.solve(PROBLEMS / "layer-decoder.toml", exact=False)
    relu = np.maximum(val(d, "ffn.hidden_pre"), 0)
    got = _check(PROBLEMS / "layer-decoder.toml", {"ffn.hidden": r3(relu)})
    assert got["ffn.hidden"]["mistake"] == "relu_for_gelu"


@pytest.mark.parametrize("args", [["--dim", "4"], ["--dim", "4", "--heads", "1", "--cross"]])
def test_generated_layer_keys_are_accepted_by_check(cli: Any, tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--kind", "transformer-layer", "--out", str(out), "--seed", "4", *args)
    assert result.exit_code == 0, result.output
    for key in sorted((out / "answers").glob("*.toml")):
        report = json.loads(cli("check", "--problems", str(out), str(key), "--format", "json").stdout)
        assert report["summary"]["wrong"] == 0 and report["summary"]["carried"] == 0, key


def test_biases_eps_and_a_causal_encoder_mask_agree_with_torch() -> None:
    torch = pytest.importorskip("torch", reason=TORCH)
    r = json.loads(json.dumps(LAYER))
    r["self_attention"].update(b_Q=[0.5, 0, 0, -0.5], b_K=[0, 0.5, 0, 0], b_V=[1, 0, 0, 0])
    r["ffn"]["b_2"] = [0, 0, 0.25, 0]
    r["settings"]["eps"] = 0.5  # a large ε, so that it shows
    want = torch_layer(r)
    d = solve_raw(r, exact=False)
    np.testing.assert_allclose(val(d, "output"), want, atol=1e-9)
    # a causal self-attention mask in an encoder layer: PyTorch's src_mask
    r["self_attention"]["mask"] = "causal"
    d = solve_raw(r, exact=False)
    assert "self.head.1.masked_scores" in d.step_ids
    src_mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
    layer_out = _torch_encoder_with_mask(r, src_mask)
    np.testing.assert_allclose(val(d, "output"), layer_out, atol=1e-9)


def _torch_encoder_with_mask(r: dict[str, Any], mask: Any) -> np.ndarray:
    """torch_layer's encoder, called with a src_mask (True: may not attend)."""
    torch = pytest.importorskip("torch", reason=TORCH)
    original = torch.nn.TransformerEncoderLayer.forward

    def forward(self: Any, src: Any, *a: Any, **k: Any) -> Any:
        return original(self, src, src_mask=mask)

    torch.nn.TransformerEncoderLayer.forward = forward  # type: ignore[method-assign]
    try:
        return torch_layer(r)
    finally:
        torch.nn.TransformerEncoderLayer.forward = original  # type: ignore[method-assign]


def test_grouped_query_sublayer_is_kind_multi_heads_computation() -> None:
    """kv_heads in a sublayer: its self.* steps are what kind multi-head gives for the same rows."""
    r = json.loads(json.dumps(LAYER))
    r["self_attention"].update(W_K=[row[:2] for row in r["self_attention"]["W_K"]], kv_heads=1)
    r["self_attention"]["W_V"] = [row[:2] for row in r["self_attention"]["W_V"]]
    r["self_attention"]["W_O"] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    d = solve_raw(r, exact=False)
    mh = solve_raw(
        {"kind": "multi-head", "given": {"X": r["given"]["X"], "heads": 2, **r["self_attention"]}}, exact=False
    )
    for sid in mh.step_ids:
        np.testing.assert_allclose(val(d, f"self.{sid}"), val(mh, sid), atol=1e-12, err_msg=sid)
    assert "(key/value head 1 of 1" in d.step("self.head.2.K").formula


def test_generate_refuses_a_layer_of_width_two(cli: Any, tmp_path: Path) -> None:
    """LayerNorm of two numbers a, b is ((a − b)/2)/|(a − b)/2| = ±1 each (eps aside): every output row
    would be [−1, 1]. --dim 2 is refused, naming --dim 4."""
    result = cli("generate", "--kind", "transformer-layer", "--dim", "2", "--out", str(tmp_path / "hw"))
    assert result.exit_code == 2 and "--dim 4" in result.stderr and result.stderr.count("\n") == 1


def test_generate_draws_a_layer_of_width_four_by_default(cli: Any, tmp_path: Path) -> None:
    result = cli("generate", "--kind", "transformer-layer", "--out", str(tmp_path / "hw"))
    assert result.exit_code == 0, result.stderr
    x = tomllib.loads((tmp_path / "hw" / "variant-01.toml").read_text())["given"]["X"]
    assert len(x[0]) == 4
