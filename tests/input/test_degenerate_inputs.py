"""Degenerate input (empty givens, rows of −inf scores, points that overflow): each case is bad input (one line naming the
file and the key, exit 2) or bounded work, never a traceback."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.parse.types import RECURRENT_KINDS

NON_RECURRENT = [k for k in kinds.KINDS if k not in RECURRENT_KINDS]


def one_line(result: Any, path: Path, key: str, *words: str) -> str:
    """Exit 2, one line on stderr naming the file and the key, no traceback; the line."""
    err = result.stderr
    assert result.exit_code == 2, result.output
    assert err.startswith("attncalc: error: ") and err.count("\n") == 1, err
    assert f"{path}: {key}:" in err, err
    for w in words:
        assert w in err, err
    assert "Traceback" not in result.output
    return str(err)


# ------------------------------------------------------------------ `given:` empty or null


@pytest.mark.parametrize("kind", NON_RECURRENT)
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_given_left_empty_is_one_line(cli: Any, tmp_path: Path, kind: str, fmt: str) -> None:
    """`given:` with nothing under it (YAML) or `"given": null` (JSON): the inputs are missing, named."""
    raw = tomllib.loads(kinds.template(kind, None))
    assert "given" in raw
    if fmt == "json":
        text = json.dumps({**raw, "given": None})
    else:
        text = f"kind: {kind}\ngiven:\n"
    f = tmp_path / f"p.{fmt}"
    f.write_text(text)
    one_line(cli("solve", str(f)), f, "given", "empty")


# ------------------------------------------------------------------ rows of scores all −∞

# x1 = (1e200, 0) and W_K = −I: the score of x1 with itself is 1e200 · (−1e200) = −∞ in floating
# point, and under the causal mask row 1 sees only itself: every score it may attend to is −∞.
# Rows 2 and 3 have finite scores.
SELF = """kind = "self-attention"
tokens = ["a", "b", "c"]
[given]
X = [[1e200, 0], [0, 1], [1, 1]]
W_K = [[-1, 0], [0, -1]]
mask = "causal"
[settings]
exact = false
"""
PROJ = """W_Q = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]
W_K = [[-1, 0, -1, 0], [0, -1, 0, -1], [0, 0, 0, 0], [0, 0, 0, 0]]
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_O = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
mask = "causal"
"""
MULTI = f"""kind = "multi-head"
tokens = ["a", "b", "c"]
[given]
X = [[1e200, 0, 1e200, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
heads = 2
{PROJ}[settings]
exact = false
"""
LAYER = f"""kind = "transformer-layer"
tokens = ["a", "b", "c"]
[given]
X = [[1e200, 0, 1e200, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
heads = 2
[self_attention]
{PROJ}[ffn]
W_1 = [[1, 0], [0, 1], [1, 0], [0, 1]]
W_2 = [[1, 0, 0, 0], [0, 1, 0, 0]]
[settings]
exact = false
"""


@pytest.mark.parametrize(
    ("text", "key"),
    [(SELF, "weights"), (MULTI, "head.1.weights"), (LAYER, "self.head.1.weights")],
    ids=["self-attention", "multi-head", "transformer-layer"],
)
@pytest.mark.parametrize("shift", ["auto", "never"])
def test_a_row_of_scores_all_minus_infinity_has_no_key_to_attend_to(
    cli: Any, tmp_path: Path, text: str, key: str, shift: str
) -> None:
    f = tmp_path / "p.toml"
    f.write_text(text + f'shift_max = "{shift}"\n')
    one_line(cli("solve", str(f)), f, key, "row 1 (a) has no key to attend to", "−∞")


def test_a_vector_of_scores_all_minus_infinity(tmp_path: Path) -> None:
    """The one-query kinds say the same without a row: attention's scores, softmax's logits."""
    import attncalc

    with pytest.raises(attncalc.ProblemError, match="weights: there is no key to attend to"):
        attncalc.solve(kind="attention", score="dot", query=[1e200, 0], keys=[[-1e200, 0], [-1e200, 1]], exact=False)
    with pytest.raises(attncalc.ProblemError, match="probabilities: every logit is −∞"):
        attncalc.solve(kind="softmax", hidden=[1e200, 1], W_out=[[-1e200, 0], [-1e200, 0]], exact=False)


# ------------------------------------------------------------------ JSON has finite numbers only

CHECKED = """kind = "attention"
score = "dot"
[given]
query = [1, 1]
keys = [[1, 0], [0, 2]]
[answers]
scores = [1, 2]
"""


@pytest.mark.parametrize(
    ("grading", "key"),
    [
        ("default = 1e308", "grading.default"),  # 5 steps × 1e308: the total is past the largest double
        ("[grading.points]\nscores = 1.7e308\nweights = 1.7e308", "grading.points.weights"),
        ('[grading.points]\nscores = 1.7e308\n"*" = 1.7e308', "grading.points.*"),
    ],
)
def test_points_whose_total_overflows_are_bad_input(cli: Any, tmp_path: Path, grading: str, key: str) -> None:
    """`check -f json` printed `"out_of": Infinity`, which is not JSON."""
    f = tmp_path / "p.toml"
    f.write_text(CHECKED + "[grading]\n" + grading + "\n")
    one_line(cli("check", str(f), "-f", "json"), f, key, "add up to more than the largest number")


def test_large_points_that_add_up_are_kept(cli: Any, tmp_path: Path) -> None:
    """1e307 × 5 steps = 5e307 is a finite total: graded, and the JSON has it."""
    f = tmp_path / "p.toml"
    f.write_text(CHECKED + "[grading]\ndefault = 1e307\n")
    result = cli("check", str(f), "-f", "json")
    data = json.loads(result.stdout)
    assert "Infinity" not in result.stdout
    steps = len(json.loads(cli("solve", str(f), "-f", "json").stdout)["steps"])
    assert data["score"]["out_of"] == pytest.approx(1e307 * steps)
