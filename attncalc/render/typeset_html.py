"""Plain notation → HTML with <sub>/<sup>: the HTML sheets' and the practice page's formulas (the LaTeX
side is :mod:`attncalc.render.typeset`, whose tokens these share)."""

from __future__ import annotations

import html
import re

from .typeset import ARROWS, BARE_POWER, PAREN_SUB, TOKEN, numbered
from .typeset_names import hyphenated, one_name

# a power in HTML: ^(…) or a bare exponent
_HTML_POWER = re.compile(r"\^\(([^()]*)\)|" + BARE_POWER.pattern)


def to_html(plain: str) -> str:
    """Plain notation → HTML with <sub>/<sup> (no MathML needed for these lines); a power's exponent,
    ^(…) or bare (^γ, ^0.6), in <sup>."""
    if "^" in plain:
        out, at = [], 0
        for m in _HTML_POWER.finditer(plain):
            out.append(to_html(plain[at : m.start()]))
            out.append(f"<sup>{to_html(m.group(1) if m.group(1) is not None else m.group(2))}</sup>")
            at = m.end()
        return "".join(out) + to_html(plain[at:]) if out else _to_html_parts(plain)
    return _to_html_parts(plain)


def _to_html_parts(plain: str) -> str:
    parts = PAREN_SUB.split(plain)
    if len(parts) > 1:  # the parentheses stay, inside the subscript: P<sub>(j−1)</sub>
        return "".join(f"<sub>({_to_html(p)})</sub>" if k % 2 else _to_html(p) for k, p in enumerate(parts))
    return _to_html(plain)


def _to_html(plain: str) -> str:
    out: list[str] = []
    tokens = list(TOKEN.finditer(plain))
    skip = -1  # a token already written with the one before it
    for i, m in enumerate(tokens):
        kind, text = m.lastgroup, m.group()
        if i == skip:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        parts = hyphenated(text, (nxt.lastgroup or "", nxt.group())) if kind == "word" and nxt is not None else None
        if parts is not None:  # top_k: the name top-k, not top with a subscript k
            out.append(f"{parts[0]}-<i>{parts[1]}</i>")
            skip = i + 1
            continue
        if kind == "word" and nxt is not None and one_name(text, (nxt.lastgroup or "", nxt.group())):
            out.append(html.escape(text + nxt.group()))  # capacity_factor: one name, as in LaTeX
            skip = i + 1
            continue
        after_letter = i > 0 and out and out[-1].endswith("</i>") and len(tokens[i - 1].group()) == 1
        if text in ARROWS and after_letter:
            out[-1] = f'<span class="over" data-a="{text}">{out[-1]}</span>'  # an arrow over h, as in print
            continue
        if text in ("\u0303", "\u0302") and after_letter:  # h̃, m̂: the accent inside the letter's <i>
            out[-1] = out[-1][: -len("</i>")] + text + "</i>"
            continue
        if kind == "sci":
            mant, exp = text.split("e")
            out.append(f"{mant}×10<sup>{int(exp)}</sup>")
        elif kind == "idx" and i and numbered((tokens[i - 1].lastgroup or "", tokens[i - 1].group())):
            out.append(html.escape(text))  # dQ<sub>1</sub>[2,1], not dQ<sub>1</sub><sub>2,1</sub> (row 12?)
        elif kind == "idx":
            out.append(f"<sub>{text[1:-1]}</sub>")
        elif kind == "sub":
            out.append(f"<sub>{html.escape(text[1:])}</sub>")
        elif kind == "word" and len(text) == 1:
            out.append(f"<i>{text}</i>")
        elif text == "ᵀ":
            out.append("<sup>T</sup>")
        else:
            out.append(html.escape(text))
    return "".join(out)
