"""User text is shown as written wherever it lands: terminal views, error messages, Markdown sheets.

Labels, tokens and titles come from problem files written by anyone: rich markup in them was
interpreted (a token "[/]" was a MarkupError; "[red]" and "[link=…]" changed what was shown), an
ANSI escape reached the terminal, a lone surrogate from a JSON file crashed the output, and a title
<script>…</script> was copied raw into Markdown sheets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from ..helpers import one_line_refusal, run_cli

ATTENTION = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2]]\n'


def _problem(tmp_path: Path, tokens: list[str], title: str = "t") -> Path:
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps(
            {
                "title": title,
                "tokens": tokens,
                "kind": "attention",
                "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]},
            }
        )
    )
    return f


@pytest.mark.parametrize(
    "tokens", [["[/]", "[/bold]"], ["[red]a", "[link=https://example.com]b"], [":cat:", "[bold]x[/bold]"]]
)
def test_markup_in_labels_is_shown_as_written(cli: Any, tmp_path: Path, tokens: list[str]) -> None:
    f = _problem(tmp_path, tokens, title=tokens[0])
    result = cli("solve", "--width", "100", str(f))
    assert result.exit_code == 0, result.output
    for token in tokens:
        assert f"({token})" in result.stdout  # e_1 (token) = …, every character kept
        assert f"\n{token} " in result.stdout  # the row label of the keys' table
    assert "🐱" not in result.stdout


def test_markup_in_a_check_report_is_shown_as_written(cli: Any, tmp_path: Path) -> None:
    """The answers file's own name and its labels reach the report."""
    (tmp_path / "p.toml").write_text(ATTENTION + '[head]\nW_out = [[1, 0], [0, 1]]\nvocab = ["[/]", "[red]b"]\n')
    a = tmp_path / "[bold]a.toml"
    a.write_text('prediction = "[/]"\n')
    b = tmp_path / "b.toml"
    b.write_text('prediction = "[red]b"\n')
    result = cli("check", str(tmp_path / "p.toml"), str(a), str(b))
    assert result.exit_code == 1, result.output
    assert "[bold]a.toml" in result.stdout
    single = cli("check", str(tmp_path / "p.toml"), str(a))
    assert "[/]" in single.stdout and "[red]b" in single.stdout


def test_control_characters_reach_the_terminal_as_escapes(tmp_path: Path) -> None:
    """An ANSI escape in a token or title is written \\x1b, in the real terminal output too."""
    f = _problem(tmp_path, ["a\x1b[2J", "b\u202ec"], title="T\x1b[31mRED")
    result = run_cli("solve", str(f))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "T\\x1b[31mRED" in result.stdout and "a\\x1b[2J" in result.stdout and "b\\u202ec" in result.stdout


def test_an_escape_in_a_key_is_not_echoed_raw(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(ATTENTION.replace("query", '"\\u001b[31mquery"'))
    err = one_line_refusal(cli("solve", str(f)), str(f))
    assert "\x1b" not in err and "given.\\x1b[31mquery: unknown key" in err


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html", "latex"])
def test_a_lone_surrogate_does_not_stop_the_output(tmp_path: Path, fmt: str) -> None:
    """A lone surrogate in a JSON string was a UnicodeEncodeError halfway through the output; now the
    terminal view and the Markdown and HTML sheets write it as an escape (\\udfff), others as "?", all valid UTF-8."""
    f = tmp_path / "p.json"
    # (in the title: a vocabulary label holding one is refused when the problem is read, test_label_refusals.py)
    f.write_text('{"kind": "softmax", "title": "a\\ud800b", "given": {"logits": [1, 2], "vocab": ["xy", "z"]}}')
    result = run_cli("solve", "-f", fmt, str(f))
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    assert run_cli("solve", "-f", fmt, "-o", str(out), str(f)).returncode == 0
    text = out.read_text(encoding="utf-8")  # strict: valid UTF-8
    shown = {"latex": "a\\textbackslash{}ud800b", "json": "a?b"}.get(fmt, "a\\ud800b")
    assert shown in text  # sheets escape it as the terminal does


def test_output_is_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """With an ASCII stdout (PYTHONIOENCODING=ascii, as under some locales) the view is still written, in UTF-8."""
    f = _problem(tmp_path, ["α", "β"])
    result = run_cli("solve", str(f), env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    assert result.returncode == 0, result.stderr
    assert "(α)" in result.stdout and "s · h_i" in result.stdout


def test_raw_html_in_a_markdown_sheet_is_text(cli: Any, tmp_path: Path) -> None:
    """A title <script>alert(1)</script> was copied raw into Markdown sheets (HTML and LaTeX escaped it)."""
    f = _problem(tmp_path, ["<img src=x onerror=alert(1)>", "a&b"], title="<script>alert(1)</script>")
    for sheet in ("solution", "question", "answers"):
        result = cli("solve", "-f", "markdown", "--sheet", sheet, str(f))
        assert result.exit_code == 0, result.output
        html = MarkdownIt("commonmark").enable("table").render(result.stdout)
        assert "<script" not in html and "<img" not in html, html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_control_characters_in_user_text_reach_no_sheet_raw(cli: Any, tmp_path: Path) -> None:
    """An ANSI escape in a title and a BEL in a token: written as \\x1b and \\x07 in Markdown, HTML and
    LaTeX (cat-ing a sheet must not drive the terminal), and the PDF compiles (pdflatex stopped at them)."""
    import shutil

    p = tmp_path / "c.toml"
    p.write_text(
        'title = "A \\u001b[31mred title"\nkind = "attention"\ntokens = ["a\\u0007", "b"]\n'
        "[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 1]]\n"
    )
    for fmt in ("markdown", "html", "latex"):
        out = cli("solve", str(p), "-f", fmt).stdout
        assert "\x1b" not in out and "\x07" not in out, fmt
        if fmt == "markdown":  # the bracket is written \[ there, as Markdown shows it: as written
            out = MarkdownIt("commonmark").enable("table").render(out)
        assert "x1b[31mred title" in out, fmt
    if shutil.which("pdflatex"):
        result = cli("solve", str(p), "-o", str(tmp_path / "c.pdf"))
        assert result.exit_code == 0, result.stderr


def test_a_number_in_a_message_is_written_as_in_the_file(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "d.toml"
    p.write_text('kind = "attention"\n[given]\nquery = 1.5\nkeys = [[1, 0]]\n')
    err = cli("solve", str(p)).stderr
    assert "got the number 1.5" in err and "Decimal" not in err


@pytest.mark.parametrize("control", ["\x07", "\x08", "\x0b", "\x0c", "\r"])
def test_the_controls_rich_drops_are_shown_as_escapes_too(tmp_path: Path, control: str) -> None:
    """rich drops bell, backspace, vertical tab, form feed and carriage return from any text it is
    given; in a title and a token they are shown as escapes, as \\x01 is, not silently removed."""
    escaped = f"\\x{ord(control):02x}"
    f = _problem(tmp_path, [f"a{control}b", "c\x01d"], title=f"T{control}U")
    result = run_cli("solve", "--width", "100", str(f))
    assert result.returncode == 0, result.stderr
    assert control not in result.stdout.replace("\n", "")
    assert f"T{escaped}U" in result.stdout and f"(a{escaped}b)" in result.stdout and "(c\\x01d)" in result.stdout


def test_a_control_in_a_check_reports_file_name_is_shown_as_an_escape(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(ATTENTION)
    files = []
    for name in ("a\x08b.toml", "c.toml"):
        files.append(tmp_path / name)
        files[-1].write_text("weights = [0.1, 0.9]\n")
    result = cli("check", str(tmp_path / "p.toml"), *map(str, files))
    assert result.exit_code == 1, result.output
    assert "a\\x08b.toml" in result.stdout and "\x08" not in result.stdout


def test_rich_is_unchanged_outside_a_view() -> None:
    """The escaping applies while attncalc prints a view; rich's own behaviour elsewhere is as before."""
    from rich.text import Text

    from attncalc.render.console import controls_shown

    with controls_shown():
        assert Text("a\x08b").plain == "a\\x08b"
    assert Text("a\x08b").plain == "ab"
