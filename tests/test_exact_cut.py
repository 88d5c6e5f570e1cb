"""An exact form cut to fit the text view says, once per derivation, where the full form is."""

from __future__ import annotations

import json
from typing import Any

from .helpers import PROBLEMS

POINTER = "--format json and the sheets, -f markdown or -f pdf, give it in full"


def _leaves(x: Any) -> list[Any]:
    return [e for v in x for e in _leaves(v)] if isinstance(x, list) else [x]


def test_cut_exact_forms_point_to_the_full_ones_once(cli: Any) -> None:
    path = str(PROBLEMS / "long-sentence.toml")
    text = cli("solve", path, "--exact", "--width", "250").stdout
    lines = text.splitlines()
    cut = [i for i, line in enumerate(lines) if line.startswith("  exact:") and line.endswith("…")]
    assert len(cut) >= 2  # its exact weights run past the cut
    assert text.count(POINTER) == 1
    assert POINTER in lines[cut[0] + 1]  # right under the first cut form
    # and the JSON does hold each cut form in full: what the line shows is the start of a longer form
    data = json.loads(cli("solve", path, "--exact", "--format", "json").stdout)
    forms = [e for s in data["steps"] for e in _leaves(s["exact"]) if isinstance(e, str)]
    for i in cut:
        start = lines[i].split(" = ", 1)[1][:-1]
        assert any(f.startswith(start) and len(f) > len(start) for f in forms), start


def test_pointer_once_at_80_columns_and_absent_when_nothing_is_cut(cli: Any) -> None:
    narrow = cli("solve", str(PROBLEMS / "long-sentence.toml"), "--exact", "--width", "80").stdout
    assert " ".join(narrow.split()).count(POINTER) == 1
    whole = cli("solve", str(PROBLEMS / "lecture-dot.toml"), "--exact", "--width", "80").stdout
    assert "exact:" in whole and "give it in full" not in whole
