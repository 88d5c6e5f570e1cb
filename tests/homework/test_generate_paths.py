"""generate writes only inside the folder --out names.

With ``out/answers`` a symbolic link to another folder, the answer keys were written there (with
--force, over what was there); ``--out ""`` wrote the whole set into the current folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attncalc.errors import AttncalcError

from ..helpers import one_line_refusal, run_cli

GENERATE = ("generate", "--kind", "softmax", "--count", "2", "--seed", "3")


def _linked_answers(tmp_path: Path) -> tuple[Path, Path]:
    """out/ with answers -> elsewhere/, elsewhere holding a file of the name a key would take."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "variant-01.toml").write_text("precious\n")
    (out / "answers").symlink_to(elsewhere, target_is_directory=True)
    return out, elsewhere


@pytest.mark.parametrize("force", [False, True])
def test_a_linked_answers_folder_is_refused(tmp_path: Path, force: bool) -> None:
    out, elsewhere = _linked_answers(tmp_path)
    result = run_cli(*GENERATE, "--out", str(out), *(["--force"] if force else []))
    err = one_line_refusal(result, str(out / "answers"))
    assert "symbolic link" in err
    assert sorted(p.name for p in elsewhere.iterdir()) == ["variant-01.toml"]
    assert (elsewhere / "variant-01.toml").read_text() == "precious\n"
    assert sorted(p.name for p in out.iterdir()) == ["answers"]  # nothing written before the refusal


def test_the_api_refuses_a_linked_answers_folder(tmp_path: Path) -> None:
    from attncalc import generate

    out, elsewhere = _linked_answers(tmp_path)
    with pytest.raises(AttncalcError, match="symbolic link"):
        generate(kind="softmax", count=2, out=out, force=True)
    assert (elsewhere / "variant-01.toml").read_text() == "precious\n"


def test_a_link_made_after_the_check_is_caught_when_writing(tmp_path: Path) -> None:
    """write_homework checks each file as it writes it: a link that appears between the folder's check
    and the writing (or that the check did not see) does not carry a file out."""
    from attncalc.files import check_inside

    out, _ = _linked_answers(tmp_path)
    with pytest.raises(AttncalcError, match="symbolic link"):
        check_inside(out, "answers/variant-01.toml")
    assert check_inside(out, "solutions.md") == out / "solutions.md"
    (out / "sub").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(AttncalcError):
        check_inside(out, "sub/x.md")


def test_out_may_itself_be_a_link(tmp_path: Path) -> None:
    """The folder named is the user's choice, a link to it included: its files go where it points."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    result = run_cli(*GENERATE, "--out", str(tmp_path / "link"))
    assert result.returncode == 0, result.stderr
    assert (real / "answers" / "variant-01.toml").is_file()


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_out_is_bad_input(tmp_path: Path, empty: str) -> None:
    result = run_cli(*GENERATE, "--out", empty, cwd=tmp_path)
    code = result.returncode
    assert code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("attncalc: error: --out: the folder's name is empty")
    assert os.listdir(tmp_path) == []


def test_the_api_refuses_an_empty_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from attncalc import generate

    monkeypatch.chdir(tmp_path)
    with pytest.raises(AttncalcError, match="empty"):
        generate(kind="softmax", out="")
    assert os.listdir(tmp_path) == []
