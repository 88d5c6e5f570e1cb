"""An exact form too long for the text view is shortened honestly: whole terms of a sum followed by
"+ … (k more terms)", or, when not even one term fits, its length; never cut in the middle of a term
(which shows a form that is not there). Once per derivation a line says where the full forms are."""

from __future__ import annotations

import json
from typing import Any

from attncalc.render.text_parts import EXACT_WIDTH, cut_exact, top_level_terms

from ..helpers import PROBLEMS

POINTER = "--format json gives every exact form in full"


def _leaves(x: Any) -> list[Any]:
    return [e for v in x for e in _leaves(v)] if isinstance(x, list) else [x]


def test_top_level_terms_split_outside_parentheses_only() -> None:
    assert top_level_terms("a + f(b - c) - d") == ["a", " + f(b - c)", " - d"]
    assert top_level_terms("-exp(x + 1)/(1 + y)") == ["-exp(x + 1)/(1 + y)"]


def test_cut_keeps_whole_terms_and_counts_the_rest() -> None:
    form = " + ".join(f"{k}*tanh(0.{k}{k})" for k in range(1, 30))  # 29 terms, 14 characters each
    line = cut_exact("  exact: z = ", form, width=80)
    kept, _, rest = line.removeprefix("  exact: z = ").partition(" + … (")
    assert form.startswith(kept) and form[len(kept) :].startswith(" + ")  # whole terms only
    shown = len(top_level_terms(kept))
    assert rest == f"{29 - shown} more terms)" and len(line) <= 80
    assert (
        cut_exact("  exact: z = ", "exp(" + "x + " * 40 + "1)", width=80) == "  exact: z = … (a form of 166 characters)"
    )
    assert cut_exact("  exact: z = ", "exp(2)", width=80) == "  exact: z = exp(2)"


def test_shortened_forms_agree_with_the_full_ones_and_point_to_them_once(cli: Any) -> None:
    path = str(PROBLEMS / "lstm-doc-output.toml")
    text = cli("solve", path, "--exact", "--width", "250").stdout
    data = json.loads(cli("solve", path, "--exact", "--format", "json").stdout)
    forms = [e for s in data["steps"] for e in _leaves(s["exact"]) if isinstance(e, str)]
    lines = [line for line in text.splitlines() if line.startswith("  exact:")]
    with_terms = [line for line in lines if "more term" in line]
    assert with_terms  # z_1,1 = 0.3 + 0.648*tanh(1.209) + … has more terms than fit
    for line in with_terms:
        kept = line.split(" = ", 1)[1].split(" + … (")[0]
        n_more = int(line.rsplit("(", 1)[1].split()[0])
        assert any(f.startswith(kept) and len(top_level_terms(f)) == len(top_level_terms(kept)) + n_more for f in forms)
    assert all(len(line) <= EXACT_WIDTH for line in lines)
    assert " ".join(text.split()).count(POINTER) == 1


def test_pointer_once_at_80_columns_and_absent_when_nothing_is_cut(cli: Any) -> None:
    narrow = cli("solve", str(PROBLEMS / "long-sentence.toml"), "--exact", "--width", "80").stdout
    assert " ".join(narrow.split()).count(POINTER) == 1
    weights = next(
        s
        for s in json.loads(cli("solve", str(PROBLEMS / "long-sentence.toml"), "-f", "json").stdout)["steps"]
        if s["id"] == "weights"
    )
    sizes = sorted({len(f) for f in weights["exact"][:6]})
    span = f"{sizes[0]}–{sizes[-1]}" if len(sizes) > 1 else f"{sizes[0]}"
    assert f"α_1 … α_6: 6 forms of {span} characters each, too long to show here" in " ".join(narrow.split())
    whole = cli("solve", str(PROBLEMS / "lecture-dot.toml"), "--exact", "--width", "80").stdout
    assert "exact:" in whole and "in full" not in whole
