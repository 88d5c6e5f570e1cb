"""The QTI 1.2 packages written by ``generate --format qti12`` (Canvas classic quizzes) and ``--format
ilias`` (an ILIAS question pool): both read QTI 1.2 only, each its own metadata (docs/lms.md).

A zip holds ``imsmanifest.xml`` (one resource of type ``imsqti_xmlv1p2``) and ``TAG/TAG.xml``, a
``questestinterop`` with one ``assessment``. Each entry asked is one ``item`` (one answer field: a
``render_fib`` of type Decimal, or a ``render_choice`` over the labels), its question text one
``mattext texttype="text/html"`` holding the variant's givens. A number's answers are ranges
(``vargte``/``varlte``: the key and every hand-chain value, each ± half a unit of the last decimal), the
range ILIAS keeps last (it keeps only the last range and the last ``setvar``, the points). The
step worked out is the item's general feedback (``itemfeedback ident="general_fb"``, which Canvas shows
to every student). With several variants, each entry is a question group (a ``section`` whose
``selection_ordering`` selects 1 item, ``points_per_item`` its points) holding that entry's item of
every variant: Canvas draws one variant of each question per student. QTI 1.2 importers give a number
full marks or none, so the slips' partial credit lives in the Moodle and QTI 2.1 exports only. The
items of ``--format newquizzes`` (:mod:`attncalc.reports.newquizzes`) are built here too.
"""

from __future__ import annotations

import html
import io
import zipfile
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from xml.sax.saxutils import escape, quoteattr

from ..derivation import Derivation
from .lms import Choice, Question, questions, xml_chars
from .lms_numbers import Number
from .moodle import givens_html
from .qti import ZIP_DATE, worked

CP = "http://www.imsglobal.org/xsd/imscp_v1p1"


# what each QTI 1.2 format does with a named slip (its numbers are right or wrong, no partial credit)
NO_SLIPS = {
    "qti12": "Canvas classic reads a number as right or wrong",
    "ilias": "ILIAS reads one range and one score a number",
    "newquizzes": "a New Quizzes number is right or wrong",
}


def slip_warning(fmt: str, share: float | None, carried: float | None = None) -> str:
    """``generate``'s line where the format cannot follow a named slip as ``check`` does: QTI 1.2's numbers
    (Canvas classic, ILIAS, New Quizzes) give full marks or none, so a slip ``check`` gives ``share`` earns
    0 there (a warning, with a share asked); Canvas accepts the later entries worked from it (their values
    are listed), ILIAS's one range does not (a note even without a share); empty for another format."""
    if fmt not in NO_SLIPS or (not share and fmt != "ilias"):
        return ""
    if fmt == "ilias":
        later = "the later entries worked from it earn 0 too (ILIAS keeps one range: the key's)"
    elif carried is not None and carried < 1:
        later = f"the later entries worked from it earn 0 too (--carried-share {carried:g}: full marks or none)"
    else:
        later = (
            "the later entries worked from it are accepted, as check carries them, where 4 or more units from the key"
        )
    if not share:
        return (
            f"attncalc: note: --format {fmt}: a named slip earns 0 and {later}; check carries them at "
            f"{'full marks' if carried is None else f'{carried:g} of their points'}; "
            "for check's grades use --format moodle, moodle-cloze or qti\n"
        )
    return (
        f"attncalc: warning: --slip-share {share:g}: --format {fmt} gives a named slip 0 ({NO_SLIPS[fmt]}), "
        f"check gives it {share:g} of the step; {later}; the share is in --format moodle, moodle-cloze and qti only\n"
    )


def _meta(fields: dict[str, str]) -> str:
    rows = "".join(
        f"<qtimetadatafield><fieldlabel>{k}</fieldlabel><fieldentry>{escape(v)}</fieldentry></qtimetadatafield>"
        for k, v in fields.items()
    )
    return f"<itemmetadata><qtimetadata>{rows}</qtimetadata></itemmetadata>"


def _html(text: str) -> str:
    """HTML as QTI 1.2 carries it: escaped inside a mattext of type text/html."""
    return f'<mattext texttype="text/html">{escape(text)}</mattext>'


def _pts(x: float) -> str:
    return f"{x:.12g}"


def _full_marks(e: Number, lms: str, carried_share: float = 1.0) -> tuple[str, ...]:
    """The values a number accepts at full marks: the key and the hand chains, and for Canvas (classic and
    New Quizzes, which read every answer) the values that follow from a slip made at an earlier step, as
    ``check`` carries them at full marks (the slip itself earns 0 here: no partial credit; with a carried
    share below 1 they earn 0 too); ILIAS keeps one range."""
    if lms == "ilias" or carried_share < 1:
        return tuple(e.accepted)
    carried = [s.value for s in e.slips if s.carried and s.value not in e.accepted]
    return (*e.accepted, *dict.fromkeys(carried))


def _ranges(accepted: tuple[str, ...], decimals: int) -> list[tuple[Decimal, Decimal]]:
    """One range per accepted value (Canvas reads every range answer), then the range ILIAS keeps (it reads
    only the last): the key's, or, when the accepted values are neighbours (0.577 and 0.578), the one range
    that holds them all and nothing else. In decimal arithmetic: a count near 10^18 keeps its half unit
    (in floats the two ends were the same number)."""
    half = Decimal(5).scaleb(-decimals - 1)
    values = [Decimal(a) for a in accepted]
    with localcontext(_exact(values, decimals)):
        out = [(v - half, v + half) for v in values[1:]]
        units = sorted({int(v.scaleb(decimals).to_integral_value(ROUND_HALF_UP)) for v in values})
        if units[-1] - units[0] == len(units) - 1:  # consecutive units: no value between them is left out
            return [*out, (min(values) - half, max(values) + half)]
        return [*out, (values[0] - half, values[0] + half)]


def _exact(values: list[Decimal], decimals: int) -> Context:
    """A context in which a value plus or minus half a unit of its last decimal is exact (a count of 30
    digits needs more than Decimal's default 28 significant digits)."""
    digits = max((v.adjusted() for v in values if v.is_finite()), default=0)
    return Context(prec=max(28, digits + decimals + 4))


def _item(
    ident: str, title: str, text: str, q: Question, e: Number | Choice, d: Derivation, lms: str = "canvas"
) -> str:
    """One item as ``lms`` reads it: Canvas (``question_type``, ``points_possible``, the worked step as
    the general feedback ``general_fb``) or ILIAS (``QUESTIONTYPE``, the worked step as the feedback it
    imports, ``response_allcorrect`` and ``response_onenotcorrect``). Each gets only its own metadata:
    Canvas's QTIMigrationTool maps ``QUESTIONTYPE`` to the field ``question_type`` fills, and took ILIAS's
    "NUMERIC QUESTION", outside Canvas's types."""
    pts = q.points_of(e)
    fb_ids = ("response_allcorrect", "response_onenotcorrect") if lms == "ilias" else ("general_fb",)
    feedback = "".join(
        '<respcondition continue="Yes"><conditionvar><other/></conditionvar>'
        f'<displayfeedback feedbacktype="Response" linkrefid="{f}"/></respcondition>'
        for f in fb_ids[:1]
    )
    if isinstance(e, Choice):
        kind, ilias = "multiple_choice_question", "SINGLE CHOICE QUESTION"
        labels = {lab: f"L{k}" for k, lab in enumerate(e.options, 1)}
        choices = "".join(
            f'<response_label ident="{c}"><material><mattext texttype="text/plain">{escape(lab)}</mattext>'
            "</material></response_label>"
            for lab, c in labels.items()
        )
        field = (
            '<response_lid ident="response1" rcardinality="Single"><render_choice shuffle="Yes">'
            f"{choices}</render_choice></response_lid>"
        )
        conditions = "".join(
            f'<respcondition continue="No"><conditionvar><varequal respident="response1">{labels[c]}</varequal>'
            f'</conditionvar><setvar action="Set" varname="SCORE">{_pts(pts)}</setvar></respcondition>'
            # the right labels and a slip's chain's (carried at full marks, or at none where the carried
            # share is below 1); no share here
            for c in (e.full if q.carried_share == 1 else e.correct)
        )
    else:
        kind, ilias = "numerical_question", "NUMERIC QUESTION"
        field = (
            '<response_str ident="response1" rcardinality="Single"><render_fib fibtype="Decimal">'
            '<response_label ident="answer1"/></render_fib></response_str>'
        )
        conditions = "".join(
            '<respcondition continue="No"><conditionvar>'
            f'<vargte respident="response1">{low:.{d.decimals + 1}f}</vargte>'
            f'<varlte respident="response1">{high:.{d.decimals + 1}f}</varlte>'
            f'</conditionvar><setvar action="Set" varname="SCORE">{_pts(pts)}</setvar></respcondition>'
            for low, high in _ranges(_full_marks(e, lms, q.carried_share), d.decimals)
        )
        if lms == "newquizzes":
            conditions = "".join(_margin(a, d.decimals, pts) for a in _full_marks(e, lms, q.carried_share))
    meta = {"QUESTIONTYPE": ilias} if lms == "ilias" else {"question_type": kind, "points_possible": _pts(pts)}
    solution = _html(worked(q.step, q.shown, d.decimals))
    return (
        f"<item ident={quoteattr(ident)} title={quoteattr(title)}>"
        + _meta(meta)
        + f"<presentation><material>{_html(text)}</material>{field}</presentation>"
        + '<resprocessing><outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>'
        + f"{feedback}{conditions}</resprocessing>"
        + "".join(
            f'<itemfeedback ident="{f}"><flow_mat><material>{solution}</material></flow_mat></itemfeedback>'
            for f in fb_ids
        )
        + "</item>"
    )


def _margin(value: str, decimals: int, pts: float) -> str:
    """An accepted value as an exact answer with a margin of half a unit, in the form New Quizzes'
    importer reads as one (the ``qti`` gem's ``Numerics::MarginError``: a ``varequal`` beside a ``vargte``
    and a ``varlte`` of other values; its ``margin`` attribute, else the value less the ``vargte``); as
    QTI 1.2 says it, the value or the range around it."""
    half = Decimal(5).scaleb(-decimals - 1)
    v = Decimal(value)
    with localcontext(_exact([v], decimals)):
        low, high = f"{v - half:.{decimals + 1}f}", f"{v + half:.{decimals + 1}f}"
    return (
        '<respcondition continue="No"><conditionvar><or>'
        f'<varequal respident="response1" margin="{half:.{decimals + 1}f}" margintype="absolute">{value}</varequal>'
        f'<and><vargte respident="response1">{low}</vargte><varlte respident="response1">{high}</varlte></and>'
        f'</or></conditionvar><setvar action="Set" varname="SCORE">{_pts(pts)}</setvar></respcondition>'
    )


def assessment(
    derivations: list[Derivation], tag: str, title: str, lms: str = "canvas", first: int = 1, test_id: str = ""
) -> str:
    """The questestinterop document: for Canvas question groups (one per entry asked, one item per
    variant in each); for ILIAS every item in one section (a question pool keeps items, not groups); for
    New Quizzes the items of the variants given (one: ``first``, its number), each number as exact
    answers with a margin. ``test_id`` names the assessment (default ``tag``)."""
    slots: dict[tuple[int, int], list[tuple[str, float]]] = {}  # (step, entry) -> items of every variant
    for k, d in enumerate(derivations, first):
        head = f"<p><b>Variant {k}</b></p>{givens_html(d)}"
        for q in questions(d, k):
            ask = f"<p>Compute <b>{html.escape(q.title)}</b> [{q.step_id}]: {html.escape(q.ask)}."
            ask += f" {html.escape(q.precision)}</p>" if q.precision else "</p>"
            for j, e in enumerate(q.asked, 1):
                ident = f"{tag}-v{k:02d}-{q.number:03d}-{j:02d}"
                name = f"Variant {k}: {q.title} [{q.step_id}] {e.label}"
                text = f"{head}{ask}<p>{html.escape(e.label)} = ?</p>"
                slots.setdefault((q.number, j), []).append((_item(ident, name, text, q, e, d, lms), q.points_of(e)))
    parts = []
    for (n, j), its in slots.items():
        xml = "".join(x for x, _ in its)
        if len(derivations) == 1 or lms != "canvas":
            parts.append(xml)
            continue
        parts.append(
            f'<section ident="{tag}-g{n:03d}-{j:02d}" title="Question {n}.{j} (one of {len(its)} variants)">'
            "<selection_ordering><selection><selection_number>1</selection_number><selection_extension>"
            f"<points_per_item>{_pts(its[0][1])}</points_per_item></selection_extension></selection>"
            f"</selection_ordering>{xml}</section>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.imsglobal.org/xsd/ims_qtiasiv1p2 '
        'http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd">'
        f"<assessment ident={quoteattr(test_id or tag)} title={quoteattr(title)}>"
        + "<qtimetadata><qtimetadatafield><fieldlabel>cc_maxattempts</fieldlabel><fieldentry>1</fieldentry>"
        + "</qtimetadatafield></qtimetadata>"
        + f'<section ident="{test_id or tag}-root" title="root_section">{"".join(parts)}</section>'
        "</assessment></questestinterop>\n"
    )


def qti12_zip(derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "") -> bytes:
    """The package as zip bytes; ``tag`` (:func:`attncalc.reports.lms.set_tag`) prefixes every identifier."""
    tag = tag or f"attncalc-seed-{seed}"
    title = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    manifest = manifest_xml(tag)
    return package([("imsmanifest.xml", manifest), (f"{tag}/{tag}.xml", assessment(derivations, tag, title))])


def manifest_xml(tag: str) -> str:
    """An IMS content package's manifest of one QTI 1.2 resource, ``TAG/TAG.xml``."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<manifest xmlns="{CP}" identifier="{tag}-manifest"><metadata><schema>IMS Content</schema>'
        "<schemaversion>1.1.3</schemaversion></metadata><organizations/><resources>"
        f'<resource identifier="{tag}" type="imsqti_xmlv1p2"><file href="{tag}/{tag}.xml"/></resource>'
        "</resources></manifest>\n"
    )


def package(files: list[tuple[str, str]]) -> bytes:
    """The files as zip bytes (fixed dates and modes: the same set gives the same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for fname, text in files:
            info = zipfile.ZipInfo(fname, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, xml_chars(text).encode("utf-8"))
    return buf.getvalue()


def ilias_zip(derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "") -> bytes:
    """The package ILIAS's question pool import reads (``generate --format ilias``): ``ilias.zip``
    holding ``ilias/ilias.xml`` (ILIAS looks for ``<zip stem>/<zip stem>.xml``: keep the file's name), a
    ``questestinterop`` of every variant's items with ILIAS's ``QUESTIONTYPE`` and the worked step as the
    feedback it imports."""
    tag = tag or f"attncalc-seed-{seed}"
    title = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("ilias/ilias.xml", ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        z.writestr(info, xml_chars(assessment(derivations, tag, title, "ilias")).encode("utf-8"))
    return buf.getvalue()
