"""Size limits (docs/interface.md, "Limits"): small admitted files that took half a minute or
gigabytes are refused when the problem is read, in one line naming the file, the key and the limit,
before anything is computed (issue 17). The slow files themselves are replayed through the real CLI
by the fuzz corpus (tests/fuzz_corpus/cases.toml); these tests hold each limit at its edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import attncalc
from attncalc.errors import ProblemError

from .helpers import one_line_refusal


def test_generate_checks_count_before_the_output_folder(cli: Any, tmp_path: Path) -> None:
    """generate --count 1000000 listed a million file names for the folder's check (past 30 s) before
    refusing the count: the count is now checked first. A file where the folder should be would
    otherwise be named first."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    err = one_line_refusal(cli("generate", "--count", "1000000", "--out", str(afile)), "generate", "--count")
    assert "choose 1 to 1000 variants" in err
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=10**6, out=afile)
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=0, out=afile)
    assert afile.read_text() == "x"


# ------------------------------------------------------------------ TOML: a dotted key's parts

DEEP = "is nested too deeply (more than 20 levels of tables and lists)"


def _toml(text: str) -> Any:
    from attncalc.parse.formats import parse_text

    return parse_text("deep.toml", text, ".toml")


@pytest.mark.parametrize(
    ("text", "line", "parts"),
    [
        ("a" + ".a" * 29_999 + " = 1\n", 1, 30_000),  # 60 KB: 25 s and 3.5 GB inside tomllib
        ("kind = 'softmax'\n[" + "a" + ".a" * 99_999 + "]\n", 2, 100_000),  # a table header: 13 s
        ("[[" + ".".join(["t"] * 22) + "]]\n", 1, 22),  # an array of tables
        ("x = { " + " . ".join(['"q.q"'] * 22) + " = 1 }\n", 1, 22),  # quoted parts, in an inline table
        ("[t]\n" + ".\t".join(["'lit'"] * 25) + " = 2\n", 2, 25),
    ],
    ids=["key", "table header", "array of tables", "inline table", "literal parts"],
)
def test_a_dotted_key_too_deep_is_refused_before_tomllib(text: str, line: int, parts: int) -> None:
    with pytest.raises(ProblemError) as exc:
        _toml(text)
    assert str(exc.value) == f"deep.toml: {DEEP}: line {line} holds a dotted key of {parts:,} parts"


def test_dots_in_strings_comments_and_numbers_are_not_a_key() -> None:
    """Only keys count: a string, a multi-line string, a comment or a row of decimals may hold any
    number of dots, and a key of 21 parts (20 dots) is left to the nesting check, which counts its
    tables with the file's own."""
    dots = ".".join(["a"] * 40)
    text = (
        f'title = "{dots}"  # {dots}\n'
        f"note = '{dots}'\n"
        f'long = """\n{dots} = 1\n"{dots}"\n"""\n'
        f"lit = '''\n{dots} = 1\n'''\n"
        f"row = [{', '.join(['0.5'] * 40)}]\n"
        f'"{dots}" = 3\n'
    )
    raw = _toml(text)
    assert raw["title"] == dots and raw["long"].startswith(dots) and len(raw["row"]) == 40 and raw[dots] == 3
    nested = _toml(".".join(["k"] * 19) + " = 1\n")  # 20 levels with the top table: admitted
    assert nested["k"]["k"]["k"]
    with pytest.raises(
        ProblemError, match=r"deep.toml: is nested too deeply \(more than 20 levels of tables and lists\)$"
    ):
        _toml(".".join(["k"] * 21) + " = 1\n")  # 22 levels: the nesting check's own message
