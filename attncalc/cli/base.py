"""What the command modules share: the Typer app, its root options, and options several commands take.

The helpers they use (the one-line failure, the file writer, UTF-8 output) are in :mod:`attncalc.cli.io`.

Heavy modules (numpy, sympy, the renderers) are imported inside the commands, so that
``attncalc --help`` costs little more than importing typer.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from .. import __version__
from .io import fail, utf8_output, write_output

__all__ = ["Detail", "MaxFileSize", "MaxPages", "ProblemsDirs", "app", "fail", "write_output"]

app = typer.Typer(
    name="attncalc",
    help="Worked derivations of attention mechanisms, exact and numeric.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"attncalc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Worked derivations of attention mechanisms, exact and numeric.

    Start with `attncalc new attention > p.toml`, then `attncalc solve p.toml`.
    """
    utf8_output()


class CheckFormat(StrEnum):
    """--format of check: the report as text, JSON, or a gradebook's CSV."""

    text = "text"
    json = "json"
    csv = "csv"


class Gradebook(StrEnum):
    """--gradebook of check: the CSV's columns."""

    plain = "plain"
    canvas = "canvas"
    moodle = "moodle"


class Detail(StrEnum):
    """--detail of solve and generate: how much of a recurrent derivation's time steps is written out."""

    full = "full"
    first = "first"
    summary = "summary"


#: --max-file-size, taken by the commands that read problem and answers files
MaxFileSize = Annotated[
    str | None,
    typer.Option(
        "--max-file-size",
        metavar="SIZE",
        help="Largest input file read, in bytes or with K, M or G (default 1M).",
        show_default=False,
    ),
]
#: --max-pages, taken by the commands that write PDFs (the default is attncalc.render.pdf_pages.MAX_PAGES)
MaxPages = Annotated[
    int | None,
    typer.Option(
        "--max-pages",
        min=1,
        help="Longest PDF made, in pages (default 500): a longer one is refused before typesetting.",
        show_default=False,
    ),
]
#: --problems of check: the folders an answers file's problem = may be read from, besides its own
ProblemsDirs = Annotated[
    list[str] | None,
    typer.Option(
        "--problems",
        metavar="DIR",
        help="Also read an answers file's problem = from this folder (repeatable; by default only the "
        "answers file's own folder is read; absolute paths and paths leaving the folders never are).",
    ),
]
