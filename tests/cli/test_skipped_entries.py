"""A folder's entries named like problem files that are not regular files (a FIFO, a device, a folder,
a broken link) are skipped, never opened, and each is named in one note line on stderr: they were
skipped without a word."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from attncalc.files import folder_files

from ..helpers import PROBLEMS

SUFFIXES = (".toml", ".yaml", ".yml", ".json")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "good.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "dir.yaml").mkdir()
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop.toml").symlink_to("loop.toml")  # (tryout 43: was "a broken link")
    (tmp_path / "notes.txt").write_text("not a problem file")
    if os.path.exists("/dev/null"):
        (tmp_path / "null.toml").symlink_to("/dev/null")
    return tmp_path


def test_the_regular_files_and_the_skipped_entries(folder: Path) -> None:
    files, skipped = folder_files(folder, SUFFIXES)
    assert [p.name for p in files] == ["good.toml"]
    expected = {
        "dir.yaml (a folder)",
        "gone.json (a broken link)",
        "loop.toml (a link loop)",
        "pipe.toml (a FIFO (named pipe))",
    }
    if (folder / "null.toml").is_symlink():
        expected.add("null.toml (a character device)")
    assert set(skipped) == expected


def test_serve_names_them_in_one_note(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from attncalc.serve.served import collect

    served = collect([str(folder)], None)
    assert list(served) == ["good"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"attncalc: note: skipped in {folder}, not regular files: ")
    for name in ("pipe.toml", "dir.yaml", "gone.json"):
        assert name in err
    assert "notes.txt" not in err


def test_no_note_without_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from attncalc.serve.served import collect

    (tmp_path / "good.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert list(collect([str(tmp_path)], None)) == ["good"]
    assert capsys.readouterr().err == ""


def test_a_link_out_of_a_submissions_folder_is_refused_unread_in_its_row(cli: Any, tmp_path: Path) -> None:
    """A student's answers "file" that is a link to a file of the grader's (a JSON of secrets, a TOML of
    another course): check followed it, and the Moodle feedback quoted its first key back ("hunter2: not a
    step of this problem"). It is never opened: refused in its row, saying why, exit 2 (tryout 46: it was
    skipped with a note only, exit 0, the submission gone from the gradebook unsaid); a link to a file in
    the folder and the regular files are graded."""
    import csv
    import io

    subs = tmp_path / "subs"
    subs.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text('{"hunter2_key_abc": 1}', encoding="utf-8")
    body = 'problem = "decoder-dot.toml"\nscores = [1, 2, 2]\n'
    (subs / "a.toml").write_text(body, encoding="utf-8")
    (subs / "sj.json").symlink_to(secret)
    (subs / "b.toml").symlink_to(subs / "a.toml")  # inside the folder: graded
    result = cli("check", "--problems", str(PROBLEMS), str(subs), "--format", "csv", "--gradebook", "moodle")
    assert result.exit_code == 2, result.output
    assert "hunter2" not in result.stdout and "hunter2" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if "sj.json" in line]
    assert len(lines) == 1 and "symbolic link out of its folder" in lines[0]
    rows = {r[0]: r for r in list(csv.reader(io.StringIO(result.stdout.lstrip("\ufeff"))))[1:]}
    assert sorted(rows) == ["a", "b", "sj"] and rows["sj"][1] == "-" and rows["a"][1] == rows["b"][1] != "-"
