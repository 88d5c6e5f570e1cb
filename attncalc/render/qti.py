"""The QTI 2.1 package written by ``generate --format qti``: what ILIAS, OpenOLAT (and, through their
importers, Canvas and Blackboard) read.

A zip holds ``imsmanifest.xml`` (IMS Content Packaging with the QTI 2.1 resource types), one
``assessmentTest`` (``test.xml``: a section per variant) and one ``assessmentItem`` per step of each
variant (``items/vNN-SSS.xml``). An item shows the variant's givens as XHTML tables (and the facts a
question needs: mask, targets, the cell), asks for the step with one ``textEntryInteraction`` of base
type float per entry (a ``choiceInteraction`` over the labels for a prediction), and scores each entry
with ``equal`` at an absolute tolerance of half a unit of the last decimal around the key's value (the
answers file's value, rounded half away from zero, is always accepted). The step worked out is the
item's ``modalFeedback``. Every byte follows from the derivations and the seed (fixed zip dates).
"""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from ..derivation import Argmax, Derivation, Step
from . import expand
from .fmt import elide, entry_indices, entry_label, fmt_given
from .setup import setup_lines

QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
QTI_XSD = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
CP_XSD = "http://www.imsglobal.org/xsd/qti/qtiv2p1/qtiv2p1_imscpv1p2_v1p0.xsd"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the same bytes for the same seed
WORKED_LINES = 16  # entries written out in a feedback before the rest is elided


def _e(text: Any) -> str:
    return escape(str(text))


def _head(root: str, identifier: str, title: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<{root} xmlns="{QTI}" xmlns:xsi="{XSI}" xsi:schemaLocation="{QTI} {QTI_XSD}" '
        f"identifier={quoteattr(identifier)} title={quoteattr(title)}"
    )


def givens_xhtml(d: Derivation) -> str:
    """The givens as QTI's XHTML: one table per input (label = its key in the problem file), then a
    paragraph per fact (label = the key it states)."""
    parts = ["<p>Given:</p>"]
    for i in d.inputs:
        parts.append(_table(i.name, f"{i.symbol}: {i.role}", np.asarray(i.value, dtype=float), i.rows, d.decimals))
    p = d.problem
    if p.mask is not None and p.mask_text != "causal":
        parts.append(_table("mask", "mask: 1 = may attend", np.asarray(p.mask, dtype=float), p.tokens, 0))
    for key, line in setup_lines(p):
        parts.append(f"<p label={quoteattr(key)}>{_e(line)}</p>")
    return "".join(parts)


def _table(key: str, caption: str, value: np.ndarray, rows: Any, decimals: int) -> str:
    body: list[str] = []
    if value.ndim == 1:
        if rows is not None and len(rows) == len(value):
            body.append("<tr>" + "".join(f"<th>{_e(r)}</th>" for r in rows) + "</tr>")
        body.append("<tr>" + "".join(f"<td>{fmt_given(x, decimals)}</td>" for x in value) + "</tr>")
    else:
        body.append("<tr><th></th>" + "".join(f"<th>{j + 1}</th>" for j in range(value.shape[1])) + "</tr>")
        for r, row in enumerate(value):
            label = _e(rows[r]) if rows is not None and r < len(rows) else str(r + 1)
            body.append(f"<tr><th>{label}</th>" + "".join(f"<td>{fmt_given(x, decimals)}</td>" for x in row) + "</tr>")
    return f"<table label={quoteattr(key)}><caption>{_e(caption)}</caption><tbody>{''.join(body)}</tbody></table>"


def worked(step: Step, shown: Any, decimals: int) -> str:
    """The step worked out, for the feedback: its formula, why, and each entry written out."""
    lines = [f"<p>{_e(step.title)}: {_e(step.formula)}</p>"]
    if step.explain:
        lines.append(f"<p>{_e(step.explain)}</p>")
    if isinstance(step, Argmax):
        lines.append(f"<p>{_e(step.formula)}: {_e(step.value)}</p>")
        return "".join(lines)
    shape = np.shape(step.shown)
    keys = np.ravel(np.asarray(shown, dtype=object))
    entries = list(zip(entry_indices(shape), keys, strict=True))
    for item in elide(entries, WORKED_LINES):
        if item is None:
            lines.append("<p>…</p>")
            continue
        idx, key = item
        rhs = expand.rhs(step, idx, decimals)
        label = entry_label(step.symbol, idx)
        lines.append(f"<p>{_e(label)} = {_e(rhs) + ' = ' if rhs else ''}{_e(key)}</p>")
    return "".join(lines)


def _numeric_item(ident: str, title: str, head: str, ask: str, step: Step, s: dict[str, Any], d: Derivation) -> str:
    tol = f"{0.5 * 10.0 ** (-d.decimals):g}"
    keys = [str(k) for k in np.ravel(np.asarray(s["shown"], dtype=object))]
    shape = np.shape(s["value"])
    declarations, fields, rules = [], [], []
    n = 0
    for idx, key in zip(entry_indices(shape), keys, strict=True):
        label = entry_label(step.symbol, idx)
        if step.rows is not None and idx and idx[0] < len(step.rows):
            label += f" ({step.rows[idx[0]]})"
        if key in ("-inf", "inf", "nan"):  # a masked score: nothing to ask
            fields.append(f"<p>{_e(label)} = −∞</p>")
            continue
        n += 1
        rid = f"RESPONSE_{n}"
        declarations.append(
            f'<responseDeclaration identifier="{rid}" cardinality="single" baseType="float">'
            f"<correctResponse><value>{key}</value></correctResponse></responseDeclaration>"
        )
        fields.append(f'<p>{_e(label)} = <textEntryInteraction responseIdentifier="{rid}" expectedLength="10"/></p>')
        rules.append(
            "<responseCondition><responseIf>"
            f'<equal toleranceMode="absolute" tolerance="{tol}" includeLowerBound="true" includeUpperBound="true">'
            f'<variable identifier="{rid}"/><correct identifier="{rid}"/></equal>'
            '<setOutcomeValue identifier="SCORE"><sum><variable identifier="SCORE"/>'
            '<baseValue baseType="float">1</baseValue></sum></setOutcomeValue>'
            "</responseIf></responseCondition>"
        )
    body = f"<itemBody>{head}<p>{ask} Give {d.decimals} decimals.</p>{''.join(fields)}</itemBody>"
    return _item(ident, title, declarations, n, body, rules, worked(step, s["shown"], d.decimals))


def _choice_item(ident: str, title: str, head: str, ask: str, step: Argmax, d: Derivation) -> str:
    labels = step.labels or (str(step.value),)
    choices = {lab: f"L{k}" for k, lab in enumerate(labels, 1)}
    declarations = [
        '<responseDeclaration identifier="RESPONSE_1" cardinality="single" baseType="identifier">'
        f"<correctResponse><value>{choices[str(step.value)]}</value></correctResponse></responseDeclaration>"
    ]
    options = "".join(f'<simpleChoice identifier="{c}">{_e(lab)}</simpleChoice>' for lab, c in choices.items())
    body = (
        f"<itemBody>{head}<p>{ask}</p>"
        '<choiceInteraction responseIdentifier="RESPONSE_1" shuffle="false" maxChoices="1">'
        f"<prompt>Pick the label.</prompt>{options}</choiceInteraction></itemBody>"
    )
    rules = [
        '<responseCondition><responseIf><match><variable identifier="RESPONSE_1"/><correct identifier="RESPONSE_1"/>'
        '</match><setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue></setOutcomeValue>'
        "</responseIf></responseCondition>"
    ]
    return _item(ident, title, declarations, 1, body, rules, worked(step, step.value, d.decimals))


def _item(
    ident: str, title: str, declarations: list[str], points: int, body: str, rules: list[str], feedback: str
) -> str:
    outcomes = (
        '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float">'
        "<defaultValue><value>0</value></defaultValue></outcomeDeclaration>"
        '<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float">'
        f"<defaultValue><value>{points}</value></defaultValue></outcomeDeclaration>"
        '<outcomeDeclaration identifier="FEEDBACK" cardinality="single" baseType="identifier"/>'
    )
    show = (
        '<setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">SOLUTION</baseValue></setOutcomeValue>'
    )
    return (
        _head("assessmentItem", ident, title)
        + ' adaptive="false" timeDependent="false">'
        + "".join(declarations)
        + outcomes
        + body
        + f"<responseProcessing>{''.join(rules)}{show}</responseProcessing>"
        + '<modalFeedback outcomeIdentifier="FEEDBACK" identifier="SOLUTION" showHide="show" title="Worked solution">'
        + f"{feedback}</modalFeedback></assessmentItem>\n"
    )


def items(derivations: list[Derivation]) -> list[tuple[int, str, str, str]]:
    """(variant, identifier, title, XML) of every item, in order."""
    from .json import to_dict

    out = []
    for k, d in enumerate(derivations, 1):
        head = f"<p>Variant {k}</p>{givens_xhtml(d)}"
        for n, (step, s) in enumerate(zip(d.steps, to_dict(d)["steps"], strict=True), 1):
            ident = f"v{k:02d}-{n:03d}"
            title = f"Variant {k}: {s['title']} [{s['id']}]"
            ask = f"Compute {_e(s['title'])} [{_e(s['id'])}]: {_e(s['formula'])}."
            if isinstance(step, Argmax):
                xml = _choice_item(ident, title, head, ask, step, d)
            else:
                xml = _numeric_item(ident, title, head, ask, step, s, d)
            out.append((k, ident, title, xml))
    return out


def _test(seed: int, listed: list[tuple[int, str, str, str]]) -> str:
    sections = []
    for k in sorted({v for v, *_ in listed}):
        refs = "".join(
            f'<assessmentItemRef identifier="{ident}" href="items/{ident}.xml"/>' for v, ident, _, _ in listed if v == k
        )
        sections.append(
            f'<assessmentSection identifier="variant-{k:02d}" title="Variant {k}" visible="true">{refs}</assessmentSection>'
        )
    body = "".join(sections)
    if len(sections) > 1:  # each student is given one variant, drawn by the LMS when the test starts
        body = (
            '<assessmentSection identifier="variants" title="One variant per student" visible="false">'
            f'<selection select="1"/>{body}</assessmentSection>'
        )
    return (
        _head("assessmentTest", f"attncalc-seed-{seed}", f"attncalc homework, seed {seed}")
        + ">"
        + '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>'
        + f'<testPart identifier="part" navigationMode="nonlinear" submissionMode="simultaneous">{body}</testPart>'
        + '<outcomeProcessing><setOutcomeValue identifier="SCORE"><sum><testVariables variableIdentifier="SCORE"/>'
        + "</sum></setOutcomeValue></outcomeProcessing></assessmentTest>\n"
    )


def _manifest(seed: int, listed: list[tuple[int, str, str, str]]) -> str:
    deps = "".join(f'<dependency identifierref="{ident}"/>' for _, ident, _, _ in listed)
    resources = "".join(
        f'<resource identifier="{ident}" type="imsqti_item_xmlv2p1" href="items/{ident}.xml">'
        f'<file href="items/{ident}.xml"/></resource>'
        for _, ident, _, _ in listed
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<manifest xmlns="{CP}" xmlns:xsi="{XSI}" xsi:schemaLocation="{CP} {CP_XSD}" '
        f'identifier="attncalc-seed-{seed}">'
        "<metadata><schema>QTIv2.1 Package</schema><schemaversion>1.0.0</schemaversion></metadata>"
        "<organizations/><resources>"
        f'<resource identifier="test" type="imsqti_test_xmlv2p1" href="test.xml"><file href="test.xml"/>{deps}</resource>'
        f"{resources}</resources></manifest>\n"
    )


def qti_zip(derivations: list[Derivation], seed: int) -> bytes:
    """The package as zip bytes."""
    listed = items(derivations)
    files = [("imsmanifest.xml", _manifest(seed, listed)), ("test.xml", _test(seed, listed))]
    files += [(f"items/{ident}.xml", xml) for _, ident, _, xml in listed]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, text.encode("utf-8"))
    return buf.getvalue()
