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
    rows = [f"N{k},{k + 1},S\x01{k},l{k},A" for k in range(3000)]  # (Canvas IDs from 1)
    notes = _notes(tmp_path, capsys, rows, {f"l{k}" for k in range(3000)})
    path = tmp_path / "r.csv"
    assert notes == [
        f"attncalc: note: {path}: line {n}: the SIS User ID S\\x01{n - 2} holds a control or format character: "
        "it is left out (the student is matched by their other ids)"
        for n in (2, 3, 4)
    ] + [f"attncalc: note: {path}: lines 5, 6, 7 and 2,994 more hold such ids too (a control or format character, "
         "an ID that is no Canvas user number, an id Canvas would read as another): those ids are left out"]  # fmt: skip


@pytest.mark.parametrize("count", [1000, 2000])
def test_ids_shared_by_many_pairs_of_named_rows_are_counted_past_the_first_few(
    tmp_path: Path, capsys: Any, count: int
) -> None:
    """200,000 rows sharing the login bob, and their SIS User IDs by pairs, wrote 100,004 notes. (Each row
    is named by its own ID, so that the ids it shares decide its row.)"""
    rows = [f"B{k},{k + 1},S{k // 2},bob,A" for k in range(count)]
    notes = _notes(tmp_path, capsys, rows, {"bob"} | {str(k + 1) for k in range(count)})
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
    rows = [f"B{k},{k + 1},S{k},l{k},A" for k in range(2000) for _ in range(2)]  # B0 on lines 2, 3; B1 on 4, 5; ...
    notes = _notes(tmp_path, capsys, rows, {f"l{k}" for k in range(2000)})
    path = tmp_path / "r.csv"
    assert notes == [
        f"attncalc: note: {path}: line 3 repeats line 2 (the same name and ids): read once",
        f"attncalc: note: {path}: line 5 repeats line 4 (the same name and ids): read once",
        f"attncalc: note: {path}: line 7 repeats line 6 (the same name and ids): read once",
        f"attncalc: note: {path}: 1,997 more rows, on lines 8, 10, 12 and 1,994 more, are repeated further down "
        "(the same name and ids): each is read once",
    ]


# --- memory: what is held grows with the files, not with the export --------------------------------


def _held(tmp_path: Path, rows: list[str], wanted: set[str]) -> int:
    """The most memory (bytes, Python's allocations as tracemalloc counts them) ``read_roster`` held
    reading a Canvas export of ``rows``."""
    import io
    import sys
    import tracemalloc

    import numpy  # noqa: F401  (imported before: its first import is not the roster's memory)

    from attncalc.reports.roster import read_roster

    path = tmp_path / "r.csv"
    path.write_text(CANVAS_HEAD + "\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    stderr, sys.stderr = sys.stderr, io.StringIO()
    tracemalloc.start()
    try:
        read_roster(str(path), "canvas", None, wanted)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        sys.stderr = stderr


@pytest.mark.parametrize(
    ("row", "wanted"),
    [
        ("N{k},1{k},S{k},bob,A", {"10"}),  # every row shares the login bob with N0, the one a file names
        ("N{k},1{k},S{k},bob,A", {"bob"}),  # the file goes by bob, which every row holds
        ("N{k},1{k},S1,l{k},A", {"l0", "l1"}),  # every row shares the SIS User ID of the two named
        ("N,7,S7,l7,A", {"l7"}),  # one row, repeated
    ],
)
def test_rows_sharing_an_id_hold_a_few_bytes_each(tmp_path: Path, row: str, wanted: set[str]) -> None:
    """A 3.5 MB export whose rows all shared one id with a named student held 456 MB (each row kept, about
    1.3 KB): 2 GB at the 20 MB limit. Now each further row costs what its text does and 8-byte hashes
    (the counts of the shared id's note): 10,000 more rows, under 200 bytes each (1,000 before)."""
    small = _held(tmp_path, [row.format(k=k) for k in range(10_000)], wanted)
    large = _held(tmp_path, [row.format(k=k) for k in range(20_000)], wanted)
    assert (large - small) / 10_000 < 200, (small, large)


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        # A is named by login; B and C hold A's SIS User ID and nothing else (B twice: one student)
        (["A,1,S1,la,A", "B,,S1,,A", "C,,S1,,A", "B,,S1,,A"], "is 3 students' of the roster: it identifies none "
         "of them (2 of them have no other id: a file naming them gets no row)"),
        (["A,1,S1,la,A", "B,,S1,,A"], "is 2 students' of the roster: it identifies neither (1 of them has no "
         "other id: a file naming them gets no row)"),
        (["A,1,S1,la,A", "B,2,S1,,A"], "is 2 students' of the roster: it identifies neither (they are matched "
         "and written by their other ids)"),
    ],
)  # fmt: skip
def test_a_shared_id_counts_its_holders_that_no_file_names(
    tmp_path: Path, capsys: Any, rows: list[str], said: str
) -> None:
    """The holders of a named student's id are counted, and those without another id, though no file
    names them (they are read again for the note, not held)."""
    notes = _notes(tmp_path, capsys, rows, {"la"})
    assert len(notes) == 1 and notes[0].endswith(f"the SIS User ID S1 {said}")


def test_students_whose_every_id_is_shared_have_no_other_id(tmp_path: Path, capsys: Any) -> None:
    """A and B share all three ids; the file goes by the login a. The note said "(they are matched and
    written by their other ids)": only the file's id was weighed, not the holders' others (5 and S1,
    shared too). Each of the three ids now has its note, and each says they have no other id."""
    notes = _notes(tmp_path, capsys, ["A,5,S1,a,", "B,5,S1,a,"], {"a"})
    assert [n.split(": note: ")[1].split(" is 2")[0] for n in notes] == [
        f"{tmp_path / 'r.csv'}: the ID 5",
        f"{tmp_path / 'r.csv'}: the SIS Login ID a",
        f"{tmp_path / 'r.csv'}: the SIS User ID S1",
    ]
    assert all(
        n.endswith("it identifies neither (they have no other id: a file naming them gets no row)") for n in notes
    )


def test_past_the_rows_weighed_a_note_says_whose_other_ids_were_not_counted(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five rows hold the login bob the file goes by; with two rows weighed (10,000 in use), N2 to N4's own
    ids are not counted, and the note does not claim they identify them."""
    from attncalc.reports import roster_shared

    monkeypatch.setattr(roster_shared, "WEIGHED", 2)
    notes = _notes(tmp_path, capsys, [f"N{k},{k + 1},S{k},bob,A" for k in range(5)], {"bob"})
    assert len(notes) == 1 and notes[0].endswith(
        "the SIS Login ID bob is 5 students' of the roster: it identifies none of them (the other ids of 3 were not "
        "weighed: past the first 2 rows holding an id the files go by, a row's other ids are not counted)"
    )
