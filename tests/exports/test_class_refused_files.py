"""Tryout 54: a class's refused files. A chain of about 1,000 symbolic links in a student's folder (ordinary
tar content) crashed the run with a RecursionError (Python 3.11's realpath follows links by recursion),
the class's gradebook lost; a FIFO, a socket or a device in a folder given was opened before it was
refused (docs/interface.md: "refused in its row without being opened"); and `check --format json` of
several files of which one was refused printed the one-file document (no `submissions`), the refused
files in no view but stderr. Each test fails on edcd3d2."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest

from .class_layouts import answers_text, invoke_in, key_body

CHAIN = 1500  # links: past the recursion Python's realpath can follow, far past the 40 open() follows


def _rows(out: str) -> dict[str, dict[str, str]]:
    return {r["file"]: r for r in csv.DictReader(io.StringIO(out.lstrip("\ufeff")))}


def _chain(folder: Path, first: str, last: str) -> None:
    """``first`` -> l1 -> l2 -> ... -> ``last``, every link inside ``folder``."""
    for i in range(1, CHAIN):
        (folder / f"l{i}").symlink_to(f"l{i + 1}")
    (folder / f"l{CHAIN}").symlink_to(last)
    (folder / first).symlink_to("l1")


def _class(the_set: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    subs = tmp_path / "subs"
    subs.mkdir()
    key = key_body(the_set / "answers" / "variant-01.toml")
    (subs / "amy.toml").write_text(answers_text("variant-01.toml", key, "amy"), encoding="utf-8")
    return subs, key


def test_a_chain_of_links_too_long_to_follow_is_refused_in_its_row(the_set: Path, tmp_path: Path) -> None:
    subs, key = _class(the_set, tmp_path)
    _chain(subs, "chain.toml", "amy.toml")
    problems = ["--problems", str(the_set)]
    for given in (["subs/"], ["--", "subs/amy.toml", "subs/chain.toml"]):
        result = invoke_in(tmp_path, ["check", *problems, "--format", "csv", "--gradebook", "plain", *given])
        rows = _rows(result.stdout)
        assert result.exit_code == 2 and set(rows) == {"subs/amy.toml", "subs/chain.toml"}, result.output
        assert rows["subs/amy.toml"]["score"] == rows["subs/amy.toml"]["out_of"] != "", rows
        assert "Too many levels of symbolic links" in rows["subs/chain.toml"]["error"], rows
        assert not rows["subs/chain.toml"]["score"]
    # a problem = that starts such a chain names no problem: one line (alone) or its row (in a class)
    (subs / "c0").symlink_to("l1")
    (subs / "pc.toml").write_text(answers_text("c0", key, "pc"), encoding="utf-8")
    alone = invoke_in(tmp_path, ["check", "subs/pc.toml"])
    assert alone.exit_code == 2 and alone.stderr.count("\n") == 1, alone.output
    assert alone.stderr.startswith("attncalc: error: subs/pc.toml: problem:")
    result = invoke_in(tmp_path, ["check", *problems, "--format", "csv", "--", "subs/pc.toml", "subs/amy.toml"])
    rows = _rows(result.stdout)
    assert result.exit_code == 2 and "could not be used" in rows["subs/pc.toml"]["error"], rows
    assert rows["subs/amy.toml"]["score"] == rows["subs/amy.toml"]["out_of"]


def test_fifos_sockets_and_devices_are_refused_without_being_opened(
    the_set: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subs, _ = _class(the_set, tmp_path)
    os.mkfifo(subs / "pipe.toml")
    monkeypatch.chdir(subs)  # (a socket's path is at most 108 bytes: bound by its short relative name)
    server = socket.socket(socket.AF_UNIX)
    server.bind("sock.toml")
    kinds = {"subs/pipe.toml": "is a FIFO (named pipe), not a regular file", "subs/sock.toml": "is a socket, not a"}
    try:
        os.mknod(subs / "zero.toml", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
        kinds["subs/zero.toml"] = "is a character device, not a regular file"
    except PermissionError:
        pass  # (only root makes devices: the FIFO and the socket still show it)
    opened: list[str] = []
    real_open = os.open

    def spying(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spying)
    try:
        for given in (["subs/"], ["--", *sorted(kinds), "subs/amy.toml"]):
            result = invoke_in(tmp_path, ["check", "--problems", str(the_set), "--format", "csv", *given])
            rows = _rows(result.stdout)
            assert result.exit_code == 2 and set(rows) == {*kinds, "subs/amy.toml"}, result.output
            for name, says in kinds.items():
                assert says in rows[name]["error"] and not rows[name]["score"], rows[name]
            assert rows["subs/amy.toml"]["score"] == rows["subs/amy.toml"]["out_of"]
    finally:
        server.close()
    assert not [p for p in opened if os.path.basename(p) in {"pipe.toml", "sock.toml", "zero.toml"}], opened


def test_a_class_with_a_refused_file_prints_the_class_document_and_names_it(the_set: Path, tmp_path: Path) -> None:
    """JSON: ``submissions`` whatever survived, the refused file in ``not_read`` with its reason (as the
    gradebook's row); the text report: its row in the table and the count in the last line."""
    import jsonschema

    from attncalc.reports.output_schema import output_schema

    subs, key = _class(the_set, tmp_path)
    (subs / "mal.toml").symlink_to(the_set / "answers" / "variant-01.toml")  # the TA's key: never graded
    given = ["--problems", str(the_set), "--", "subs/amy.toml", "subs/mal.toml"]
    result = invoke_in(tmp_path, ["check", "--format", "json", *given])
    data = json.loads(result.stdout)
    assert result.exit_code == 2
    assert [s["answers"] for s in data["submissions"]] == ["subs/amy.toml"]
    assert data["submissions"][0]["score"]["points"] == data["submissions"][0]["score"]["out_of"] > 0
    assert data["not_read"] == [
        {
            "answers": "subs/mal.toml",
            "reason": "a symbolic link out of its folder: not read (give the file it links to, to grade it)",
        }
    ]
    assert data["score"] == data["submissions"][0]["score"]  # totals over the files graded
    assert list(jsonschema.Draft202012Validator(output_schema("check")).iter_errors(data)) == []
    # none graded: still the class document, both files named
    (subs / "amy.toml").unlink()
    (subs / "amy.toml").symlink_to(the_set / "answers" / "variant-02.toml")
    none = json.loads(invoke_in(tmp_path, ["check", "--format", "json", *given]).stdout)
    assert none["submissions"] == [] and [u["answers"] for u in none["not_read"]] == ["subs/amy.toml", "subs/mal.toml"]
    (subs / "amy.toml").unlink()
    (subs / "amy.toml").write_text(answers_text("variant-01.toml", key, "amy"), encoding="utf-8")
    text = invoke_in(tmp_path, ["check", "--width", "80", *given]).stdout
    assert "subs/mal.toml  not read: a symbolic link out of its folder" in text, text
    assert "Total: 1 submission, 1 all correct;" in text and text.rstrip().endswith("; 1 not read"), text
    # one file given alone keeps the one-file document
    alone = json.loads(invoke_in(tmp_path, ["check", "--format", "json", *given[:2], "subs/amy.toml"]).stdout)
    assert "submissions" not in alone and "not_read" not in alone and alone["score"]["points"] > 0


def test_a_problem_path_through_a_folder_missing_from_the_problems_folder_is_unusable(
    the_set: Path, tmp_path: Path
) -> None:
    """Tryout 55: ``problem = "k/../variant-02.toml"`` (``k`` a student's link to the set's keys) or
    ``"nosuch/../variant-02.toml"`` was graded against hw3/variant-02.toml: looked up from the --problems
    folder, realpath dropped the missing folder before the `..`, which open() does not (the docs: a `..`
    after a link, and a missing file, are unusable)."""
    subs, key = _class(the_set, tmp_path)
    (subs / "k").symlink_to(the_set / "answers", target_is_directory=True)
    for name, written in (("bob", "k/../variant-02.toml"), ("cy", "nosuch/../variant-02.toml")):
        (subs / f"{name}.toml").write_text(answers_text(written, key, name), encoding="utf-8")
    result = invoke_in(tmp_path, ["check", "--problems", str(the_set), "--format", "csv", "subs/"])
    rows = _rows(result.stdout)
    assert result.exit_code == 2 and rows["subs/amy.toml"]["score"] == rows["subs/amy.toml"]["out_of"], rows
    for name in ("bob", "cy"):
        assert not rows[f"subs/{name}.toml"]["problem"] and "could not be used" in rows[f"subs/{name}.toml"]["error"]
    (subs / "dee.toml").write_text(answers_text("./variant-02.toml", key, "dee"), encoding="utf-8")  # (still read)
    rows = _rows(invoke_in(tmp_path, ["check", "--problems", str(the_set), "--format", "csv", "subs/"]).stdout)
    assert rows["subs/dee.toml"]["problem"].endswith("variant-02.toml"), rows


def test_a_refused_link_is_named_from_the_same_folder_as_its_file(the_set: Path, tmp_path: Path) -> None:
    """Tryout 55: files given as ``$PWD/../lab/...`` from a folder of the TA's: the file column was
    relative to the current folder (``../lab/s5/a9/key.toml``, the `..` kept) and the link in the reason to
    the files' common folder (``lab/s5/a9``): both now from the path written out."""
    subs, key = _class(the_set, tmp_path)
    (tmp_path / "ta").mkdir()
    (tmp_path / "ta" / "key.toml").write_text(answers_text("variant-01.toml", key, "key"), encoding="utf-8")
    (tmp_path / "lab" / "s5").mkdir(parents=True)
    (tmp_path / "lab" / "s5" / "a9").symlink_to("../../ta", target_is_directory=True)
    here = tmp_path / "ta"
    args = [f"{here}/../lab/s5/a9/key.toml", str(subs / "amy.toml")]
    rows = _rows(invoke_in(here, ["check", "--problems", str(the_set), "--format", "csv", *args]).stdout)
    assert set(rows) == {"lab/s5/a9/key.toml", "subs/amy.toml"}, rows
    assert "(lab/s5/a9 is a symbolic link)" in rows["lab/s5/a9/key.toml"]["error"], rows
