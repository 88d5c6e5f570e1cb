"""A problem file whose name begins with '-' (`-p.toml`) was read as the option -p: the message now says
to write ./-p.toml or to put -- before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..helpers import PROBLEMS, run_cli


@pytest.fixture
def dashed(tmp_path: Path) -> Path:
    (tmp_path / "-p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", ["solve", "check", "plot"])
def test_the_message_says_how_to_name_the_file(dashed: Path, command: str) -> None:
    result = run_cli(command, "-p.toml", cwd=dashed)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attncalc: error: -p.toml: ")
    assert "./-p.toml" in result.stderr and "put -- before it" in result.stderr


def test_a_missing_dashed_name_with_a_problem_suffix_gets_the_hint_too(tmp_path: Path) -> None:
    result = run_cli("solve", "-x.yaml", cwd=tmp_path)
    assert result.returncode == 2 and "./-x.yaml" in result.stderr


@pytest.mark.parametrize("args", [["./-p.toml"], ["--", "-p.toml"]])
def test_either_way_reads_the_file(dashed: Path, args: list[str]) -> None:
    result = run_cli("solve", "-f", "json", *args, cwd=dashed)  # after --, every word is a file
    assert result.returncode == 0, result.stderr


def test_an_unknown_option_alone_has_no_hint(tmp_path: Path) -> None:
    result = run_cli("solve", "--nope", "x.toml", cwd=tmp_path)
    assert result.returncode == 2 and "./" not in result.stderr and "No such option" in result.stderr


def test_a_glob_that_expands_to_option_like_names_is_refused(tmp_path: Path) -> None:
    """Tryout 41: a student's entries named "--problems=m" and "-om/leak.toml", expanded by the TA's
    `attncalc check --problems . */*.toml`, were read as options: another --problems folder (the
    student's own problem graded against, a classmate's too) and the gradebook written into the
    student's folder. An argument naming a file or folder that exists is refused before options are
    read; after -- it is a file."""
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "--problems=m").mkdir()
    (tmp_path / "-om").mkdir()
    (tmp_path / "-om" / "leak.toml").write_text("x = 1\n")
    for arg in ("--problems=m", "-om/leak.toml"):
        result = run_cli("check", "p.toml", arg, cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.startswith(f"attncalc: error: {arg}: "), result.stderr
        assert "put -- before it" in result.stderr and result.stderr.count("\n") == 1
    assert (tmp_path / "-om" / "leak.toml").read_text() == "x = 1\n"  # nothing written into it


def test_a_students_file_named_double_dash_ends_no_options(tmp_path: Path) -> None:
    """Tryout 47: a student's file named "--", put among the arguments by the TA's `*` before the options,
    ended them: -o read as a file (the gradebook on the terminal, the TA's out.csv graded as an answers
    file). A "--" that names a file here, with no other "--" after it, is refused in one line; the TA's
    own "--" before the glob (followed by the file's) reads it as a file."""
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    body = 'problem = "p.toml"\nscores = [1, 2, 2]\n'
    (tmp_path / "a.toml").write_text(body, encoding="utf-8")
    (tmp_path / "--").write_text(body, encoding="utf-8")
    (tmp_path / "out.csv").write_text("x\n", encoding="utf-8")
    glob = sorted(p.name for p in tmp_path.iterdir() if p.name != "p.toml")  # the shell's `*`: --, a.toml, out.csv
    result = run_cli("check", "--format", "csv", *glob, "-o", "out.csv", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("attncalc: error: --: "), result.stderr
    assert result.stderr.count("\n") == 1 and not result.stdout
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == "x\n"
    result = run_cli("check", "--format", "csv", "--", "--", "a.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [line.split(",")[0] for line in result.stdout.lstrip("\ufeff").splitlines()[1:]] == [
        "'--",
        "a.toml",
    ]  # (' : CSV)


def test_the_tas_own_option_named_like_a_students_folder_before_their_double_dash(tmp_path: Path) -> None:
    """Tryout 55: grading from the submissions folder with `-o FILE -- *`, a student's folder named `-o`
    stopped the run (the TA's `-o` named an entry here too) with advice to put -- before it, already
    there. The glob's entry is after the `--` (the folder, one line: no answers files in it), the option
    before it is the TA's; an option that names an entry here the glob did not give is refused, with a
    way that works."""
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.toml").write_text('problem = "p.toml"\nscores = [1, 2, 2]\n', encoding="utf-8")
    (subs / "-o").mkdir()
    out = tmp_path / "grades.csv"
    glob = sorted(p.name for p in subs.iterdir())  # the shell's `*`: -o, a.toml
    result = run_cli("check", "--problems", "..", "--format", "csv", "-o", str(out), "--", *glob, cwd=subs)
    assert result.returncode == 2, result.stderr  # (the folder -o holds no answers files: one line)
    assert result.stderr.startswith("attncalc: error: -o: a folder with no answers files"), result.stderr
    assert out.read_text(encoding="utf-8").splitlines()[1].startswith("a.toml,../p.toml,1,9,"), out.read_text()
    result = run_cli("check", "--problems", "..", "--format", "csv", "-o", "x.csv", "--", "a.toml", cwd=subs)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and not (subs / "x.csv").exists()
    assert "join the option to its value with '=' (--output=FILE" in result.stderr and "put --" not in result.stderr
    result = run_cli("check", "--problems=..", "--format", "csv", "--output=x.csv", "--", "a.toml", cwd=subs)
    assert result.returncode == 0 and (subs / "x.csv").exists(), result.stderr
