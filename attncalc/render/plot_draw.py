"""Draw a :class:`~attncalc.render.plot.Figure` with matplotlib: heat maps with the numbers in the cells.

matplotlib is an optional extra (``pip install 'attncalc[plots]'``) imported only here, and only
through :func:`attncalc.render.plot.plot`. No pyplot: a bare ``Figure`` on the format's own
non-interactive canvas (Agg, PDF, SVG), with every setting in a ``rc_context`` so that a notebook's
own settings neither leak in nor are changed. The output is reproducible: no dates in SVG or PDF,
fixed SVG ids, no time chunk in PNG, and the font bundled with matplotlib (DejaVu Sans) whatever the
machine has.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from itertools import groupby
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Rectangle

from .plot_bounds import check_pixels
from .plot_figure import Figure, Panel

FONT = "DejaVu Sans"  # bundled with matplotlib: the same glyphs and metrics on every machine
CMAP = "viridis"  # perceptually uniform and colour-blind safe, readable in greyscale
MASKED = "#d9d9d9"  # a masked cell: grey, hatched, "masked" written in it
RC: dict[str, Any] = {
    "font.family": "sans-serif",  # SVG text names the font, then any sans-serif where it is missing
    "font.sans-serif": [FONT],
    "font.size": 9,
    "text.parse_math": False,  # a token "$x$" is text, not mathtext
    "svg.fonttype": "none",  # SVG text stays text: selectable, searchable, small
    "svg.hashsalt": "attncalc",  # fixed element ids: the same SVG for the same input
    "pdf.fonttype": 42,  # TrueType in the PDF, not bitmap-like Type 3 fonts
    "hatch.color": "#8c8c8c",
    "hatch.linewidth": 0.6,
    "axes.linewidth": 0,
}
MAX_PANEL_COLUMNS = 4
TRIM: dict[str, Any] = {"bbox_inches": "tight", "pad_inches": 0.1}  # no margin beyond the drawing


def draw(figure: Figure, format: str, dpi: float = 200) -> bytes:
    """The figure as SVG, PDF or PNG bytes (``dpi``: the PNG's pixels per inch), trimmed to its content."""
    # the stubs type the keys as Literals, which a dict built once cannot be
    with matplotlib.rc_context(RC):  # type: ignore[arg-type]
        fig = _draw(figure)
        out = io.BytesIO()
        if format == "png":
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            width, height = (float(x) for x in fig.get_size_inches())
            check_pixels(width, height, dpi)  # before rendering: the memory is by the pixel

            FigureCanvasAgg(fig)
            fig.savefig(out, format="png", dpi=dpi, metadata={"Title": _settable(figure.title)}, **TRIM)
        elif format == "pdf":
            from matplotlib.backends.backend_pdf import FigureCanvasPdf

            FigureCanvasPdf(fig)
            fig.savefig(out, format="pdf", metadata={"CreationDate": None, "Title": _settable(figure.title)}, **TRIM)
        else:
            from matplotlib.backends.backend_svg import FigureCanvasSVG

            FigureCanvasSVG(fig)
            fig.savefig(out, format="svg", metadata={"Date": None, "Title": _settable(figure.title)}, **TRIM)
        return out.getvalue()


def _draw(figure: Figure) -> MplFigure:
    """Lay the panels out by hand, in inches, from the measured size of their labels: square cells
    wide enough for their numbers, one colour bar, the title above and the caption below."""
    panels = figure.panels
    across = len(panels) if len(panels) <= 3 else 2 if len(panels) == 4 else MAX_PANEL_COLUMNS
    down = math.ceil(len(panels) / across)
    cell = _cell_size(panels)
    rotated = any(_rotated(p, cell) for p in panels)
    line = _extent("Xg")[1]  # the height of a line of 9-point text
    left = max(_extent(_settable(r))[0] for p in panels for r in p.rows) + 0.06
    left += line + 0.08 if any(p.row_axis for p in panels) else 0
    cols = [_extent(_settable(c)) for p in panels for c in p.cols]
    top = (max(w + h for w, h in cols) * math.sqrt(0.5) if rotated else line) + 0.06
    top += line + 0.06 if any(p.col_axis for p in panels) else 0
    top += line + 0.12 if any(p.title for p in panels) else 0
    n = max(p.values.shape[0] for p in panels)
    m = max(p.values.shape[1] for p in panels)
    slot_w, slot_h = left + m * cell, top + n * cell
    gap_x, gap_y, margin = 0.3, 0.2, 0.1
    grid_w, grid_h = across * slot_w + (across - 1) * gap_x, down * slot_h + (down - 1) * gap_y
    one_row = n == 1
    head, foot = 0.45, 0.38  # the title above, the caption below
    bar_w, bar_h = (0.0, 0.55) if one_row else (0.75, 0.0)
    W, H = margin + grid_w + bar_w + margin, head + grid_h + bar_h + foot
    fig = MplFigure(figsize=(W, H))

    def box(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
        """(left, bottom, width, height) as fractions of the figure, from x and y in inches from its top left."""
        return (x / W, 1 - (y + h) / H, w / W, h / H)

    fig.text(0.5, 1 - 0.12 / H, _settable(figure.title), ha="center", va="top", fontsize=11, fontweight="bold")
    fig.text(0.5, 0.08 / H, _settable(figure.subtitle), ha="center", va="bottom", fontsize=8.5, color="#404040")
    cmap = matplotlib.colormaps[CMAP].with_extremes(bad=MASKED)
    norm = Normalize(figure.vmin, figure.vmax)
    for k, p in enumerate(panels):
        row, col = divmod(k, across)
        x, y = margin + col * (slot_w + gap_x) + left, head + row * (slot_h + gap_y) + top
        ax = fig.add_axes(box(x, y, p.values.shape[1] * cell, p.values.shape[0] * cell))
        image = _heat_map(ax, p, cmap, norm, cell, f"panel-{k + 1}")
    if one_row:  # under the panels, three fifths of their width
        w = max(min(grid_w, 2.0), 0.6 * grid_w)
        cax = fig.add_axes(box(margin + (grid_w - w) / 2, head + grid_h + 0.15, w, 0.12))
    else:  # to the right, as tall as a row of panels
        cax = fig.add_axes(box(margin + grid_w + 0.2, head + top, 0.14, grid_h - top))
    bar = fig.colorbar(image, cax=cax, orientation="horizontal" if one_row else "vertical")
    bar.outline.set_visible(False)
    if bar.solids is not None:
        bar.solids.set_rasterized(False)  # the colour bar in vectors too: no bitmap in an SVG or PDF
        bar.solids.set_edgecolor("face")  # each band's edge in its own colour: no seams between bands
        bar.solids.set_linewidth(0.4)
    bar.ax.tick_params(labelsize=8)
    return fig


def _heat_map(ax: Axes, p: Panel, cmap: Colormap, norm: Normalize, cell: float, gid: str) -> Any:
    """One panel; its parts carry SVG ids (panel-1-cells, panel-1-cell-2-3, panel-1-masked-1-4) to find them by."""
    n, m = p.values.shape
    data = np.ma.masked_array(p.values, mask=p.masked | ~np.isfinite(p.values))
    # one vector rectangle per cell (imshow would embed a bitmap in the SVG and PDF), white lines between
    edges_x, edges_y = np.arange(m + 1) - 0.5, np.arange(n + 1) - 0.5
    image = ax.pcolormesh(edges_x, edges_y, data, cmap=cmap, norm=norm, edgecolors="white", linewidth=1.2)
    image.set_gid(f"{gid}-cells")
    ax.set_xlim(-0.5, m - 0.5)
    ax.set_ylim(n - 0.5, -0.5)  # the first row on top, as in a matrix
    ax.set_aspect("equal")
    size = 9 if cell >= 0.55 else 8
    for i in range(n):
        for j in range(m):
            where = f"{i + 1}-{j + 1}"
            if p.masked[i, j]:  # grey and hatched, and says so: not a real 0
                ax.add_patch(
                    Rectangle(
                        (j - 0.5, i - 0.5),
                        1,
                        1,
                        facecolor=MASKED,
                        edgecolor="white",
                        hatch="///",
                        linewidth=1.2,
                        gid=f"{gid}-masked-{where}",
                    )
                )
                ink, style, points = "#303030", "italic", size - 1
            else:
                ink, style, points = _ink(cmap(norm(p.values[i, j]))), "normal", size
            ax.text(
                j,
                i,
                p.text[i][j],
                ha="center",
                va="center",
                fontsize=points,
                style=style,
                color=ink,
                gid=f"{gid}-cell-{where}",
            )
    ax.set_xticks(range(m), [_settable(c) for c in p.cols])
    ax.set_yticks(range(n), [_settable(r) for r in p.rows])
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    if _rotated(p, cell):
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("left")
            label.set_rotation_mode("anchor")
    ax.tick_params(which="major", length=0, pad=3)
    if p.row_axis:
        ax.set_ylabel(_settable(p.row_axis), color="#404040")
    if p.col_axis:
        ax.set_xlabel(_settable(p.col_axis), color="#404040")
    if p.title:
        ax.set_title(_settable(p.title), fontsize=10, pad=6)
    return image


def _ink(rgba: tuple[float, float, float, float]) -> str:
    """Black or white text, whichever contrasts more with the cell's colour (WCAG's contrast ratio)."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgba[:3])
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def _cell_size(panels: tuple[Panel, ...]) -> float:
    """A square cell wide enough for the longest number in it, in inches."""
    widest = max((_extent(t)[0] for p in panels for row in p.text for t in row if t != "masked"), default=0.0)
    return max(0.5, widest + 0.2)


def _rotated(p: Panel, cell: float) -> bool:
    """Column labels too wide for their cells are set at 45°."""
    return max(_extent(_settable(c))[0] for c in p.cols) > cell - 0.05


@lru_cache(maxsize=4096)
def _extent(text: str, size: float = 9) -> tuple[float, float]:
    """The width and height of one line of text in the bundled font, in inches (measured, not guessed)."""
    from matplotlib.font_manager import FontProperties

    w, h, _ = _renderer().get_text_width_height_descent(text, FontProperties(family=FONT, size=size), ismath=False)
    return w / 72, h / 72


@lru_cache(maxsize=1)
def _renderer() -> Any:
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(8, 8, 72)  # type: ignore[no-untyped-call]  # at 72 dpi a pixel is a point


@lru_cache(maxsize=1)
def _charmap() -> frozenset[int]:
    from matplotlib import font_manager, ft2font

    path = font_manager.findfont(font_manager.FontProperties(family=FONT), fallback_to_default=True)
    return frozenset(ft2font.FT2Font(path).get_charmap())


def _settable(text: str) -> str:
    """Text the bundled font can set: words in scripts it has no glyphs for (Bengali, Han) are
    transliterated (আমি → ami), as the LaTeX sheets do, instead of drawn as empty boxes. Control
    characters (which XML 1.0 cannot hold: the SVG was not well-formed) and lone surrogates (which no
    encoding holds) are written as escapes such as \\x01, as the terminal shows them; so are the
    invisible format characters (a byte order mark U+FEFF stopped matplotlib's PDF writer)."""
    import unicodedata

    from ..errors import printable

    text = printable(text)
    if not text.isascii():
        text = "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cf" else c for c in text)
    have = _charmap()
    if all(ord(c) in have for c in text):
        return text
    from anyascii import anyascii

    return "".join(anyascii(run) if missing else run for missing, run in _runs(text, have))


def _runs(text: str, have: frozenset[int]) -> list[tuple[bool, str]]:
    return [(missing, "".join(g)) for missing, g in groupby(text, key=lambda c: ord(c) not in have)]
