"""The QTI 2.1 package written by ``generate --format qti``: what OpenOLAT and Canvas New Quizzes
import (what each importer reads is written down in docs/lms.md; ILIAS and Canvas classic quizzes read
QTI 1.2, :mod:`attncalc.reports.qti12`).

A zip holds ``imsmanifest.xml`` (IMS Content Packaging with the QTI 2.1 resource types), one
``assessmentTest`` (``test.xml``: a section per variant in one section that selects one, and the test's
``MAXSCORE``, where OpenOLAT reads it) and one ``assessmentItem`` per entry asked of each step
(``items/TAG-vNN-SSS-EE.xml``, TAG naming the set: :func:`attncalc.reports.lms.set_tag`). An item has one
interaction (Canvas New Quizzes refuses items with more than one text entry): a ``textEntryInteraction``
of base type float, or a ``choiceInteraction`` over the labels. Its body is ``p`` and ``div`` only (Canvas
builds the question text from ``itemBody > p/div``), the variant's givens as XHTML tables in a ``div``.
Response processing gives the entry's share of its step's points (``[grading]``) when the response is
within half a unit of the last decimal of a value ``check`` accepts (the key, the hand chain), else the
``slip`` share for a named slip, with the slip's note as a ``modalFeedback``; the step worked out is
always shown as another. Every byte follows from the derivations and the seed (fixed zip dates).
"""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from ..derivation import Argmax, Derivation, Step
from ..derivation.fmt import elide, entry_indices, entry_label
from ..render import expand
from ..render.setup import setup_lines
from .givens import given_tables, table_rows
from .lms import Choice, Question, questions, xml_chars
from .lms_numbers import Number

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
    for key, caption, value, rows, decimals, cols in given_tables(d):
        body = "".join(table_rows(value, rows, decimals, cols, _e))
        parts.append(f"<table label={quoteattr(key)}><caption>{_e(caption)}</caption><tbody>{body}</tbody></table>")
    for key, line in setup_lines(d.problem):
        parts.append(f"<p label={quoteattr(key)}>{_e(line)}</p>")
    return "".join(parts)


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


def _or(tests: list[str]) -> str:
    return tests[0] if len(tests) == 1 else f"<or>{''.join(tests)}</or>"


def _near(value: str, tol: str) -> str:
    """The response within tol of value, both ends included (QTI 2.1 ``equal``, absolute tolerance)."""
    return (
        f'<equal toleranceMode="absolute" tolerance="{tol}" includeLowerBound="true" includeUpperBound="true">'
        f'<variable identifier="RESPONSE"/><baseValue baseType="float">{value}</baseValue></equal>'
    )


def _score(x: float) -> str:
    return f'<setOutcomeValue identifier="SCORE"><baseValue baseType="float">{x:.12g}</baseValue></setOutcomeValue>'


def _slip_to(k: int) -> str:
    return f'<setOutcomeValue identifier="SLIP"><baseValue baseType="identifier">SLIP_{k}</baseValue></setOutcomeValue>'


def _number_item(
    ident: str, title: str, head: str, ask: str, q: Question, e: Number, decimals: int, shown: str = ""
) -> str:
    """``shown``: paragraphs after the question (a masked entry's −∞), never inside its ``p``."""
    tol = f"{0.5 * 10.0 ** (-decimals):g}"
    pts = q.points_of(e)
    declarations = [
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float">'
        f"<correctResponse><value>{e.key}</value></correctResponse></responseDeclaration>"
    ]
    field = f'<p>{_e(e.label)} = <textEntryInteraction responseIdentifier="RESPONSE" expectedLength="10"/></p>'
    branches = [f"<responseIf>{_or([_near(a, tol) for a in e.accepted])}{_score(pts)}</responseIf>"]
    for k, slip in enumerate(e.slips, 1):
        branches.append(
            f"<responseElseIf>{_near(slip.value, tol)}{_score(q.share_of(slip.carried) * pts)}"
            f"{_slip_to(k)}</responseElseIf>"
        )
    rules = [f"<responseCondition>{''.join(branches)}</responseCondition>"]
    slips = [(f"SLIP_{k}", f"<p>{_e(s.note)}</p>") for k, s in enumerate(e.slips, 1)]
    body = f"<itemBody>{head}<p>{ask} {q.precision}</p>{shown}{field}</itemBody>"
    return _item(ident, title, declarations, pts, body, rules, worked(q.step, q.shown, decimals), slips)


def _choice_item(ident: str, title: str, head: str, ask: str, q: Question, e: Choice, decimals: int) -> str:
    choices = {lab: f"L{k}" for k, lab in enumerate(e.options, 1)}
    declarations = [
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
        f"<correctResponse><value>{choices[e.correct[0]]}</value></correctResponse></responseDeclaration>"
    ]
    options = "".join(f'<simpleChoice identifier="{c}">{_e(lab)}</simpleChoice>' for lab, c in choices.items())
    body = (
        f"<itemBody>{head}<p>{ask}{' ' + _e(q.precision) if q.precision else ''}</p>"
        '<choiceInteraction responseIdentifier="RESPONSE" shuffle="true" maxChoices="1">'
        f"<prompt>{_e(e.label)}: pick the label.</prompt>{options}</choiceInteraction></itemBody>"
    )

    def picked(c: str) -> str:
        return (
            f'<match><variable identifier="RESPONSE"/><baseValue baseType="identifier">{choices[c]}</baseValue></match>'
        )

    pts = q.points_of(e)
    # the right labels at full marks; then each named slip's label: its chain's (made earlier, carried) at
    # full marks, one made here at the slip share, each with check's note
    branches = [f"<responseIf>{_or([picked(c) for c in e.correct])}{_score(pts)}</responseIf>"]
    for k, (option, _, carried) in enumerate(e.slips, 1):
        branches.append(
            f"<responseElseIf>{picked(option)}{_score(q.share_of(carried) * pts)}{_slip_to(k)}</responseElseIf>"
        )
    rules = [f"<responseCondition>{''.join(branches)}</responseCondition>"]
    slips = [(f"SLIP_{k}", f"<p>{_e(note)}</p>") for k, (_, note, _) in enumerate(e.slips, 1)]
    return _item(ident, title, declarations, pts, body, rules, worked(q.step, q.shown, decimals), slips)


def _item(
    ident: str,
    title: str,
    declarations: list[str],
    points: float,
    body: str,
    rules: list[str],
    feedback: str,
    slips: list[tuple[str, str]],
) -> str:
    outcomes = (
        '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float">'
        "<defaultValue><value>0</value></defaultValue></outcomeDeclaration>"
        '<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float">'
        f"<defaultValue><value>{points:.12g}</value></defaultValue></outcomeDeclaration>"
        '<outcomeDeclaration identifier="FEEDBACK" cardinality="single" baseType="identifier"/>'
        '<outcomeDeclaration identifier="SLIP" cardinality="single" baseType="identifier"/>'
    )
    show = (
        '<setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">SOLUTION</baseValue></setOutcomeValue>'
    )
    notes = "".join(
        f'<modalFeedback outcomeIdentifier="SLIP" identifier="{k}" showHide="show" title="Your slip">{text}</modalFeedback>'
        for k, text in slips
    )
    return (
        _head("assessmentItem", ident, title)
        + ' adaptive="false" timeDependent="false">'
        + "".join(declarations)
        + outcomes
        + body
        + f"<responseProcessing>{''.join(rules)}{show}</responseProcessing>"
        + notes
        + '<modalFeedback outcomeIdentifier="FEEDBACK" identifier="SOLUTION" showHide="show" title="Worked solution">'
        + f"{feedback}</modalFeedback></assessmentItem>\n"
    )


Listed = list[tuple[int, str, str, str, float]]  # variant, identifier, title, XML, points


def items(derivations: list[Derivation], tag: str = "attncalc") -> Listed:
    """(variant, identifier, title, XML, points) of every item, in order: one item per entry asked (one
    text entry or one choice per item, as Canvas New Quizzes requires), its step's points shared."""
    out: Listed = []
    for k, d in enumerate(derivations, 1):
        head = f"<div><p>Variant {k}</p>{givens_xhtml(d)}</div>"
        for q in questions(d, k):
            ask = f"Compute {_e(q.title)} [{_e(q.step_id)}]: {_e(q.ask)}."
            shown = [f"<p>{_e(e.label)} = −∞</p>" for e in q.entries if isinstance(e, Number) and e.masked]
            for j, e in enumerate(q.asked, 1):
                ident = f"{tag}-v{k:02d}-{q.number:03d}-{j:02d}"
                title = f"Variant {k}: {q.title} [{q.step_id}] {e.label}"
                if isinstance(e, Choice):
                    xml = _choice_item(ident, title, head, ask, q, e, d.decimals)
                else:
                    xml = _number_item(ident, title, head, ask, q, e, d.decimals, "".join(shown))
                out.append((k, ident, title, xml, q.points_of(e)))
    return out


def _test(tag: str, title: str, listed: Listed) -> str:
    sections = []
    for k in sorted({v for v, *_ in listed}):
        refs = "".join(
            f'<assessmentItemRef identifier="{ident}" href="items/{ident}.xml"/>' for v, ident, *_ in listed if v == k
        )
        sections.append(
            f'<assessmentSection identifier="{tag}-variant-{k:02d}" title="Variant {k}" visible="true">{refs}</assessmentSection>'
        )
    body = "".join(sections)
    if len(sections) > 1:  # each student is given one variant, drawn by the LMS when the test starts
        body = (
            f'<assessmentSection identifier="{tag}-variants" title="One variant per student" visible="false">'
            f'<selection select="1"/>{body}</assessmentSection>'
        )
    # the test's maximum (what one student can earn: one variant), where OpenOLAT reads it
    best = round(sum(p for v, *_, p in listed if v == 1), 6)  # the shares' exact sum (6 decimals each)
    return (
        _head("assessmentTest", tag, title)
        + ">"
        + '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>'
        + '<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float">'
        + f"<defaultValue><value>{best:.12g}</value></defaultValue></outcomeDeclaration>"
        + f'<testPart identifier="{tag}-part" navigationMode="nonlinear" submissionMode="simultaneous">{body}</testPart>'
        + '<outcomeProcessing><setOutcomeValue identifier="SCORE"><sum><testVariables variableIdentifier="SCORE"/>'
        + "</sum></setOutcomeValue></outcomeProcessing></assessmentTest>\n"
    )


def _manifest(tag: str, listed: Listed) -> str:
    deps = "".join(f'<dependency identifierref="{ident}"/>' for _, ident, *_ in listed)
    resources = "".join(
        f'<resource identifier="{ident}" type="imsqti_item_xmlv2p1" href="items/{ident}.xml">'
        f'<file href="items/{ident}.xml"/></resource>'
        for _, ident, *_ in listed
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<manifest xmlns="{CP}" xmlns:xsi="{XSI}" xsi:schemaLocation="{CP} {CP_XSD}" '
        f'identifier="{tag}-manifest">'
        "<metadata><schema>QTIv2.1 Package</schema><schemaversion>1.0.0</schemaversion></metadata>"
        "<organizations/><resources>"
        f'<resource identifier="{tag}-test" type="imsqti_test_xmlv2p1" href="test.xml"><file href="test.xml"/>{deps}</resource>'
        f"{resources}</resources></manifest>\n"
    )


def qti_zip(derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "") -> bytes:
    """The package as zip bytes; ``tag`` (:func:`attncalc.reports.lms.set_tag`) prefixes every identifier."""
    tag = tag or f"attncalc-seed-{seed}"
    title = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    listed = items(derivations, tag)
    files = [("imsmanifest.xml", _manifest(tag, listed)), ("test.xml", _test(tag, title, listed))]
    files += [(f"items/{ident}.xml", xml) for _, ident, _, xml, _ in listed]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, xml_chars(text).encode("utf-8"))
    return buf.getvalue()
