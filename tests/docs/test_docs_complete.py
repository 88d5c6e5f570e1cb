"""docs/interface.md is complete: its top-level key table names every kind and every
top-level key and table of every kind (read from the registry of kinds, not a hand list), no stale
sentence about kinds "marked planned" is left, errors name a key the file has, and the steps where
1-based entry labels stand next to 0-based positions say where each counts from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncalc import kinds
from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import solve_raw

INTERFACE = Path(__file__).parents[2] / "docs" / "interface.md"


def _top_level_table() -> dict[str, str]:
    """The rows of the 'Top-level keys:' table: each key the first column names -> the row's text."""
    lines = INTERFACE.read_text(encoding="utf-8").splitlines()
    start = lines.index("Top-level keys:")
    rows: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        first, _, rest = line.strip("|").partition("|")
        for name in re.findall(r"`\[?([^`\]]+)\]?`", first):
            rows[name] = rest
    return rows


def test_the_top_level_table_lists_every_kind_and_every_top_level_key() -> None:
    rows = _top_level_table()
    kind_row = rows["kind"]
    for kind, entry in kinds.BUILTIN.items():  # the built-ins (a plugin kind documents itself)
        assert f"`{kind}`" in kind_row, kind
        for key in entry.declaration.top.keys:
            assert key.name in rows, (kind, key.name)


def test_a_key_few_kinds_take_names_them() -> None:
    """A key (or table) that at most three kinds take says which in its row."""
    rows = _top_level_table()
    takers: dict[str, list[str]] = {}
    for kind, entry in kinds.KINDS.items():
        for key in entry.declaration.top.keys:
            takers.setdefault(key.name, []).append(kind)
    for name, who in takers.items():
        if len(who) <= 3:
            for kind in who:
                assert re.search(rf"(?<![\w-]){re.escape(kind)}(?![\w-])", rows[name]), (name, kind, rows[name])


def test_no_stale_sentence_about_planned_kinds() -> None:
    assert "planned" not in INTERFACE.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ errors name a key the file has

ROPE_QK = {"kind": "positional-encoding", "type": "rope", "given": {"positions": [0, 1]}}


def _error(raw: dict[str, object]) -> ProblemError:
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "p.toml")
    return e.value


def test_an_odd_rope_width_from_q_is_reported_under_q() -> None:
    raw = {**ROPE_QK, "given": {**ROPE_QK["given"], "q": [[1, 0, 1], [0, 1, 1]], "k": [[1, 0, 1], [0, 1, 1]]}}  # type: ignore[dict-item]
    err = str(_error(raw))
    assert "given.q" in err and "given.d_k" not in err and "3" in err and "odd" in err


def test_an_odd_rope_width_from_k_alone_is_reported_under_k() -> None:
    raw = {**ROPE_QK, "given": {**ROPE_QK["given"], "k": [[1, 0, 1], [0, 1, 1]]}}  # type: ignore[dict-item]
    err = str(_error(raw))
    assert "given.k" in err and "given.d_k" not in err


def test_an_odd_stated_d_k_is_still_reported_under_d_k() -> None:
    raw = {**ROPE_QK, "given": {**ROPE_QK["given"], "d_k": 3}}  # type: ignore[dict-item]
    assert "given.d_k" in str(_error(raw))


def test_a_d_model_that_disagrees_with_q_is_reported_under_d_model() -> None:
    raw = {**ROPE_QK, "given": {**ROPE_QK["given"], "d_model": 4, "q": [[1, 0], [0, 1]]}}  # type: ignore[dict-item]
    err = str(_error(raw))
    assert "given.d_model" in err and "given.d_k" not in err


# ------------------------------------------------------------------------------ where labels count from


def test_positional_steps_say_where_entries_and_positions_count_from() -> None:
    raw = {
        "kind": "positional-encoding",
        "type": "rope",
        "given": {"positions": [3, 4], "q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1]]},
    }
    d = solve_raw(raw)
    for sid in ("angles", "q_rot", "k_rot"):
        step = d.step(sid)
        assert "count rows and columns from 1" in step.explain and "count from 0" in step.explain, sid
    sin = solve_raw({"kind": "positional-encoding", "given": {"positions": 2, "d_model": 2}})
    assert "from 1" in sin.step("positions").explain


def test_the_alibi_bias_says_where_positions_and_entries_count_from() -> None:
    eye = [[1, 0], [0, 1]]
    raw = {
        "kind": "multi-head",
        "given": {
            "X": [[1, 0], [0, 1]],
            "heads": 2,
            "positions": "alibi",
            "W_Q": eye,
            "W_K": eye,
            "W_V": eye,
            "W_O": eye,
        },
    }
    step = solve_raw(raw).step("head.1.bias")
    assert "(positions from 0)" in step.formula
    assert "Positions i, k count from 0; entries [r,c] count rows and columns from 1" in step.explain


def test_the_examples_page_lists_every_example_problem() -> None:
    """docs/guide/examples.md has a row for every problem file of problems/ (a new user looked for 14 unlisted)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "guide" / "examples.md").read_text(encoding="utf-8")
    missing = [p.name for p in sorted((root / "problems").glob("*.toml")) if f"`{p.name}`" not in page]
    assert not missing, f"docs/guide/examples.md lists no row for: {missing}"
