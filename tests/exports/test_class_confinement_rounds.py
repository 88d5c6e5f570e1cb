"""Tryouts 45 and 46: ways around the class rules of `check --problems DIR` (docs/interface.md, "Answers files"):
one student's empty folder cost the class its gradebook; a `..` after a student's link chose a problem in
another --problems folder while the problem column named another; a path through /proc/self/cwd or a
link to / was taken and echoed; a refusal named a link that does not exist; a folder given with a slash
was shown as ".". Tryout 46: a folder given dropped a student's link out of it from the gradebook with
exit 0 (a note only), where the same entry given by a glob had its row and exit 2. Each test fails on the
commit before its fix (201a017, 286636b)."""

from __future__ import annotations

import csv
import io
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from .class_layouts import answers_text, fake_problem, invoke_in, key_body, run_in


def _rows(out: str) -> dict[str, dict[str, str]]:
    return {r["file"]: r for r in csv.DictReader(io.StringIO(out.lstrip("\ufeff")))}


def test_one_students_empty_folder_costs_no_one_their_row(the_set: Path, tmp_path: Path) -> None:
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    for name in ("ann", "ben", "cy"):
        (tmp_path / "subs" / name).mkdir(parents=True)
    (tmp_path / "subs" / "ann" / "ann.toml").write_text(answers_text("variant-01.toml", key, "ann"), encoding="utf-8")
    (tmp_path / "subs" / "ben" / "hw3.pdf").write_bytes(b"%PDF-1.4\n")  # a PDF handed in, no answers file
    (tmp_path / "subs" / "cy" / "cy.toml").write_text(answers_text("variant-01.toml", key, "cy"), encoding="utf-8")
    result = invoke_in(
        tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "subs/ann/", "subs/ben/", "subs/cy/"]
    )
    rows = _rows(result.stdout)
    assert result.exit_code == 2 and set(rows) == {"subs/ann/ann.toml", "subs/cy/cy.toml"}, rows
    assert all(r["score"] == r["out_of"] for r in rows.values()), rows
    assert "subs/ben/: a folder with no answers files" in result.stderr
    # alone, or when every folder given is empty, it is still the one refusal
    for args in (["subs/ben/"], ["subs/ben/", "subs/ben/"]):
        code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", *args])
        assert code == 2 and not out


def test_a_dotdot_after_a_link_names_no_problem(the_set: Path, tmp_path: Path) -> None:
    """``problem = "m/../../variant-01.toml"`` with ``m -> .``: as written, week2's variant-01; as followed, the
    other set's. It named one file and graded against another (the column said week2's)."""
    shutil.copytree(the_set, tmp_path / "sets")
    shutil.copytree(the_set, tmp_path / "sets" / "week2")
    week2 = tmp_path / "sets" / "week2"
    (week2 / "variant-01.toml").write_text(fake_problem(week2 / "variant-01.toml"), encoding="utf-8")  # another problem
    subs = week2 / "subs"
    subs.mkdir()
    (subs / "m").symlink_to(".", target_is_directory=True)
    key = key_body(tmp_path / "sets" / "answers" / "variant-01.toml")  # the other set's true answers
    (subs / "eve.toml").write_text(answers_text("m/../../variant-01.toml", key, "eve"), encoding="utf-8")
    (subs / "ctl.toml").write_text(answers_text("variant-01.toml", key, "ctl"), encoding="utf-8")
    _, out = run_in(
        tmp_path, ["check", "--problems", "sets/week2", "--problems", "sets", "--format", "csv", "sets/week2/subs/"]
    )
    rows = _rows(out)
    eve, ctl = rows["sets/week2/subs/eve.toml"], rows["sets/week2/subs/ctl.toml"]
    # looked up from subs/, as written week2's and as followed the other's: not usable; looked up from week2/
    # or sets/, through a folder m that is not there, which no open() follows (tryout 55): not usable either
    assert not eve["problem"] and not eve["score"] and "could not be used" in eve["error"], eve
    assert ctl["problem"] == "sets/week2/variant-01.toml" and ctl["score"] != ctl["out_of"], ctl


def test_a_path_through_proc_or_a_link_to_the_root_is_unusable_and_never_echoed(the_set: Path, tmp_path: Path) -> None:
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    s3 = tmp_path / "s3"
    s3.mkdir()
    (s3 / "root").symlink_to("/", target_is_directory=True)
    (s3 / "ok.toml").write_text(answers_text("../hw3/variant-01.toml", key, "ok"), encoding="utf-8")
    written = {
        "p": "../" * 40 + "proc/self/cwd/hw3/variant-01.toml",
        "r": "root" + str(tmp_path / "hw3" / "variant-01.toml"),
    }
    for name, problem in written.items():
        (s3 / f"{name}.toml").write_text(answers_text(problem, key, name), encoding="utf-8")
    _, out = run_in(
        tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "s3/ok.toml", "s3/p.toml", "s3/r.toml"]
    )
    rows = _rows(out)
    assert rows["s3/ok.toml"]["score"] == rows["s3/ok.toml"]["out_of"]
    for name in written:
        row = rows[f"s3/{name}.toml"]
        assert not row["score"] and not row["problem"] and "could not be used" in row["error"], row
    assert "proc/self" not in out and str(tmp_path) not in out


def test_a_refusal_names_the_link_as_given_and_a_folder_with_a_slash_is_named(the_set: Path, tmp_path: Path) -> None:
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "subs" / "ann" / "a.toml").write_text(answers_text("variant-01.toml", key, "ann"), encoding="utf-8")
    (tmp_path / "subs" / "mallory").symlink_to("../hw3/answers", target_is_directory=True)
    _, out = run_in(
        tmp_path,
        [
            "check",
            "--problems",
            "hw3",
            "--format",
            "csv",
            "--",
            "subs/mallory/../answers/variant-01.toml",
            "subs/ann/a.toml",
        ],
    )
    row = _rows(out)["subs/mallory/../answers/variant-01.toml"]
    assert "(subs/mallory is a symbolic link)" in row["error"], row
    (tmp_path / "w.toml").mkdir()
    (tmp_path / "away").mkdir()
    code, out = run_in(
        tmp_path / "away",
        ["check", "--problems", str(tmp_path / "hw3"), "--format", "csv", str(tmp_path / "w.toml") + os.sep],
    )
    (row,) = _rows(out).values()
    assert code == 2 and row["file"] == "w.toml" and row["student"] == "w", row


def test_one_students_unreadable_folder_costs_no_one_their_row(
    the_set: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As an empty folder: a folder a student's archive unpacked without read permission (modelled: the
    tests may run as root, who reads any folder) is one line, the others graded."""
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    for name in ("ann", "ben"):
        (tmp_path / "subs" / name).mkdir(parents=True)
    (tmp_path / "subs" / "ann" / "ann.toml").write_text(answers_text("variant-01.toml", key, "ann"), encoding="utf-8")
    listing = os.listdir

    def locked(folder: Any = ".") -> Any:
        if str(folder).rstrip("/").endswith("ben"):
            raise PermissionError(13, "Permission denied")
        return listing(folder)

    monkeypatch.setattr(os, "listdir", locked)
    result = invoke_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "subs/ann/", "subs/ben/"])
    assert result.exit_code == 2 and list(_rows(result.stdout)) == ["subs/ann/ann.toml"], result.stdout
    assert "subs/ben/: cannot list the folder (Permission denied)" in result.stderr
    result = invoke_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "subs/ben/"])
    assert result.exit_code == 2 and not result.stdout and "cannot list the folder" in result.stderr


def test_every_entry_of_a_folder_given_has_its_row(the_set: Path, tmp_path: Path) -> None:
    """A student's link out of the folder, a broken link, a link loop, a FIFO and a folder named like an
    answers file: each refused in its row, never opened (no hang on the FIFO), exit 2; a link within the
    folder is read as its file. With a Canvas roster, the refused student keeps a row with no score."""
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    f2 = tmp_path / "f2"
    f2.mkdir()
    (f2 / "amueller.toml").write_text(answers_text("variant-01.toml", key, "amueller"), encoding="utf-8")
    (f2 / "bmeier.toml").symlink_to("../hw3/answers/variant-01.toml")
    (f2 / "broken.toml").symlink_to("nowhere.toml")
    (f2 / "loop.toml").symlink_to("loop.toml")
    os.mkfifo(f2 / "fifo.toml")
    (f2 / "dir.toml").mkdir()
    (f2 / "zoe.toml").symlink_to("amueller.toml")
    (f2 / "notes.txt").write_text("not a submission", encoding="utf-8")
    result = invoke_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "f2/"])
    rows = _rows(result.stdout)
    assert result.exit_code == 2, result.stderr
    assert sorted(rows) == [f"f2/{n}.toml" for n in ("amueller", "bmeier", "broken", "dir", "fifo", "loop", "zoe")]
    for name, reason in {
        "bmeier": "a symbolic link out of its folder",
        "broken": "no such file",
        "loop": "Too many levels of symbolic links",
        "fifo": "is a FIFO (named pipe), not a regular file",
        "dir": "is a directory, not a regular file",
    }.items():
        row = rows[f"f2/{name}.toml"]
        assert not row["score"] and reason in row["error"], row
    for name in ("amueller", "zoe"):
        assert rows[f"f2/{name}.toml"]["score"] == rows[f"f2/{name}.toml"]["out_of"]
    (tmp_path / "export.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Homework 3 (1234),Current Score\n"
        "    Points Possible,,,,,5.00,(read only)\n"
        '"Müller, Anna",4711,S100,amueller,Section A,,0.00\n'
        '"Meier, Ben",4712,S101,bmeier,Section A,,0.00\n',
        encoding="utf-8",
    )
    (f2 / "broken.toml").unlink()
    (f2 / "loop.toml").unlink()
    (f2 / "fifo.toml").unlink()
    (f2 / "dir.toml").rmdir()
    (f2 / "zoe.toml").unlink()
    args = ["--gradebook", "canvas", "--assignment", "Homework 3 (1234)", "--roster", "export.csv"]
    result = invoke_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "f2/", *args])
    canvas = {r["SIS Login ID"]: r for r in csv.DictReader(io.StringIO(result.stdout.lstrip("\ufeff")))}
    assert result.exit_code == 2 and set(canvas) >= {"amueller", "bmeier"}, result.stdout
    assert canvas["bmeier"]["Homework 3 (1234)"] == "" and canvas["amueller"]["Homework 3 (1234)"] == "5"


def test_a_problem_path_is_matched_byte_for_byte_not_composed(the_set: Path, tmp_path: Path) -> None:
    """docs/interface.md: every string is read composed (NFC) except a `problem =` path, a file's name as
    written (tryout 47 found the docs said otherwise)."""
    (tmp_path / "hw4").mkdir()
    decomposed = "qua\u0308l.toml"
    shutil.copy(the_set / "variant-01.toml", tmp_path / "hw4" / decomposed)
    key = key_body(the_set / "answers" / "variant-01.toml")
    (tmp_path / "s9").mkdir()
    (tmp_path / "s9" / "a.toml").write_text(answers_text(decomposed, key, "a"), encoding="utf-8")
    (tmp_path / "s9" / "b.toml").write_text(answers_text("qu\u00e4l.toml", key, "b"), encoding="utf-8")
    _, out = run_in(tmp_path, ["check", "--problems", "hw4", "--format", "csv", "--", "s9/a.toml", "s9/b.toml"])
    rows = _rows(out)
    assert rows["s9/a.toml"]["score"] == rows["s9/a.toml"]["out_of"], rows
    assert not rows["s9/b.toml"]["score"] and "could not be used" in rows["s9/b.toml"]["error"], rows


def test_a_link_is_named_as_the_file_is_from_beside_the_class(the_set: Path, tmp_path: Path) -> None:
    """Tryout 48: given as ``../subs/*/`` from a folder of the TA's, a student's ``subs/hw3 -> ../hw3`` was named
    ``hw3`` (the set's own name), not ``../subs/hw3`` as its file is."""
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(the_set / "answers" / "variant-01.toml")
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "ta").mkdir()
    (tmp_path / "subs" / "alice" / "a.toml").write_text(answers_text("variant-01.toml", key, "alice"), encoding="utf-8")
    (tmp_path / "subs" / "hw3").symlink_to("../hw3", target_is_directory=True)
    _, out = run_in(
        tmp_path / "ta", ["check", "--problems", "../hw3", "--format", "csv", "--", "../subs/alice/", "../subs/hw3/"]
    )
    rows = _rows(out)
    assert rows["../subs/alice/a.toml"]["score"] == rows["../subs/alice/a.toml"]["out_of"]
    for name in ("variant-01.toml", "variant-02.toml"):
        assert "(../subs/hw3 is a symbolic link)" in rows[f"../subs/hw3/{name}"]["error"], rows


def test_a_path_going_back_up_from_a_students_link_is_not_read(the_set: Path, tmp_path: Path) -> None:
    """Tryout 49: ``subs2/ev/../mykey.toml`` (or the folder ``subs2/ev/..``), ``ev`` a student's link to a folder
    of the TA's, read the TA's file beside that folder: the path written out (``subs2/mykey.toml``) has no
    link on it. A path whose `..` goes back up from a link is refused, naming it."""
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(the_set / "answers" / "variant-01.toml")
    (tmp_path / "ta" / "sub").mkdir(parents=True)
    (tmp_path / "ta" / "mykey.toml").write_text(answers_text("variant-01.toml", key, "mykey"), encoding="utf-8")
    (tmp_path / "subs2" / "alice").mkdir(parents=True)
    (tmp_path / "subs2" / "alice" / "a.toml").write_text(
        answers_text("variant-01.toml", key, "alice"), encoding="utf-8"
    )
    (tmp_path / "subs2" / "ev").symlink_to(tmp_path / "ta" / "sub", target_is_directory=True)
    for first in ("subs2/ev/../mykey.toml", "subs2/ev/.."):
        result = invoke_in(
            tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", first, "subs2/alice/a.toml"]
        )
        rows = _rows(result.stdout)
        mine = rows["subs2/ev/../mykey.toml"]
        assert result.exit_code == 2 and not mine["score"], rows
        assert "(subs2/ev is a symbolic link)" in mine["error"], mine
        assert rows["subs2/alice/a.toml"]["score"] == rows["subs2/alice/a.toml"]["out_of"]


def test_a_problems_folder_or_problem_going_back_up_from_a_link_is_refused(the_set: Path, tmp_path: Path) -> None:
    """Tryout 50: ``--problems subs/ev/../../hw3`` with a student's ``subs/ev -> mallory/a/b`` reads as hw3 and is
    mallory's ``subs/mallory/hw3``: her variant-01.toml, given first, graded the class. The --problems folder
    is refused in one line; the PROBLEM given so, with --problems hw3, is refused in its row."""
    shutil.copytree(the_set, tmp_path / "hw3")
    (tmp_path / "subs" / "mallory" / "a" / "b").mkdir(parents=True)
    (tmp_path / "subs" / "mallory" / "hw3").mkdir()
    shutil.copy(the_set / "variant-02.toml", tmp_path / "subs" / "mallory" / "hw3" / "variant-01.toml")
    (tmp_path / "subs" / "ev").symlink_to("mallory/a/b", target_is_directory=True)
    key = key_body(the_set / "answers" / "variant-01.toml")
    (tmp_path / "subs" / "alice.toml").write_text(answers_text("variant-01.toml", key, "alice"), encoding="utf-8")
    fake = "subs/ev/../../hw3"
    result = invoke_in(
        tmp_path, ["check", "--problems", fake, f"{fake}/variant-01.toml", "subs/alice.toml", "--format", "csv"]
    )
    assert result.exit_code == 2 and not result.stdout, result.stdout
    assert result.stderr.startswith(f"attncalc: error: --problems: {fake}: goes back up from the symbolic link subs/ev")
    assert result.stderr.count("\n") == 1
    result = invoke_in(
        tmp_path, ["check", "--problems", "hw3", f"{fake}/variant-01.toml", "subs/alice.toml", "--format", "csv"]
    )
    rows = _rows(result.stdout)
    assert rows["subs/alice.toml"]["problem"] == "hw3/variant-01.toml", rows
    assert rows["subs/alice.toml"]["score"] == rows["subs/alice.toml"]["out_of"], rows
    assert not rows[f"{fake}/variant-01.toml"]["score"], rows


def test_a_hard_link_is_never_read_as_a_students_file(the_set: Path, tmp_path: Path) -> None:
    """Tryout 52: a student's archive holding a hard link to ../answers/variant-01.toml (Python's tarfile
    unpacks it) had the TA's key graded as the student's, full marks: a file with other names is not read."""
    shutil.copytree(the_set, tmp_path / "hw3")
    subs = tmp_path / "hw3" / "subs"
    subs.mkdir()
    key = key_body(the_set / "answers" / "variant-01.toml")
    (subs / "bob.toml").write_text(answers_text("variant-01.toml", key, "bob"), encoding="utf-8")
    os.link(tmp_path / "hw3" / "answers" / "variant-01.toml", subs / "mallory.toml")
    for args in (["subs/"], ["--", "subs/bob.toml", "subs/mallory.toml"]):
        result = invoke_in(tmp_path / "hw3", ["check", "--problems", ".", "--format", "csv", *args])
        rows = _rows(result.stdout)
        assert result.exit_code == 2 and not rows["subs/mallory.toml"]["score"], rows
        assert "a file with 2 names (a hard link)" in rows["subs/mallory.toml"]["error"]
        assert rows["subs/bob.toml"]["score"] == rows["subs/bob.toml"]["out_of"]


def test_a_folder_named_like_a_file_spelled_with_a_dot_and_paths_with_two_leading_slashes(
    the_set: Path, tmp_path: Path
) -> None:
    """Tryout 53: ``N/w.Json/.`` was read as a folder given (``N/w.Json/`` is refused as not a file); and paths
    given as ``//tmp/...`` were shown by their names alone (two students' rows both ``hw.toml``)."""
    shutil.copytree(the_set, tmp_path / "hw3")
    key = key_body(the_set / "answers" / "variant-01.toml")
    (tmp_path / "N" / "w.Json").mkdir(parents=True)
    (tmp_path / "N" / "w.Json" / "in.toml").write_text(answers_text("variant-01.toml", key, "in"), encoding="utf-8")
    (tmp_path / "subs" / "amy").mkdir(parents=True)
    (tmp_path / "subs" / "bo").mkdir(parents=True)
    for who in ("amy", "bo"):
        (tmp_path / "subs" / who / "hw.toml").write_text(answers_text("variant-01.toml", key, who), encoding="utf-8")
    _, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "N/w.Json/.", "subs/amy/hw.toml"])
    rows = _rows(out)
    assert set(rows) == {"N/w.Json/.", "subs/amy/hw.toml"} and "is a directory" in rows["N/w.Json/."]["error"], rows
    (tmp_path / "ta").mkdir()
    doubled = "/" + str(tmp_path)
    _, out = run_in(
        tmp_path / "ta",
        ["check", "--problems", f"{doubled}/hw3", "--format", "csv", f"{doubled}/subs/amy/", f"{doubled}/subs/bo/"],
    )
    assert sorted(_rows(out)) == ["amy/hw.toml", "bo/hw.toml"], out
