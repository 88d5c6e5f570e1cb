"""The command line: help, version, formats, files, templates, listing, and what --help imports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.schema import catalog

from ..helpers import PROBLEMS, json_of


@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"], ["plot", "--help"], ["new", "--help"], ["list"]])
def test_help_and_list_import_neither_sympy_nor_numpy(args: list[str]) -> None:
    """`attncalc --help` (and list) stay fast: sympy, numpy and matplotlib are not imported."""
    code = (
        "import sys\nfrom attncalc.cli import app\n"
        f"try:\n    app({args!r})\nexcept SystemExit:\n    pass\n"
        "print('HEAVY', sorted(m for m in ('sympy', 'numpy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


def test_every_command_has_help_text(cli: Any) -> None:
    """Each command explains itself in --help."""
    for cmd in ("solve", "plot", "new", "list"):
        result = cli(cmd, "--help")
        assert result.exit_code == 0
        assert "Usage" in result.stdout and len(result.stdout) > 200


def test_version_and_python_m() -> None:
    """`python -m attncalc --version` prints the version."""
    from attncalc import __version__

    out = subprocess.run([sys.executable, "-m", "attncalc", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"attncalc {__version__}"


def test_json_shape_follows_the_interface(cli: Any) -> None:
    """JSON has title, kind, score and steps with id, title, formula, value, exact and shown."""
    data = json_of(cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--format", "json"))
    assert {"title", "kind", "score", "steps"} <= set(data)
    assert data["kind"] == "attention" and data["score"] == "dot"
    scores = data["steps"][0]
    assert scores["id"] == "scores"
    assert scores["value"] == [1.0, 2.0, 2.0]
    assert scores["exact"] == ["1", "2", "2"]
    assert scores["shown"] == ["1", "2", "2"]
    pred = data["steps"][-1]
    assert pred["id"] == "prediction" and pred["value"] == "B"
    for step in data["steps"]:
        assert {"id", "title", "formula", "value", "exact", "shown"} <= set(step)


def test_no_exact_gives_null_exact_and_same_values(cli: Any) -> None:
    """--no-exact sets exact to null and changes no value beyond float noise."""
    p = str(PROBLEMS / "decoder-dot.toml")
    a = json_of(cli("solve", p, "-f", "json"))
    b = json_of(cli("solve", p, "-f", "json", "--no-exact"))
    for sa, sb in zip(a["steps"], b["steps"], strict=True):
        assert sb["exact"] is None or sb["id"] == "prediction"
        if isinstance(sa["value"], list):
            assert sa["value"] == pytest.approx(sb["value"], abs=1e-12)


def test_decimals_option_changes_what_is_shown(cli: Any) -> None:
    """--decimals 5 shows five decimals."""
    data = json_of(cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", "json", "--decimals", "5"))
    weights = next(s for s in data["steps"] if s["id"] == "weights")
    assert weights["shown"] == ["0.15536", "0.42232", "0.42232"]


def test_output_file_is_written_and_never_overwritten_without_force(cli: Any, tmp_path: Path) -> None:
    """-o writes the file; a second run refuses (exit 2) unless --force."""
    out = tmp_path / "sol.json"
    p = str(PROBLEMS / "decoder-dot.toml")
    result = cli("solve", p, "-f", "json", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"attncalc: wrote {out}\n"  # every format says where it wrote, as pdf does
    first = out.read_text()
    assert json.loads(first)["title"]
    out.write_text("mine")
    result = cli("solve", p, "-f", "json", "-o", str(out))
    assert result.exit_code == 2 and "already exists" in result.stderr and "--force" in result.stderr
    assert out.read_text() == "mine"
    assert cli("solve", p, "-f", "json", "-o", str(out), "--force").exit_code == 0
    assert out.read_text() == first
    assert [f.name for f in tmp_path.iterdir()] == ["sol.json"]  # no temporary file left behind


def test_text_to_file_has_no_colour_codes(cli: Any, tmp_path: Path) -> None:
    """The text view written with -o is plain text a person can read anywhere."""
    out = tmp_path / "sol.txt"
    assert cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-o", str(out)).exit_code == 0
    text = out.read_text()
    assert "\x1b[" not in text and "e_2 (x2) = 1·0 + 1·2 = 2" in text


@pytest.mark.parametrize(
    ("kind", "score"),
    [("attention", s) for s in catalog.SCORES] + [(k, None) for k in kinds.KINDS if k != "attention"],
)
def test_new_templates_solve_as_they_are(cli: Any, tmp_path: Path, kind: str, score: str | None) -> None:
    """Every template printed by `attncalc new` is commented and solves without edits."""
    args = ["new", kind] + (["--score", score] if score else [])
    result = cli(*args)
    assert result.exit_code == 0 and result.stdout.lstrip().startswith("#")
    f = tmp_path / "p.toml"
    f.write_text(result.stdout)
    data = json_of(cli("solve", str(f), "-f", "json"))
    assert data["kind"] == kind


def test_new_takes_a_score_for_attention_only(cli: Any) -> None:
    """Only attention's template is a function of the score: --score with another kind is bad input."""
    for kind in ("lr-schedule", "softmax"):
        result = cli("new", kind, "--score", "dot")
        assert result.exit_code == 2 and "--score applies to kind 'attention' only" in result.stderr, kind
    assert cli("new", "attention", "--score", "general").exit_code == 0


def test_new_rejects_unknown_kind(cli: Any) -> None:
    """An unknown kind is bad input: exit 2 with the choices."""
    result = cli("new", "transformer")
    assert result.exit_code == 2 and "attention" in result.stderr


def test_list_names_every_kind_score_and_step_id(cli: Any) -> None:
    """`attncalc list` shows every kind, score and step id; --format json gives the same."""
    out = cli("list").stdout
    for name in [*kinds.KINDS, *catalog.SCORES]:
        assert name in out
    for e in kinds.KINDS.values():
        for step_id, _ in e.load("step_ids"):
            assert step_id in out
    data = json.loads(cli("list", "--format", "json").stdout)
    assert data["step_ids"]["self-attention"][:3] == ["Q", "K", "V"]
    # read in an 80-column terminal: long descriptions wrap under themselves
    assert max(len(line) for line in out.splitlines()) <= 80
    assert re.search(r"\n {19}\S", out)  # a continuation under the description column


def test_yaml_and_json_problems_read_like_toml(cli: Any, tmp_path: Path) -> None:
    """The same problem in YAML and JSON gives the same derivation as in TOML."""
    yaml_text = "kind: attention\nscore: dot\ngiven:\n  query: [1, 1]\n  keys: [[1, 0], [0, 2], [1, 1]]\n"
    (tmp_path / "p.yaml").write_text(yaml_text)
    (tmp_path / "p.json").write_text(
        '{"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}'
    )
    a = json_of(cli("solve", str(tmp_path / "p.yaml"), "-f", "json"))
    b = json_of(cli("solve", str(tmp_path / "p.json"), "-f", "json"))
    assert a["steps"] == b["steps"]
    assert next(s for s in a["steps"] if s["id"] == "weights")["exact"][0] == "1/(1 + 2*e)"


@pytest.mark.parametrize(
    ("name", "start"),
    [("s.pdf", b"%PDF"), ("s.html", b"<!DOCTYPE html>"), ("s.md", b"# "), ("s.json", b"{"), ("s.txt", b"\xe2\x95\xad")],
)
def test_output_extension_chooses_the_format(cli: Any, tmp_path: Path, name: str, start: bytes) -> None:
    """-o sheet.pdf writes a PDF (it wrote the terminal text into a file named .pdf); -f still wins."""
    if name.endswith(".pdf") and shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    out = tmp_path / name
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(start)
    explicit = tmp_path / ("x" + name)
    assert cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", "json", "-o", str(explicit)).exit_code == 0
    assert explicit.read_bytes().startswith(b"{")


def test_dash_output_is_standard_output(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", "json", "-o", "-")
    assert result.exit_code == 0 and json.loads(result.stdout)["kind"] == "attention"
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["solve", "problems/decoder-dot.toml", "--decimals", "99"], "--decimals"),
        (["generate", "--seed", "abc", "--out", "x"], "--seed"),
        (["check", "-f", "xlsx", "a.toml"], "--format"),
        (["nosuch"], "nosuch"),
    ],
)
def test_a_misused_option_is_one_line_and_exit_2(args: list[str], option: str) -> None:
    """The command-line library printed usage, a blank line and the error (three lines); bad input is
    one line everywhere, with a pointer to --help."""
    from ..helpers import ROOT, run_cli

    result = run_cli(*args, cwd=ROOT)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("attncalc: error: "), result.stderr
    assert option in result.stderr and "--help" in result.stderr


def test_no_arguments_still_show_the_help() -> None:
    from ..helpers import run_cli

    result = run_cli()
    assert "Usage:" in result.stdout + result.stderr and "solve" in result.stdout + result.stderr


def test_the_text_view_has_no_trailing_spaces_when_piped_or_written(cli: Any, tmp_path: Path) -> None:
    """Piped (not a terminal) or written with -o, the text view is plain lines with nothing padded
    to the width: a diff of two runs shows only what changed."""
    for args in (["--width", "80"], ["-o", str(tmp_path / "view.txt")]):
        result = cli("solve", str(PROBLEMS / "bleu-papineni.toml"), *args)
        assert result.exit_code == 0, result.stderr
        text = result.stdout if args[0] == "--width" else (tmp_path / "view.txt").read_text(encoding="utf-8")
        assert "BLEU of Candidate 1" in text and "╭" in text
        assert [line for line in text.splitlines() if line != line.rstrip()] == []
