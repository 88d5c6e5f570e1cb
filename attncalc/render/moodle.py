"""The Moodle quiz written by ``generate --format moodle``: per variant a category, per step a
numerical question (one number), a cloze question (one field per entry) or a short answer (the
prediction). Every question shows the variant's givens as HTML tables, so each one can be answered
on its own (Moodle shuffles and draws questions one by one)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from ..derivation import Derivation
from .fmt import entry_indices, entry_label, fmt_given
from .setup import setup_lines


def moodle_xml(derivations: list[Derivation], seed: int) -> str:
    """The quiz as Moodle XML: well-formed, question texts as XHTML in CDATA."""
    from .json import to_dict

    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for k, d in enumerate(derivations, 1):
        tol = 0.5 * 10.0 ** (-d.decimals)
        out.append(
            f'<question type="category"><category><text>$course$/attncalc seed {seed}/variant {k}</text>'
            "</category></question>"
        )
        givens = givens_html(d)
        title = "" if d.problem.title == f"Variant {k}" else f": {html.escape(d.problem.title)}"
        for step, s in zip(d.steps, to_dict(d)["steps"], strict=True):
            name = html.escape(f"Variant {k}: {s['title']} [{s['id']}]")
            head = f"<p><b>Variant {k}</b>{title}</p>{givens}"
            ask = f"Compute <b>{html.escape(s['title'])}</b> [{s['id']}]: {html.escape(s['formula'])}."
            if s["id"].endswith("prediction"):
                text = f"{head}<p>{ask} Give the label.</p>"
                out.append(
                    f'<question type="shortanswer"><name><text>{name}</text></name>'
                    f'<questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>'
                    f'<answer fraction="100"><text>{html.escape(str(s["shown"]))}</text></answer></question>'
                )
                continue
            text = f"{head}<p>{ask} Give {d.decimals} decimals.</p>"
            # the answer is the key's value (rounded half away from zero, as the answers file writes
            # it), so the key is always accepted; the tolerance is half a unit of the last decimal
            keys = [str(k) for k in np.ravel(np.asarray(s["shown"], dtype=object))]
            if np.ndim(s["value"]) == 0:
                out.append(
                    f'<question type="numerical"><name><text>{name}</text></name>'
                    f'<questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>'
                    f'<answer fraction="100"><text>{keys[0]}</text>'
                    f"<tolerance>{tol}</tolerance></answer></question>"
                )
                continue
            shape = np.shape(s["value"])
            fields = "<br/>".join(
                f"{html.escape(_label(step.symbol, idx, step.rows))} = "
                + (f"{{1:NUMERICAL:={k}:{tol}}}" if is_finite_key(k) else "−∞")
                for idx, k in zip(entry_indices(shape), keys, strict=True)
            )
            out.append(
                f'<question type="cloze"><name><text>{name}</text></name>'
                f'<questiontext format="html"><text><![CDATA[{text}<p>{fields}</p>]]></text></questiontext>'
                "</question>"
            )
    out.append("</quiz>")
    return "\n".join(out) + "\n"


def is_finite_key(k: str) -> bool:
    return k not in ("-inf", "inf", "nan")


def givens_html(d: Derivation) -> str:
    """The givens of a derivation: one small table per input (title = its key in the problem file),
    then the mask, the targets and the settings that decide the answers, when the problem has them."""
    parts = ["<p>Given:</p>"]
    for i in d.inputs:
        parts.append(_table(i.name, f"{i.symbol}: {i.role}", np.asarray(i.value, dtype=float), i.rows, d.decimals))
    p = d.problem
    if p.mask is not None and p.mask_text != "causal":
        parts.append(_table("mask", "mask: 1 = may attend", np.asarray(p.mask, dtype=float), p.tokens, 0))
    for key, line in setup_lines(p):
        parts.append(f'<p title="{key}">{html.escape(line)}</p>')
    return "".join(parts)


def _table(key: str, caption: str, value: np.ndarray, rows: Any, decimals: int) -> str:
    """A given as a table, entries as the problem wrote them (0.25 stays 0.25 when 1 decimal is asked for)."""
    t = [f'<table title="{html.escape(key)}" border="1"><caption>{html.escape(caption)}</caption>']
    value = np.atleast_1d(value)  # a single number (a given scale) as a row of one
    if value.ndim == 1:
        if rows is not None and len(rows) == len(value):
            t.append("<tr>" + "".join(f"<th>{html.escape(str(r))}</th>" for r in rows) + "</tr>")
        t.append("<tr>" + "".join(f"<td>{fmt_given(x, decimals)}</td>" for x in value) + "</tr>")
    else:
        t.append("<tr><th></th>" + "".join(f"<th>{j + 1}</th>" for j in range(value.shape[1])) + "</tr>")
        for r, row in enumerate(value):
            label = html.escape(str(rows[r])) if rows is not None and r < len(rows) else str(r + 1)
            t.append(f"<tr><th>{label}</th>" + "".join(f"<td>{fmt_given(x, decimals)}</td>" for x in row) + "</tr>")
    t.append("</table>")
    return "".join(t)


def _label(symbol: str, idx: tuple[int, ...], rows: Any) -> str:
    """e_2 (cat): the entry's name, and its token or label when the step has them."""
    name = entry_label(symbol, idx)
    if rows is not None and idx and idx[0] < len(rows):
        name += f" ({rows[idx[0]]})"
    return name
