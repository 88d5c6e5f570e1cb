"""What the command modules share: the Typer app, the one-line failure and the file writer.

Heavy modules (numpy, sympy, the renderers) are imported inside the commands, so that
``attncalc --help`` costs little more than importing typer.
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer

from . import __version__

app = typer.Typer(
    name="attncalc",
    help="Worked derivations of attention mechanisms, exact and numeric.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def fail(message: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"attncalc: error: {message}\n")
    raise typer.Exit(code)


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


def write_output(path: str, text: str | bytes, force: bool) -> None:
    """Write text to path atomically with the umask's mode; never overwrite without force."""
    from .errors import AttncalcError
    from .files import write_atomic

    try:
        write_atomic(path, text, force)
    except AttncalcError as exc:
        fail(str(exc))
