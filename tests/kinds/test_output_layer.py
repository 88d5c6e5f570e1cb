"""The softmax kind's output layer and training step, the sequence kind, and partial answers.

Oracles: PyTorch (cross_entropy, autograd, torch.optim.SGD and Adam) for the output layer; one-line
numpy formulas and exact sympy values for the sequence kind. The LSTM document's verdicts come from
recomputing it by hand (see the answer files' comments): 0.9·0.54 + 1.2·0.77 + 0.8·0.55 + 1.1·0.84
+ 0.5 = 3.274; 0.85·0.78·0.92·0.94 = 0.5734; Adam's first step moves a weight by lr = 0.001.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

TOL = 1e-9


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def report(cli: Any, path: Path | str) -> dict[str, dict[str, Any]]:
    result = cli("check", "--problems", str(PROBLEMS), str(path), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return {r["id"]: r for r in json.loads(result.stdout)["results"]}


# ------------------------------------------------------------------ the output layer, against torch


def _output_problem(rng: np.random.Generator, optimizer: str, temperature: float | None) -> dict[str, Any]:
    V, d = 4, 3
    raw: dict[str, Any] = {
        "kind": "softmax",
        "given": {
            "W_out": rng.normal(size=(V, d)).round(2).tolist(),
            "b_out": rng.normal(size=V).round(2).tolist(),
            "hidden": rng.normal(size=d).round(2).tolist(),
            "target": int(rng.integers(V)),
        },
        "training": {"optimizer": optimizer, "lr": 0.05},
    }
    if temperature is not None:
        raw["settings"] = {"temperature": temperature}
    return raw


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("temperature", [None, 2.0])
@pytest.mark.parametrize("exact", [False, True])
def test_output_layer_loss_gradient_and_update_match_torch(
    optimizer: str, temperature: float | None, exact: bool
) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for this test (pip install torch==2.13.0)")
    raw = _output_problem(np.random.default_rng(7), optimizer, temperature)
    g = raw["given"]
    d = solve_raw(raw, exact=exact)

    W = torch.tensor(g["W_out"], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(g["b_out"], dtype=torch.float64, requires_grad=True)
    h = torch.tensor(g["hidden"], dtype=torch.float64)
    z = W @ h + b
    T = temperature or 1.0
    loss = torch.nn.functional.cross_entropy((z / T).unsqueeze(0), torch.tensor([g["target"]]))
    loss.backward()
    assert np.allclose(val(d, "logits"), z.detach().numpy(), atol=TOL)
    assert math.isclose(float(val(d, "loss")), loss.item(), abs_tol=TOL)
    assert np.allclose(val(d, "grad_W_out"), W.grad.numpy(), atol=TOL)
    opt_cls = torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam
    opt = opt_cls([W, b], lr=0.05)
    opt.step()
    assert np.allclose(val(d, "W_out_new"), W.detach().numpy(), atol=TOL)
    assert np.allclose(val(d, "b_out_new"), b.detach().numpy(), atol=TOL)
    assert "W_out_change" not in d.step_ids


def test_without_w_out_the_update_is_the_change_torch_would_make() -> None:
    """Logits given with the hidden state they came from: ΔW_out is what Adam adds to any W_out."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for this test (pip install torch==2.13.0)")
    rng = np.random.default_rng(3)
    z = rng.normal(size=5).round(2)
    h = rng.normal(size=4).round(2)
    raw = {
        "kind": "softmax",
        "given": {"logits": z.tolist(), "hidden": h.tolist(), "target": 2},
        "training": {"optimizer": "adam", "lr": 0.001},
    }
    d = solve_raw(raw)
    W0 = rng.normal(size=(5, 4))
    W = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(z - W0 @ h)  # so that W h + b are the given logits
    loss = torch.nn.functional.cross_entropy((W @ torch.tensor(h) + b).unsqueeze(0), torch.tensor([2]))
    loss.backward()
    assert np.allclose(val(d, "grad_W_out"), W.grad.numpy(), atol=TOL)
    opt = torch.optim.Adam([W], lr=0.001)
    opt.step()
    assert np.allclose(val(d, "W_out_change"), W.detach().numpy() - W0, atol=TOL)
    assert "W_out_new" not in d.step_ids and "logits" not in d.step_ids


def test_output_layer_logits_by_hand() -> None:
    """Two rows, written out: [1.2, 0.8]·[0.5, −1] + 0.3 = 0.1 and [0.3, 0.2]·[0.5, −1] + 0.1 = 0.05."""
    d = solve_raw(
        {"kind": "softmax", "given": {"W_out": [[1.2, 0.8], [0.3, 0.2]], "b_out": [0.3, 0.1], "hidden": [0.5, -1]}}
    )
    assert np.allclose(val(d, "logits"), [0.1, 0.05])
    assert d.step_ids[0] == "logits" and "grad_W_out" not in d.step_ids  # no target: no gradient


# ------------------------------------------------------------------ the sequence kind


@pytest.mark.parametrize("exact", [False, True])
def test_sequence_kind_against_numpy(exact: bool) -> None:
    p = np.array([0.3, 0.1, 0.1, 0.05])
    d = solve_raw({"kind": "sequence", "given": {"probabilities": p.tolist()}}, exact=exact)
    for t in range(1, 5):
        assert math.isclose(float(val(d, f"{t}.loss")), -np.log(p[t - 1]), abs_tol=TOL)
    assert math.isclose(float(val(d, "sequence_probability")), float(np.prod(p)), abs_tol=TOL)
    assert math.isclose(float(val(d, "loss")), float(-np.log(p).sum()), abs_tol=TOL)
    assert math.isclose(float(val(d, "perplexity")), float(np.exp(-np.log(p).mean())), abs_tol=TOL)


def test_sequence_kind_exact_forms_are_the_sympy_values() -> None:
    import sympy as sp

    d = solve_raw({"kind": "sequence", "given": {"probabilities": ["1/2", "1/4"]}}, exact=True)
    assert sp.simplify(d.step("loss").exact.item() - sp.log(8)) == 0  # −ln(1/2 · 1/4)
    assert sp.simplify(d.step("sequence_probability").exact.item() - sp.Rational(1, 8)) == 0
    assert sp.simplify(d.step("perplexity").exact.item() - sp.sqrt(8)) == 0  # exp(ln 8 / 2)
    assert math.isclose(float(val(d, "perplexity")), math.sqrt(8), abs_tol=TOL)  # the float is the exact value


def test_sequence_kind_renders_each_step_loss_with_its_token(cli: Any) -> None:
    result = cli("solve", str(PROBLEMS / "lstm-doc-training-loss.toml"))
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "L_4 = −ln p(<END>) = −ln(0.05) = 2.996" in text
    assert "L = 1.204 + 2.303 + 2.303 + 2.996 = 8.805" in text  # the sum of the true losses, 8.8049
    assert "PPL = exp(2.201) = 9.036" in text  # exp(8.8049/4) = (1/(0.3·0.1·0.1·0.05))^(1/4) = 9.036


# ------------------------------------------------------------------ the LSTM document's remaining slips


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lstm-doc-output-2.toml", [3.274, 2.214, 1.905]),
        ("lstm-doc-output-3.toml", [4.381, 3.389, 1.17]),
        ("lstm-doc-output-4.toml", [5.991, 1.037, 0.785]),
    ],
)
def test_check_flags_every_logit_of_decoder_steps_2_to_4(cli: Any, name: str, expected: list[float]) -> None:
    r = report(cli, PROBLEMS / "answers" / name)["logits"]
    assert r["verdict"] == "wrong"
    assert r["wrong_entries"] == [[0], [1], [2]]
    assert np.allclose(r["expected"], expected, atol=0.0051)  # shown to the problem's 2 decimals


def test_check_flags_the_sequence_probability_and_accepts_the_rounded_total_loss(cli: Any) -> None:
    seq = report(cli, PROBLEMS / "answers" / "lstm-doc-sequence.toml")["sequence_probability"]
    assert seq["verdict"] == "wrong" and seq["expected"] == 0.573
    assert "0.85·0.78·0.92·0.94 = 0.573, not 0.574" in seq["note"]
    losses = report(cli, PROBLEMS / "answers" / "lstm-doc-training-loss.toml")
    assert {k: v["verdict"] for k, v in losses.items()} == dict.fromkeys(
        ["1.loss", "2.loss", "3.loss", "4.loss", "loss"], "correct"
    )
    assert "hand chain" in losses["loss"]["note"] and "8.805" in losses["loss"]["note"]
    exposure = report(cli, PROBLEMS / "answers" / "lstm-doc-exposure.toml")  # 0.6·0.4·0.7·0.8 = 0.1344
    assert exposure["sequence_probability"]["verdict"] == "correct"


def test_check_names_the_sgd_step_the_document_calls_adam(cli: Any) -> None:
    r = report(cli, PROBLEMS / "answers" / "lstm-doc-update.toml")
    assert r["grad_W_out"]["verdict"] == "correct"  # (0.3 − 1)·0.68 = −0.476
    change = r["W_out_change"]
    assert change["verdict"] == "wrong" and change["mistake"] == "sgd_for_adam"
    assert change["wrong_entries"] == [[1, 1]]
    assert math.isclose(change["expected"][1][1], 0.001)


# ------------------------------------------------------------------ partial answers ("?")


def _softmax_answers(tmp_path: Path, probabilities: list[Any]) -> Path:
    (tmp_path / "p.toml").write_text('kind = "softmax"\n[given]\nlogits = [1, 2, 3]\n')
    quoted = ", ".join(f'"{x}"' if isinstance(x, str) else str(x) for x in probabilities)
    (tmp_path / "a.toml").write_text(f'problem = "p.toml"\nprobabilities = [{quoted}]\n')
    return tmp_path / "a.toml"


def test_unanswered_entries_are_not_graded(cli: Any, tmp_path: Path) -> None:
    # softmax([1, 2, 3]) = [0.090, 0.245, 0.665]
    r = report(cli, _softmax_answers(tmp_path, [0.090, "?", 0.665]))["probabilities"]
    assert r["verdict"] == "correct"
    r = report(cli, _softmax_answers(tmp_path, ["?", 0.5, 0.665]))["probabilities"]
    assert r["verdict"] == "wrong" and r["wrong_entries"] == [[1]]
    text = cli("check", "--problems", str(PROBLEMS), str(tmp_path / "a.toml")).stdout
    assert "[2] ⟨0.5⟩" in text and "[1]" not in text  # only the answered entries are listed


def test_an_answer_with_nothing_answered_is_refused(cli: Any, tmp_path: Path) -> None:
    result = cli("check", "--problems", str(PROBLEMS), str(_softmax_answers(tmp_path, ["?", "?", "?"])))
    assert result.exit_code == 2
    assert "probabilities" in result.output and "every entry is '?'" in result.output
    assert "Traceback" not in result.output


def test_a_step_written_unanswered_as_a_whole_is_left_out(cli: Any, tmp_path: Path) -> None:
    """exp_sum = "?" (one number), decay = "?" (a matrix) or every entry "?": the step is not answered,
    as if it were left out, and the others are graded (it was refused: "expected a 3×2 matrix")."""
    answers = tmp_path / "a.toml"
    # adamw-clipping: logits = W_out h + b = [0.5 - 2 + 0.1, 1 + 1, -0.5 + 2 - 0.1] = [-1.4, 2, 1.4]
    answers.write_text('exp_sum = "?"\ndecay = "?"\nprobabilities = ["?", "?", "?"]\nlogits = [-1.4, 2, 1.4]\n')
    result = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "adamw-clipping.toml"), str(answers), "--format", "json"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["id"] for r in data["results"]] == ["logits"] and data["results"][0]["verdict"] == "correct"
    assert data["summary"]["correct"] == 1


def test_a_later_step_is_graded_from_the_answered_entries(cli: Any, tmp_path: Path) -> None:
    """An earlier answer with a slip and a "?": the next step, right for the student's numbers, is carried."""
    (tmp_path / "p.toml").write_text('kind = "softmax"\n[given]\nlogits = [0, 0]\n')
    # exp(0) = 1 twice; a student writes exp = [2, ?] and then Z = 2 + 1 = 3 from their own numbers
    (tmp_path / "a.toml").write_text('problem = "p.toml"\nexponentials = [2, "?"]\nexp_sum = 3\n')
    r = report(cli, tmp_path / "a.toml")
    assert r["exponentials"]["verdict"] == "wrong"
    assert r["exp_sum"]["verdict"] == "carried"


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"kind": "softmax", "given": {"logits": [1, 2], "W_out": [[1]], "hidden": [1]}}, "given.logits"),
        ({"kind": "softmax", "given": {"W_out": [[1, 2]]}}, "given.hidden"),
        ({"kind": "softmax", "given": {"W_out": [[1, 2]], "hidden": [1, 2, 3]}}, "given.W_out"),
        ({"kind": "softmax", "given": {"W_out": [[1, 2]], "hidden": [1, 2], "b_out": [1, 2]}}, "given.b_out"),
        ({"kind": "softmax", "given": {"logits": [1, 2], "b_out": [1, 2]}}, "given.b_out"),
        ({"kind": "softmax", "given": {"logits": [1, 2], "hidden": [1]}}, "given.hidden"),
        ({"kind": "softmax", "given": {"logits": [1, 2], "target": 0}, "training": {"lr": 0.1}}, "training"),
        ({"kind": "sequence", "given": {"probabilities": [0.5, 0]}}, "given.probabilities"),
        ({"kind": "sequence", "given": {"probabilities": [0.5, 1.5]}}, "given.probabilities"),
        ({"kind": "sequence", "given": {"probabilities": [0.5], "targets": ["a", "b"]}}, "given.targets"),
        ({"kind": "sequence", "given": {"logits": [0.5]}}, "given.logits"),
    ],
)
def test_bad_output_layer_and_sequence_input_names_the_key(raw: dict[str, Any], key: str) -> None:
    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == key, str(err.value)
