"""`check ANSWERS...` reads an answers file's `problem = "..."` only inside the answers file's folder (or
the folder `--problems DIR` names), and a gradebook never shows what was found elsewhere, nor an
absolute path of the grader's machine.

A student's file could name any path: the Moodle feedback column then told them whether a file existed,
the first key of a TOML file, a string of a problem-shaped file and the grader's absolute paths.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.cli.files import problem_named

from ..helpers import one_line_refusal

PROBLEM = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
# by hand: s_i = q·k_i = [1, 2, 2]; weights e^s_i / Σ e^s
W = np.exp([1.0, 2.0, 2.0]) / np.exp([1.0, 2.0, 2.0]).sum()
RIGHT = f"scores = [1, 2, 2]\nweights = [{W[0]:.3f}, {W[1]:.3f}, {W[2]:.3f}]\n"
SECRET = 'api_key = "hunter2-secret"\n'


def _rows(stdout: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(stdout.lstrip("\ufeff"))))


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Path]:
    """The grader's machine: a secret file and a problem outside the class folder, and the class folder."""
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "keys.toml").write_text(SECRET, encoding="utf-8")
    (tmp_path / "private" / "exam.toml").write_text(PROBLEM.replace("kind", 'title = "Exam 2026"\nkind'))
    (tmp_path / "class").mkdir()
    return {"root": tmp_path, "class": tmp_path / "class", "private": tmp_path / "private"}


def _answers(folder: Path, name: str, problem: str, student: str) -> str:
    path = folder / name
    path.write_text(f'problem = "{problem}"\nstudent = "{student}"\n{RIGHT}', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "written",
    [
        "../private/keys.toml",  # up and out
        "../private/exam.toml",  # a problem, but outside the folder
        "sub/../../private/exam.toml",
        "../private/missing.toml",  # a file that does not exist says the same as one that does
        "ABSOLUTE",  # an absolute path
    ],
)
def test_a_problem_outside_the_folder_is_not_read_nor_described(
    cli: Any, machine: dict[str, Path], written: str
) -> None:
    if written == "ABSOLUTE":
        written = str(machine["private"] / "exam.toml")
    files = [
        _answers(machine["class"], "alice.toml", written, "alice@uni.example"),
        _answers(machine["class"], "bob.toml", written, "bob@uni.example"),
    ]
    result = cli("check", *files, "--format", "csv", "--gradebook", "moodle")
    assert result.exit_code == 2
    rows = _rows(result.stdout)
    assert [r[1] for r in rows[1:]] == ["-", "-"]  # no grade
    feedback = rows[1][2]
    assert "could not be used" in feedback
    for leak in ("api_key", "hunter2", "Exam 2026", "private", "missing", "no such file", str(machine["root"])):
        assert leak not in result.stdout, leak
    # every refusal is worded the same: a missing file cannot be told from a secret one
    assert rows[1][2].replace("alice", "bob") == rows[2][2]


def test_the_same_refusals_give_the_same_words_whatever_was_found(cli: Any, machine: dict[str, Path]) -> None:
    texts = []
    for k, written in enumerate(["../private/keys.toml", "../private/missing.toml", "../private/exam.toml", "/etc"]):
        a = _answers(machine["class"], f"s{k}.toml", written, f"s{k}")
        result = cli("check", a)
        err = one_line_refusal(result, f"s{k}.toml", "problem")
        texts.append(err.replace(f"s{k}.toml", "FILE"))
    assert len(set(texts)) == 1, texts


def test_a_link_leaving_the_folder_is_not_followed(cli: Any, machine: dict[str, Path]) -> None:
    (machine["class"] / "p.toml").symlink_to(machine["private"] / "exam.toml")
    a = _answers(machine["class"], "a.toml", "p.toml", "a")
    result = cli("check", a, "--format", "json")
    assert result.exit_code == 2 and "could not be used" in result.stderr and "Exam" not in result.output


def test_a_link_inside_the_folder_and_a_subfolder_are_read(cli: Any, machine: dict[str, Path]) -> None:
    (machine["class"] / "hw").mkdir()
    (machine["class"] / "hw" / "p.toml").write_text(PROBLEM, encoding="utf-8")
    (machine["class"] / "link.toml").symlink_to(machine["class"] / "hw" / "p.toml")
    for written in ("hw/p.toml", "link.toml", "hw/../hw/p.toml"):
        a = _answers(machine["class"], "a.toml", written, "a")
        result = cli("check", a, "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["summary"]["correct"] == 2


def test_problems_names_the_folder_problems_are_read_from(cli: Any, machine: dict[str, Path]) -> None:
    """The layout `generate` writes (answers/ beside the variants, problem = "../variant.toml") and a
    bare name, both read with --problems; without it, refused."""
    hw = machine["root"] / "hw"
    (hw / "answers").mkdir(parents=True)
    (hw / "v1.toml").write_text(PROBLEM, encoding="utf-8")
    key = _answers(hw / "answers", "v1.toml", "../v1.toml", "key")
    bare = _answers(machine["class"], "carol.toml", "v1.toml", "carol")
    for a in (key, bare):
        assert cli("check", a).exit_code == 2
        result = cli("check", "--problems", str(hw), a, "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["summary"]["correct"] == 2
    # --problems opens that folder only: the private one stays closed
    out = _answers(machine["class"], "dave.toml", "../private/exam.toml", "dave")
    assert cli("check", "--problems", str(hw), out).exit_code == 2


def test_problems_must_be_a_folder(cli: Any, machine: dict[str, Path]) -> None:
    a = _answers(machine["class"], "a.toml", "p.toml", "a")
    one_line_refusal(cli("check", "--problems", str(machine["root"] / "nope"), a), "--problems")


def test_no_gradebook_or_report_shows_an_absolute_path(cli: Any, machine: dict[str, Path]) -> None:
    (machine["class"] / "p.toml").write_text(PROBLEM, encoding="utf-8")
    good = _answers(machine["class"], "alice.toml", "p.toml", "alice")
    bad = machine["class"] / "bob.toml"
    bad.write_text('problem = "p.toml"\nstudent = "bob"\nscores = [1, 2]\n', encoding="utf-8")
    root = str(machine["root"])
    assert os.path.isabs(good)
    for layout in ("plain", "canvas", "moodle"):
        result = cli("check", good, str(bad), "--format", "csv", "--gradebook", layout)
        assert result.exit_code == 2
        assert root not in result.stdout, layout
    plain = _rows(cli("check", good, str(bad), "--format", "csv").stdout)
    assert [r[0] for r in plain[1:]] == ["alice.toml", "bob.toml"] and plain[1][1] == "p.toml"
    assert "bob.toml: scores:" in plain[2][-1]
    for fmt in ("json", "text"):
        out = cli("check", good, "--format", fmt, "-o", str(machine["root"] / f"r.{fmt}"))
        assert out.exit_code == 0
        assert root not in (machine["root"] / f"r.{fmt}").read_text(encoding="utf-8"), fmt
    given_first = cli("check", str(machine["class"] / "p.toml"), good, "--format", "json")
    assert root not in given_first.stdout


def test_the_resolver_alone(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "p.toml").write_text(PROBLEM)
    (tmp_path / "b.toml").write_text(PROBLEM)
    os.mkfifo(tmp_path / "a" / "fifo.toml")
    answers = str(tmp_path / "a" / "x.toml")
    assert problem_named(answers, "p.toml", None) == os.path.realpath(tmp_path / "a" / "p.toml")
    for written in ("../b.toml", str(tmp_path / "b.toml"), "fifo.toml", "", "p\x00.toml", ".", "missing.toml"):
        assert problem_named(answers, written, None) is None, written
    assert problem_named(answers, "../b.toml", str(tmp_path)) == os.path.realpath(tmp_path / "b.toml")
    assert problem_named(answers, "b.toml", str(tmp_path)) == os.path.realpath(tmp_path / "b.toml")
