"""Number formatting and expansion helpers shared by every renderer (no rich, no sympy here)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from .rounding import round_half_up

ENTRY_LIMIT = 16  # entries written out per step before the expansion is elided
TERM_LIMIT = 12  # terms written out per sum before the middle is elided
HEAD, TAIL = 3, 1  # what an elided list keeps
SMALLEST_POSITIONAL = 1e-12  # smaller non-zero values print in scientific notation


def fmt(x: Any, decimals: int, minus: str = "-", inf: str = "∞") -> str:
    """A number as a worked example writes it.

    Whole numbers print without decimals ("2"); a number that is exactly representable at the
    shown precision drops trailing zeros ("0.39", "0.5"); anything else shows ``decimals``
    places ("0.155"). A non-zero value that would round to 0 shows its leading significant digits
    instead (0.27 at 0 decimals, 0.0000143 at 3); only values below 1e-12 (and from 1e12 up) use
    scientific notation.
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return (minus if x < 0 else "") + inf
    if abs(x) >= 1e12:
        return _minus(sci(x, decimals + 1), minus)
    if x == round(x) and abs(x) < 1e12:
        return _minus(str(round(x)), minus)
    r = round_half_up(x, decimals)
    if r == 0.0:  # a non-zero value "0" would hide: show its leading digits instead
        places = _places_for_small(x, decimals)
        if places is None:
            return _minus(sci(x, decimals), minus)
        decimals, r = places, round_half_up(x, places)
    text = f"{r:.{decimals}f}"
    if abs(r - x) <= min(1e-12, 10.0 ** -(decimals + 2)) * max(1.0, abs(x)) and "." in text:
        text = text.rstrip("0").rstrip(".")
    if len(text) > LONGEST_FIXED:  # hundreds of decimals asked for (an answer written 1e-320)
        return _minus(sci(x, decimals), minus)
    return _minus(text, minus)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def ten_to(exponent: str) -> str:
    """10 to a whole exponent in running text, raised as a worked example writes it: 10⁴⁰³, 10⁻³²⁴
    (every view sets it: the LaTeX writer raises a run of superscripts); any other exponent as
    10^(…)."""
    if re.fullmatch(r"-?[0-9]+", exponent):
        return "10" + exponent.translate(_SUPERSCRIPT)
    return f"10^{exponent}"


LONGEST_FIXED = 24  # characters of a number in fixed point; a longer one is written in scientific notation


def sci(x: float, digits: int) -> str:
    """``x`` in scientific notation with at most ``digits`` significant digits (2 to 17, and no more
    than tell the double apart), trailing zeros dropped: 1e-320, 1.75e+01; the one form of every number too long for
    fixed point, however many decimals it was asked at."""
    text = np.format_float_scientific(float(x), precision=min(max(digits, 2), 17) - 1, unique=True, trim="-")
    mantissa, exponent = text.split("e")
    mantissa = mantissa.rstrip(".")  # numpy writes 9.02e-232 at one figure "9.e-232"
    return f"{mantissa}e{exponent[0]}{exponent[1:].zfill(2)}"  # e+01, as Python writes it


def fixed(x: float, places: int) -> str:
    """``x`` at exactly ``places`` decimals (an answer as it was written: 1.760 keeps its zero), or in
    scientific notation when that is longer than LONGEST_FIXED characters (1e308 is not 309 digits)."""
    text = f"{x:.{places}f}"
    return text if len(text) <= LONGEST_FIXED else sci(x, places + 1 if abs(x) >= 1 else places)


EXACT_GIVEN_PLACES = 6  # a given with a terminating decimal of at most this many places is shown whole


def fmt_given(x: Any, decimals: int) -> str:
    """A given as the problem wrote it: 0.25 stays 0.25 at 1 decimal (rounding a given changes the
    problem); a given without a short decimal form (√2) is rounded to ``decimals`` like any value."""
    v = float(x)
    if math.isfinite(v) and decimals < EXACT_GIVEN_PLACES and round_half_up(v, EXACT_GIVEN_PLACES) == v:
        return fmt(v, EXACT_GIVEN_PLACES)
    return fmt(v, decimals)


def _places_for_small(x: float, decimals: int) -> int | None:
    """Decimals that show a value rounding to 0 with two significant digits (three when three or more
    decimals were asked for): 0.27 at 0 decimals is 0.27, 0.8^50 at 3 is 0.0000143. None below
    SMALLEST_POSITIONAL, where a row of zeros would be unreadable and scientific notation stays."""
    if abs(x) < SMALLEST_POSITIONAL:
        return None
    digits = 3 if decimals >= 3 else 2
    return -math.floor(math.log10(abs(x))) + digits - 1


MOST_PLACES = 12  # a step kept to significant digits is shown to at most this many decimals


def significant_places(shown: Any, decimals: int, significant: int) -> int:
    """The decimals a step is shown at that keeps ``significant`` digits (``Step.significant``): a small
    value a student must match (a load-balancing loss of 0.0099366, an MSE of 0.00068) keeps as many
    significant digits as the other steps show, 0.00994 rather than 0.010 at 3 decimals. ``decimals``
    when it already shows them (every value of 1 or more), when ``significant`` is 0, or for entries
    that are all 0, whole, or not finite; otherwise the places its smallest non-zero entry needs, at
    most MOST_PLACES. The value shown is still the true value correctly rounded, so an answer copied
    from it is judged right (check judges an answer at the decimals it was written with)."""
    if significant <= 0 or isinstance(shown, str):
        return decimals
    a = np.abs(np.asarray(shown, dtype=float)).reshape(-1)
    a = a[np.isfinite(a) & (a > 0) & (a != np.round(a))]
    if not a.size:
        return decimals
    need = significant - 1 - math.floor(math.log10(float(a.min())))
    return int(min(max(decimals, need), max(decimals, MOST_PLACES)))


def step_places(step: Any, decimals: int, carried: bool = False) -> int:
    """The decimals one step is shown at in every view (:func:`significant_places` of its shown values;
    ``decimals`` with ``carried``: a hand chain rounds every step to ``decimals``, more would show zeros)."""
    significant = int(getattr(step, "significant", 0) or 0)
    if carried or not significant:
        return decimals
    return significant_places(step.shown, decimals, significant)


def significant_words(step: Any) -> str:
    """Why a step is shown to more decimals than the others: "to keep 3 significant digits"."""
    return f"to keep {int(getattr(step, 'significant', 0) or 0)} significant digits"


def _minus(text: str, minus: str) -> str:
    return text.replace("-", minus) if minus != "-" else text


def fmt_array(x: Any, decimals: int, minus: str = "-", inf: str = "∞") -> Any:
    """Nested lists of formatted strings, in the array's nesting (a str stays a str)."""
    if isinstance(x, str):
        return x
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        return fmt(a, decimals, minus, inf)
    return [fmt_array(v, decimals, minus, inf) for v in a]


def paren(text: str, minus: str = "-") -> str:
    """Wrap a negative factor in parentheses: 0.6·(-0.4)."""
    return f"({text})" if text.startswith(minus) else text


def elide(items: list[Any], limit: int = ENTRY_LIMIT) -> Iterator[Any | None]:
    """The items, or the first few, None (for "⋮"), and the last one when there are too many."""
    if len(items) <= limit:
        yield from items
        return
    yield from items[:HEAD]
    yield None
    yield from items[-TAIL:]


def entry_indices(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [tuple(int(i) for i in idx) for idx in np.ndindex(*shape)] if shape else [()]


def entry_label(symbol: str, idx: tuple[int, ...], rows: tuple[str, ...] | None = None) -> str:
    """e_2, S[1,3], exp(e_2): 1-based, as the maths writes it."""
    if not idx:
        return symbol
    if symbol.endswith(")") and "(" in symbol:  # a function of a symbol: exp(e) -> exp(e_2)
        fn, inner = symbol[:-1].split("(", 1)
        return f"{fn}({entry_label(inner, idx)})"
    if " " in symbol:  # a product such as "W_q s": (W_q s)_1
        symbol = f"({symbol})"
    if len(idx) == 1 and _TIMED.search(symbol):  # a state at a time step: f_2 -> f_2,1 (step 2, entry 1)
        return f"{symbol},{idx[0] + 1}"
    if len(idx) == 1:
        return f"{symbol}_{idx[0] + 1}"
    return f"{symbol}[{','.join(str(i + 1) for i in idx)}]"


def flat_rows(v: np.ndarray, rows: tuple[str, ...] | None) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """A value of three axes (moe's expert outputs: token × choice × column) as a table: its first two
    axes one row each ("the, 2": the first axis's label, then the second's number); other values as they are."""
    if v.ndim != 3:
        return v, rows
    a, b, c = v.shape
    first = position_labels(rows, a)
    return v.reshape(a * b, c), tuple(f"{first[i]}, {r + 1}" for i in range(a) for r in range(b))


_TIMED = re.compile(r"_\d+$")


def position_labels(labels: tuple[str, ...] | None, n: int, prefix: str = "") -> list[str]:
    if labels is not None:
        return list(labels)
    return [f"{prefix}{i + 1}" for i in range(n)]


def bar(weight: float, width: int = 20) -> str:
    """A weight drawn as a bar of block characters, readable without colour."""
    if not math.isfinite(weight) or weight <= 0:
        return ""
    eighths = round(min(weight, 1.0) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[rest]


def inline(shown: Any, n: Any, limit: int = 12) -> str:
    """A value on one line: a label as it is, a number, [a, b, …] or [[…], […]], middles elided."""
    import numpy as np

    if isinstance(shown, str):
        return shown
    v = np.asarray(shown, dtype=float)
    if v.ndim == 0:
        return str(n(v))

    def row(r: Any) -> str:
        if np.ndim(r) > 1:  # (a value of three axes: moe's expert outputs)
            return "[" + ", ".join(x if x is not None else "…" for x in elide([row(s) for s in r], limit)) + "]"
        return "[" + ", ".join(x if x is not None else "…" for x in elide([n(x) for x in r], limit)) + "]"

    if v.ndim == 1:
        return row(v)
    return "[" + ", ".join(x if x is not None else "…" for x in elide([row(r) for r in v], limit)) + "]"


def count_text(x: float) -> str:
    """A count that is not whole (a student's size in a unit, 256.96 GiB in bytes): grouped like the whole
    counts beside it, to two decimals at most (275,909,394,268.16), never in scientific notation; a small
    one to six significant figures."""
    if abs(x) < 1e4:
        return f"{x:,.6g}"
    return f"{x:,.2f}".rstrip("0").rstrip(".")


def lower_first(title: str) -> str:
    """A title inside a sentence: its first letter lower case ("Head 1: the scores"), unless the first
    word is an acronym or a symbol (LM head, KV cache, QKV, FFN stay as they are)."""
    word = title.split(" ", 1)[0]
    if len(word) > 1 and not word[1:2].islower():
        return title
    return title[:1].lower() + title[1:]
