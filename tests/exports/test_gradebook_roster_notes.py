"""`check --gradebook canvas|moodle --roster FILE`: the notes on the roster's rows stay a few lines
whatever the export holds. Only the rows some answers file names (or that share an id with one) are
noted, and past the first few notes of a kind the others are counted in one line. Each roster is
written by hand in Canvas's layout (tests/exports/test_gradebook_roster.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CANVAS_HEAD = "Student,ID,SIS User ID,SIS Login ID,Section"


def _notes(tmp_path: Path, capsys: Any, rows: list[str], wanted: set[str]) -> list[str]:
    """The lines ``read_roster`` writes on standard error for a Canvas export of ``rows``."""
    from attncalc.reports.roster import read_roster

    path = tmp_path / "r.csv"
    path.write_text(CANVAS_HEAD + "\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    capsys.readouterr()
    read_roster(str(path), "canvas", None, wanted)
    return capsys.readouterr().err.splitlines()


def test_control_characters_in_rows_no_file_names_are_not_noted(tmp_path: Path, capsys: Any) -> None:
    """200,000 such rows wrote one note each before the rows were narrowed to those a file names."""
    rows = [f"P,,\x01,q{k},A" for k in range(3000)] + ["Bob,1,S1,bob,A"]
    assert _notes(tmp_path, capsys, rows, {"bob"}) == []


def test_control_characters_in_many_named_rows_are_counted_past_the_first_few(tmp_path: Path, capsys: Any) -> None:
    # lines 2 to 3,001: N0 to N2999, each SIS User ID holding a U+0001
    rows = [f"N{k},{k},S\x01{k},l{k},A" for k in range(3000)]
    notes = _notes(tmp_path, capsys, rows, {f"l{k}" for k in range(3000)})
    path = tmp_path / "r.csv"
    assert notes == [
        f"attncalc: note: {path}: line {n}: the SIS User ID S\\x01{n - 2} holds a control or format character: "
        "it is left out (the student is matched and written by their other ids)"
        for n in (2, 3, 4)
    ] + [f"attncalc: note: {path}: lines 5, 6, 7 and 2,994 more hold ids with a control or format character too: "
         "those ids are left out"]  # fmt: skip


@pytest.mark.parametrize("count", [1000, 2000])
def test_ids_shared_by_many_pairs_of_named_rows_are_counted_past_the_first_few(
    tmp_path: Path, capsys: Any, count: int
) -> None:
    """200,000 rows sharing the login bob, and their SIS User IDs by pairs, wrote 100,004 notes."""
    rows = [f"B{k},{k},S{k // 2},bob,A" for k in range(count)]
    notes = _notes(tmp_path, capsys, rows, {"bob"})
    assert len(notes) == 4
    # sorted by column, then by id as text: the SIS Login ID bob, then the SIS User IDs S0, S1, S10, S100, ...
    assert f"the SIS Login ID bob is {count:,} students' of the roster: it identifies none of them" in notes[0]
    assert "the SIS User ID S0 is 2 students' of the roster: it identifies neither" in notes[1]
    assert "the SIS User ID S1 is 2 students' of the roster: it identifies neither" in notes[2]
    assert notes[3].endswith(
        f"{count // 2 + 1 - 3:,} more ids are several students' of the roster (the SIS User ID S10, "
        "the SIS User ID S100, the SIS User ID S101, ...): each identifies none of them (a student with no "
        "other id gets no row)"
    )


def test_many_repeated_rows_are_counted_past_the_first_few(tmp_path: Path, capsys: Any) -> None:
    """100,000 distinct rows each written twice wrote 100,004 "line N repeats" notes."""
    rows = [f"B{k},{k},S{k},l{k},A" for k in range(2000) for _ in range(2)]  # B0 on lines 2, 3; B1 on 4, 5; ...
    notes = _notes(tmp_path, capsys, rows, {f"l{k}" for k in range(2000)})
    path = tmp_path / "r.csv"
    assert notes == [
        f"attncalc: note: {path}: line 3 repeats line 2 (the same name and ids): read once",
        f"attncalc: note: {path}: line 5 repeats line 4 (the same name and ids): read once",
        f"attncalc: note: {path}: line 7 repeats line 6 (the same name and ids): read once",
        f"attncalc: note: {path}: 1,997 more rows, on lines 8, 10, 12 and 1,994 more, are repeated further down "
        "(the same name and ids): each is read once",
    ]
