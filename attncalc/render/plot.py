"""``attncalc plot`` and ``attncalc.plot``: a step of a derivation as a heat map, SVG, PDF or PNG bytes.

:mod:`attncalc.render.plot_figure` chooses the panels (which steps, labels, masked entries, colour
scale); :mod:`attncalc.render.plot_draw` draws them with matplotlib, the optional extra ``plots``,
imported only when a figure is drawn.
"""

from __future__ import annotations

from ..derivation import Derivation
from ..errors import AttncalcError, ProblemError
from .plot_bounds import TooManyPixels, check_cells, pixel_message
from .plot_figure import figure_of

#: the formats ``plot`` writes, by the output file's extension
FORMATS = ("svg", "pdf", "png")
INSTALL = "attncalc plot needs matplotlib: pip install 'attncalc[plots]' (from a clone: pip install -e '.[plots]')"


def plot(
    d: Derivation, step: str | None = None, format: str = "svg", *, dpi: float = 200, option: str = "--step"
) -> bytes:
    """The figure of step ``step`` of derivation ``d`` (the attention weights by default) as SVG, PDF or PNG bytes.

    ``dpi`` sets a PNG's pixels per inch. ``option`` is how the caller names the step in messages.
    Raises :class:`AttncalcError` with one line when the step cannot be drawn, the figure is past
    its bounds (:mod:`attncalc.render.plot_bounds`) or matplotlib is missing.
    """
    if format not in FORMATS:
        raise AttncalcError(f"cannot write a {format!r} figure; choose one of: {', '.join(FORMATS)}")
    figure = figure_of(d, step, option)
    check_cells(d.problem.path, figure, option)  # before drawing: the cost is by the cell
    try:
        import matplotlib  # noqa: F401  (an optional extra: say how to install it)
    except ImportError:
        raise AttncalcError(INSTALL) from None
    from .plot_draw import draw

    try:
        return draw(figure, format, dpi)
    except TooManyPixels as exc:  # measured from the laid-out figure, before it is rendered
        dpi_option = "--dpi" if option.startswith("--") else "dpi"
        raise ProblemError(d.problem.path, dpi_option, pixel_message(exc, dpi_option)) from None
