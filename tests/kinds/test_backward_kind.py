"""Kind attention-backward through every command: its keys (each documented key used), its refusals
(one line, exit 2, the key named), its views, plot's heat maps of the gradients, and generate.

The numbers themselves are held to PyTorch in tests/kinds/test_oracle_backward.py; the slips in
tests/check/test_backward_slips.py."""

from __future__ import annotations

import json
import tomllib
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc import kinds
from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, one_line_refusal

ONE = PROBLEMS / "backward-one-head-causal.toml"
TWO = PROBLEMS / "backward-two-heads.toml"


def raw_of(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def write(tmp_path: Path, raw: dict[str, Any], name: str = "p.json") -> Path:
    out = tmp_path / name
    out.write_text(json.dumps(raw), encoding="utf-8")
    return out


# --- keys ----------------------------------------------------------------------------------------


def test_heads_default_to_one_and_the_jacobian_is_written_only_when_asked() -> None:
    raw = raw_of(ONE)
    raw["given"].pop("heads")
    raw["settings"].pop("jacobian")
    d = attncalc.solve(raw, exact=False)
    assert "head.1.weights" in d and "head.2.weights" not in d
    assert not any(".jacobian." in s for s in d.step_ids)
    raw["settings"]["jacobian"] = True
    assert sum(".jacobian." in s for s in attncalc.solve(raw, exact=False).step_ids) == 3


def test_without_W_O_two_heads_take_the_gradient_of_their_concatenation() -> None:
    """No W_O: grad_output is n × (heads·d_v), and head j's gradient is its block of columns."""
    raw = raw_of(TWO)
    raw["given"].pop("W_O")
    raw["given"]["grad_output"] = [[1, 0], [0, 1], [1, -1]]  # two heads of d_v = 1
    d = attncalc.solve(raw, exact=False)
    assert "grad_W_O" not in d and "grad_concat" not in d
    np.testing.assert_array_equal(d["head.2.grad_output"], [[0], [1], [-1]])


def test_biases_get_their_column_sums() -> None:
    raw = raw_of(TWO)
    raw["given"] |= {"b_Q": [1, 0, 0, 1], "b_K": [0, 1, 0, 0], "b_V": [1, 0], "b_O": [0, 1]}
    d = attncalc.solve(raw, exact=False)
    for name in "QKV":
        np.testing.assert_allclose(d[f"grad_b_{name}"], np.sum(d[f"grad_{name}"], axis=0), atol=1e-12)
    np.testing.assert_allclose(d["grad_b_O"], np.sum(raw["given"]["grad_output"], axis=0), atol=1e-12)


def test_key_padding_and_a_0_1_mask_and_kv_heads() -> None:
    raw = raw_of(TWO)
    raw["given"] |= {"key_padding": [1, 1, 0], "mask": [[1, 0, 1], [1, 1, 1], [0, 1, 1]]}
    d = attncalc.solve(raw, exact=False)
    for j in (1, 2):
        g = np.asarray(d[f"head.{j}.grad_scores"])
        assert np.all(g[:, 2] == 0) and g[0, 1] == 0 and g[2, 0] == 0  # masked: no gradient
    raw = raw_of(TWO)
    raw["given"] |= {"kv_heads": 1, "W_K": [[2, -1], [1, 1]], "W_V": [[1], [2]]}
    d = attncalc.solve(raw, exact=False)
    np.testing.assert_allclose(d["grad_K"], np.add(d["head.1.grad_K"], d["head.2.grad_K"]), atol=1e-12)
    assert d.step("grad_K").formula == "dK = [dK_1] + [dK_2]"


def test_dot_score_has_no_scale_to_undo() -> None:
    raw = raw_of(ONE) | {"score": "dot"}
    d = attncalc.solve(raw, exact=False)
    assert "head.1.scaled_scores" not in d
    assert d["head.1.grad_scores"] == d["head.1.grad_scaled_scores"]


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"grad_output": [[1, 0, 0], [0, 1, 0], [1, 1, 0]]}, "given.grad_output", "the upstream gradient has"),
        ({"grad_output": [[1, 0], [0, 1]]}, "given.grad_output", "n = 3 from given.X"),
        ({"memory": [[1, 0]]}, "given.memory", "unknown key"),
        ({"positions": "rope"}, "given.positions", "unknown key"),
        ({"heads": 0}, "given.heads", "at least 1"),
        ({"W_K": [[1, 0, 1], [0, 1, 1]]}, "given.W_K", "columns"),
        ({"mask": [[1, 0, 0], [1, 1, 0], [0, 0, 0]]}, "given.mask", "may attend to no key"),
    ],
)
def test_bad_givens_are_refused_in_one_line(
    cli: Any, tmp_path: Path, change: dict[str, Any], key: str, words: str
) -> None:
    raw = raw_of(ONE)
    raw["given"] |= change
    path = write(tmp_path, raw)
    err = one_line_refusal(cli("solve", str(path)), str(path), key)
    assert words in err, err


def test_other_tables_and_settings_are_refused(tmp_path: Path) -> None:
    raw = raw_of(ONE) | {"cache": {"K": [[1, 0]], "V": [[1, 0]]}}
    with pytest.raises(ProblemError, match="does not apply to kind 'attention-backward'"):
        parse_problem(raw, "p.toml")
    raw = raw_of(ONE)
    raw["settings"]["jacobian"] = "yes"
    with pytest.raises(ProblemError, match=r"settings\.jacobian: expected true or false"):
        parse_problem(raw, "p.toml")
    mh = tomllib.loads(kinds.template("multi-head")) | {"settings": {"jacobian": True}}
    with pytest.raises(ProblemError, match="applies to kind 'attention-backward' only"):
        parse_problem(mh, "p.toml")


# --- views ---------------------------------------------------------------------------------------


def test_every_format(cli: Any, tmp_path: Path) -> None:
    text = cli("solve", str(TWO), "--width", "80")
    assert text.exit_code == 0
    assert max(len(line) for line in text.stdout.splitlines()) <= 80
    assert "[grad_X]" in text.stdout and "dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ" in text.stdout
    data = json.loads(cli("solve", str(ONE), "-f", "json").stdout)
    ids = [s["id"] for s in data["steps"]]
    assert ids[ids.index("concat") + 1 :][:3] == ["head.1.grad_output", "head.1.grad_V", "head.1.grad_weights"]
    assert ids[-1] == "grad_X"
    md = cli("solve", str(ONE), "-f", "markdown").stdout
    assert "head.1.jacobian.2" in md
    html = cli("solve", str(ONE), "-f", "html", "--reveal").stdout
    assert "head.1.rowdot" in html
    tex = cli("solve", str(TWO), "-f", "latex").stdout
    assert "dW_{O}" in tex and "grad\\_X" in tex
    for sheet in ("question", "answers"):
        out = cli("solve", str(ONE), "--sheet", sheet, "-f", "markdown")
        assert out.exit_code == 0 and "grad_X" in out.stdout


@pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")
@pytest.mark.parametrize("step", ["head.t.grad_scores", "grad_W_Q", "head.1.jacobian.3"])
def test_plot_draws_the_gradients_as_heat_maps(cli: Any, tmp_path: Path, step: str) -> None:
    out = tmp_path / "g.svg"
    result = cli("plot", str(TWO if "jacobian" not in step else ONE), "--step", step, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes().startswith(b"<?xml")


# --- generate ------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["--mask", "causal", "--kv-heads", "1"], ["--heads", "1"]])
def test_generate_same_seed_same_files_and_keys_check_correct(cli: Any, tmp_path: Path, args: list[str]) -> None:
    for folder in ("a", "b"):
        result = cli(
            "generate",
            "--kind",
            "attention-backward",
            *args,
            "--count",
            "2",
            "--seed",
            "3",
            "--out",
            str(tmp_path / folder),
        )
        assert result.exit_code == 0, result.stderr
    a = {p.name: p.read_bytes() for p in (tmp_path / "a").glob("*.toml")}
    assert a == {p.name: p.read_bytes() for p in (tmp_path / "b").glob("*.toml")}
    for k in (1, 2):
        variant = tmp_path / "a" / f"variant-{k:02d}.toml"
        report = attncalc.check(variant, tmp_path / "a" / "answers" / f"variant-{k:02d}.toml")
        assert report.all_correct, [(r.id, r.note) for r in report.results if r.verdict != "correct"]
        raw = tomllib.loads(variant.read_text(encoding="utf-8"))
        g = raw["given"]
        assert all(isinstance(x, int) and -1 <= x <= 1 for row in g["grad_output"] for x in row)
        d = attncalc.solve(variant)
        for j in range(1, g["heads"] + 1):  # no dead head, no tie among a row's top weights
            assert np.any(np.abs(d[f"head.{j}.grad_scores"]) >= 0.0005)
            w = np.sort(np.asarray(d[f"head.{j}.weights"]), axis=1)
            assert np.all(w[:, -1] - w[:, -2] >= 0.001)


def test_generate_refuses_options_of_other_kinds(cli: Any, tmp_path: Path) -> None:
    err = one_line_refusal(
        cli("generate", "--kind", "attention-backward", "--positions", "rope", "--out", str(tmp_path)), "generate"
    )
    assert "--positions" in err
