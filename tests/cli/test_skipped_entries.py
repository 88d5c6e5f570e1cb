"""A folder's entries named like problem files that are not regular files (a FIFO, a device, a folder,
a broken link) are skipped, never opened, and each is named in one note line on stderr: they were
skipped without a word."""

from __future__ import annotations

import os
from pathlib import Path

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
    (tmp_path / "notes.txt").write_text("not a problem file")
    if os.path.exists("/dev/null"):
        (tmp_path / "null.toml").symlink_to("/dev/null")
    return tmp_path


def test_the_regular_files_and_the_skipped_entries(folder: Path) -> None:
    files, skipped = folder_files(folder, SUFFIXES)
    assert [p.name for p in files] == ["good.toml"]
    expected = {"dir.yaml (a folder)", "gone.json (a broken link)", "pipe.toml (a FIFO (named pipe))"}
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
