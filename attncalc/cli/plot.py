"""The ``plot`` command: a step's matrix or vector as a heat map in an SVG, PDF or PNG file.

Registered on the app by :mod:`attncalc.cli`. matplotlib (the ``plots`` extra), numpy and the
renderer are imported inside the command.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from ..errors import printable
from .base import MaxFileSize, write_output
from .base import fail as _fail
from .io import max_bytes as _max_bytes

_FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png"}


def plot(
    problem: Annotated[str, typer.Argument(help="Problem file (.toml, .yaml/.yml or .json).", show_default=False)],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            help="The figure to write: FILE.svg, FILE.pdf or FILE.png (the format follows the extension).",
        ),
    ],
    step: Annotated[
        str | None,
        typer.Option(
            "--step",
            help="A step id whose value is a vector or matrix (head.2.scores), or a template with t for every "
            "head or time step (head.t.weights, decoder.t.weights). Default: the attention weights.",
            show_default=False,
        ),
    ] = None,
    decimals: Annotated[
        int | None,
        typer.Option("--decimals", min=0, max=12, help="Decimals in the cells (overrides the problem's settings)."),
    ] = None,
    dpi: Annotated[int, typer.Option("--dpi", min=50, max=1200, help="Pixels per inch of a PNG.")] = 200,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the --output file if it exists.")] = False,
    max_file_size: MaxFileSize = None,
) -> None:
    """Draw a step's matrix or vector as a heat map (the attention weights by default): SVG, PDF or PNG.

    Needs matplotlib: pip install 'attncalc[plots]'.
    """
    format = _FORMATS.get(Path(output).suffix.lower())
    if format is None:
        _fail(f"{output}: cannot tell the figure's format from its name; name a .svg, .pdf or .png file")
    from ..errors import AttncalcError
    from ..files import check_output
    from ..mechanisms import solve
    from ..parse import load_problem
    from ..render.plot import plot as draw

    with quiet_matplotlib():
        try:
            check_output(output, force)  # a path that cannot be written is named before any work
            d = solve(load_problem(problem, _max_bytes(max_file_size)), decimals=decimals)
            figure = draw(d, step, format, dpi=dpi)
        except AttncalcError as exc:
            _fail(str(exc))
    write_output(output, figure, force)
    sys.stderr.write(f"attncalc: wrote {printable(output)}\n")


@contextlib.contextmanager
def quiet_matplotlib() -> Iterator[io.StringIO]:
    """matplotlib's configuration and font cache in a temporary folder of attncalc's (MPLCONFIGDIR,
    removed afterwards: nothing is written outside -o), and what it logs or warns (building the font
    cache, a missing glyph) and numpy's warnings kept in a buffer (yielded) instead of standard error:
    a plot says only what it wrote, or its one-line error."""
    import logging
    import shutil
    import tempfile
    import warnings

    folder = tempfile.mkdtemp(prefix="attncalc-matplotlib-")
    before = os.environ.get("MPLCONFIGDIR")
    os.environ["MPLCONFIGDIR"] = folder  # read when matplotlib is first imported, below
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    log = logging.getLogger("matplotlib")
    log.addHandler(handler)
    propagate, log.propagate = log.propagate, False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield buffer
        for w in caught:
            buffer.write(f"{w.category.__name__}: {w.message}\n")
    finally:
        log.removeHandler(handler)
        log.propagate = propagate
        if before is None:
            os.environ.pop("MPLCONFIGDIR", None)
        else:
            os.environ["MPLCONFIGDIR"] = before
        shutil.rmtree(folder, ignore_errors=True)
