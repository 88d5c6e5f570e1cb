"""Output paths are checked before any work, and what stands in the way is named in one line.

A folder, a missing parent, a file where a folder is needed and a symbolic link (even a dangling
one) were tracebacks, or a replaced link without --force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS, one_line_refusal

DOT = str(PROBLEMS / "decoder-dot.toml")


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["", "--force"])
def test_output_naming_a_folder_is_refused(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, force: list[str]
) -> None:
    """-o DIR and -o . were IsADirectoryError / OSError (with --force) or 'already exists'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    for target in ("adir", ".", str(tmp_path)):
        err = one_line_refusal(cli("solve", DOT, "-f", "markdown", "-o", target, *force), target)
        assert "is a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]  # no temporary file left behind


def test_output_in_a_missing_folder_or_under_a_file_is_refused(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    err = one_line_refusal(cli("solve", DOT, "-o", str(tmp_path / "nodir" / "s.md")), "s.md")
    assert "does not exist" in err
    err = one_line_refusal(cli("solve", DOT, "-o", str(tmp_path / "afile" / "s.md")), "s.md")
    assert "is not a folder" in err


def test_a_dangling_symlink_is_not_replaced_without_force(cli: Any, tmp_path: Path) -> None:
    """-o link.md, link.md a link to nowhere: the link was replaced without --force."""
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "nowhere.md")
    err = one_line_refusal(cli("solve", DOT, "-f", "markdown", "-o", str(link)), str(link))
    assert "symbolic link" in err and "--force" in err
    assert link.is_symlink() and not (tmp_path / "nowhere.md").exists()
    assert cli("solve", DOT, "-f", "markdown", "-o", str(link), "--force").exit_code == 0
    assert not link.is_symlink() and link.read_text().startswith("# ")


def test_the_path_is_checked_before_the_problems(cli: Any, tmp_path: Path) -> None:
    """Before any work: a bad problem file and a folder as output: the output is named."""
    bad = tmp_path / "bad.toml"
    bad.write_text("kind = 'nope'\n")
    err = one_line_refusal(cli("solve", str(bad), "-f", "markdown", "-o", str(tmp_path)), str(tmp_path))
    assert "is a folder" in err and "bad.toml" not in err


def test_the_default_pdf_name_is_checked_before_any_work(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "decoder-dot.pdf").mkdir()
    err = one_line_refusal(cli("solve", DOT, "-f", "pdf"), "decoder-dot.pdf")
    assert "is a folder" in err


@pytest.mark.parametrize(
    ("setup", "named", "words"),
    [
        (lambda d: (d / "out").write_text("x"), "out", "is a file, not a folder"),  # NotADirectoryError
        (lambda d: (d / "out").mkdir() or (d / "out" / "answers").write_text("x"), "answers", "is a file"),
        (lambda d: (d / "out").symlink_to(d / "nowhere"), "out", "broken symbolic link"),  # FileExistsError
        (lambda d: (d / "f").write_text("x"), "f", "is a file, not a folder"),  # --out f/sub
    ],
    ids=["out is a file", "answers is a file", "out is a dangling link", "out under a file"],
)
def test_generate_out_that_cannot_be_a_folder_is_refused(
    cli: Any, tmp_path: Path, setup: Any, named: str, words: str
) -> None:
    setup(tmp_path)
    out = tmp_path / ("f/sub" if named == "f" else "out")
    err = one_line_refusal(cli("generate", "--out", str(out)), named)
    assert words in err


def test_generate_will_not_write_over_a_folder(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "variant-01.toml").mkdir()
    err = one_line_refusal(cli("generate", "--out", str(tmp_path), "--force"), "variant-01.toml")
    assert "is a folder where a file is to be written" in err


def test_generate_does_not_replace_a_dangling_link_without_force(cli: Any, tmp_path: Path) -> None:
    link = tmp_path / "questions.md"
    link.symlink_to(tmp_path / "nowhere")
    err = one_line_refusal(cli("generate", "--out", str(tmp_path)), "questions.md")
    assert "already exists" in err
    assert link.is_symlink() and not (tmp_path / "variant-01.toml").exists()  # nothing written


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_fifo_is_never_replaced_even_with_force(cli: Any, tmp_path: Path, force: list[str]) -> None:
    """--force renames a new file over the old one: over a FIFO (or /dev/null) that would replace the
    pipe with a file. It is refused, and the pipe is still a pipe."""
    import os
    import stat

    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    result = cli("solve", DOT, "-f", "markdown", "-o", str(fifo), *force)
    one_line_refusal(result, str(fifo))
    assert "FIFO" in result.stderr and "-o -" in result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_character_device_is_never_replaced(cli: Any, tmp_path: Path) -> None:
    import os
    import stat

    dev = tmp_path / "null"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    except PermissionError:
        pytest.skip("making a device node needs root")
    result = cli("check", DOT, str(PROBLEMS / "answers" / "decoder-dot.toml"), "-f", "csv", "-o", str(dev), "--force")
    one_line_refusal(result, str(dev))
    assert "character device" in result.stderr
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_a_name_too_long_is_one_line(cli: Any, tmp_path: Path) -> None:
    long = str(tmp_path / ("y" * 300 + ".md"))
    one_line_refusal(cli("solve", DOT, "-o", long), long)
    folder = str(tmp_path / ("z" * 300))
    one_line_refusal(cli("generate", "--kind", "softmax", "--out", folder), folder)


def test_a_place_that_cannot_hold_files_is_one_line(cli: Any) -> None:
    """/proc takes no new files: a refusal, not a traceback from the temporary file."""
    one_line_refusal(cli("solve", DOT, "-o", "/proc/attncalc-x.md"), "/proc/attncalc-x.md")
    one_line_refusal(cli("generate", "--kind", "softmax", "--out", "/proc/attncalc-zz"), "/proc/attncalc-zz")
