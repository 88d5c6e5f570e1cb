"""The Moodle quiz written by ``generate --format moodle``: per question slot (an entry of a step, asked
of every variant) a category holding every variant's question for it; per entry a numerical question
(every value ``check`` accepts at full marks, the named slips at the ``[grading]`` slip share with
their note as feedback) or a multiple-choice question (a label); the
step's points shared by its entries; the step worked out as the general feedback. Every question shows
the variant's givens as HTML tables, so each one can be answered on its own (Moodle shuffles and draws
questions one by one). What Moodle's importer reads is written down in docs/lms.md."""

from __future__ import annotations

import html
from typing import Any

from ..derivation import Derivation
from ..render.setup import setup_lines
from .givens import given_tables, table_rows
from .lms import Choice, cdata, questions, xml_chars

# the grades Moodle's question import accepts for an answer (question/format.php checks each answer's
# fraction against question_bank::fraction_options_full(); any other value refuses the question)
GRADES = (
    1.0, 0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2,
    0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05, 0.0,
)  # fmt: skip


def moodle_grade(share: float) -> float:
    """The largest grade Moodle accepts that is at most ``share`` (0.5 stays 0.5, 0.55 becomes 0.5)."""
    return max(g for g in GRADES if g <= share + 1e-9)


def slip_warning(fmt: str, share: float | None) -> str:
    """``generate``'s warning where Moodle cannot give the slip share ``check`` gives (its answer grades are
    a fixed list: 0.55 becomes 50 %); empty for another format or a share on the list."""
    if fmt not in ("moodle", "moodle-cloze") or share is None or abs(moodle_grade(share) - share) < 1e-6:
        return ""
    grade = moodle_grade(share)
    return (
        f"attncalc: warning: --slip-share {share:g} is not one of Moodle's answer grades: the quiz gives a slip "
        f"{slip_percent(share)} % ({grade:g} of its points), check {share:g}; for the same share in both, "
        f"choose one of {', '.join(f'{g:g}' for g in GRADES if 0 < g < 1)}\n"
    )


def slip_percent(share: float) -> str:
    return f"{100 * moodle_grade(share):.7g}"


def _categories(derivations: list[Derivation], seed: int, tag: str | None, name: str) -> list[tuple[str, list[str]]]:
    """Each question slot's lines: its category, then its question of every variant."""
    from .qti import worked

    tag = tag or f"seed-{seed}"
    top = f"attncalc {tag}"  # the tag holds the set's name
    slots: dict[tuple[int, int], list[str]] = {}  # (step, entry) -> that question of every variant
    titles: dict[tuple[int, int], str] = {}
    marks: dict[tuple[int, int], str] = {}  # (step, entry) -> its points (a quiz's variants: the same)
    for k, d in enumerate(derivations, 1):
        tol = f"{0.5 * 10.0 ** (-d.decimals):g}"
        givens = givens_html(d)
        title = "" if d.problem.title == f"Variant {k}" else f": {html.escape(d.problem.title)}"
        head = f"<p><b>Variant {k}</b>{title}</p>{givens}"
        for q in questions(d, k):
            ask = f"Compute <b>{html.escape(q.title)}</b> [{q.step_id}]: {html.escape(q.ask)}."
            solution = f'<generalfeedback format="html"><text>{cdata(worked(q.step, q.shown, d.decimals))}</text></generalfeedback>'
            for j, e in enumerate(q.asked, 1):
                titles.setdefault((q.number, j), f"{q.step_id} {e.label}")
                marks.setdefault((q.number, j), f"{q.points_of(e):.12g}")
                name_ = html.escape(f"Variant {k}: {q.title} [{q.step_id}] {e.label}")
                common = f"<name><text>{name_}</text></name>"
                grade = f"<defaultgrade>{q.points_of(e):.12g}</defaultgrade>"
                if isinstance(e, Choice):  # a label: one of the options, never a number
                    rule = f" {html.escape(q.precision)}" if q.precision else ""
                    text = f"{head}<p>{ask}{rule}</p><p>{html.escape(e.label)}: pick the label.</p>"
                    # the right labels at full marks; a slip's chain's at the carried share (full marks by
                    # default), a slip made here at the slip share
                    shares = q.option_shares(e)
                    notes = {o: note for o, note, _ in e.slips}
                    answers = "".join(
                        f'<answer fraction="{slip_percent(shares[o]) if o in shares else 0}">'
                        f"<text>{html_text(o)}</text>"
                        + (
                            f'<feedback format="html"><text>{cdata(f"<p>{html.escape(notes[o])}</p>")}</text></feedback>'
                            if o in notes
                            else ""
                        )
                        + "</answer>"
                        for o in e.options
                    )
                    slots.setdefault((q.number, j), []).append(
                        f'<question type="multichoice">{common}'
                        f'<questiontext format="html"><text>{cdata(text)}</text></questiontext>{solution}{grade}'
                        "<single>true</single><shuffleanswers>true</shuffleanswers><answernumbering>none</answernumbering>"
                        f"{answers}</question>"
                    )
                    continue
                text = f"{head}<p>{ask} {q.precision}</p><p>{html.escape(e.label)} = ?</p>"
                # every value check accepts at full marks, then the named slips at the slip share (a value of a
                # slip's chain after the step where it was made at full marks, as check carries it)
                answers = "".join(
                    f'<answer fraction="100"><text>{a}</text><tolerance>{tol}</tolerance></answer>' for a in e.accepted
                )
                answers += "".join(
                    f'<answer fraction="{slip_percent(q.share_of(s.carried))}"><text>{s.value}</text><tolerance>{tol}</tolerance>'
                    f'<feedback format="html"><text>{cdata(f"<p>{html.escape(s.note)}</p>")}</text></feedback></answer>'
                    for s in e.slips
                )
                slots.setdefault((q.number, j), []).append(
                    f'<question type="numerical">{common}'
                    f'<questiontext format="html"><text>{cdata(text)}</text></questiontext>{solution}{grade}'
                    f"{answers}</question>"
                )
    blocks: list[tuple[str, list[str]]] = []
    about = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    for (n, j), qs in slots.items():
        info = (
            f"{about}: question {n}.{j} ({titles[(n, j)]}) of each of the {len(qs)} variants; one random question "
            f"from here, its slot's Maximum mark {marks[(n, j)]} (each question's default mark)"
        )
        category = (
            f'<question type="category"><category><text>$course$/{html.escape(top)}/Q{n:03d}.{j:02d}</text></category>'
            f'<info format="html"><text>{html_text(info)}</text></info></question>'
        )
        blocks.append((f"Q{n:03d}.{j:02d}", [category, *qs]))
    return blocks


def moodle_xml(derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "") -> str:
    """The quiz as Moodle XML: well-formed, question texts as XHTML in CDATA. A category per question
    slot (an entry asked of every variant: ``$course$/attncalc TAG/Q003.02``, under one named by ``tag``,
    :func:`attncalc.reports.lms.set_tag`) holding that entry's question of every variant, each worth the
    same points (a quiz's variants have one shape): a quiz of one random question per category gives each
    student one variant of each question and is out of ``check``'s total."""
    return moodle_document([line for _, lines in _categories(derivations, seed, tag, name) for line in lines])


# PHP's default upload_max_filesize is 2M (2,097,152 bytes), and Moodle's own upload limit is at most
# PHP's: a file is kept to 2,000,000 bytes, under 2 MB read either way, with room for the upload's own
# framing
MOODLE_MAX_BYTES = 2_000_000


def moodle_files(
    derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "", limit: int = MOODLE_MAX_BYTES
) -> dict[str, str]:
    """The quiz as the files ``generate --format moodle`` writes: ``quiz.xml`` (:func:`moodle_xml`, byte
    for byte) when it is at most ``limit`` bytes of UTF-8; else ``quiz-1.xml``, ``quiz-2.xml``, ... each a
    whole quiz of whole categories (a slot's category with every variant's question for it, so that a
    random question from it still draws any variant) in the set's order, each at most ``limit`` bytes.
    A single category over ``limit`` is refused (:class:`~attncalc.errors.ProblemError`)."""
    from ..errors import ProblemError

    blocks = _categories(derivations, seed, tag, name)
    whole = moodle_document([line for _, lines in blocks for line in lines])
    if encoded_size(whole) <= limit:
        return {"quiz.xml": whole}
    files: list[list[str]] = []
    current: list[str] = []
    size = empty = encoded_size(moodle_document([]))
    for slot, lines in blocks:
        more = sum(encoded_size(line) + 1 for line in lines)  # each line and its newline (xml_chars works char by char)
        if empty + more > limit:
            raise ProblemError(
                "generate",
                "--count",
                f"--format moodle: question slot {slot} (one question of each of the {len(derivations)} variants) "
                f"is {empty + more:,} bytes, over the {limit:,} a file may have to pass Moodle's default 2 MB "
                "upload limit; draw fewer variants",
            )
        if current and size + more > limit:
            files.append(current)
            current, size = [], empty
        current += lines
        size += more
    files.append(current)
    return {f"quiz-{k}.xml": moodle_document(lines) for k, lines in enumerate(files, 1)}


def moodle_document(lines: list[str]) -> str:
    return xml_chars("\n".join(['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>", *lines, "</quiz>"]) + "\n")


def encoded_size(text: str) -> int:
    return len(xml_chars(text).encode("utf-8"))


def givens_html(d: Derivation) -> str:
    """The givens of a derivation: one small table per input (title = its key in the problem file),
    then the mask, the targets and the settings that decide the answers, when the problem has them."""
    parts = ["<p>Given:</p>"]
    for key, caption, value, rows, decimals, cols in given_tables(d):
        body = "".join(table_rows(value, rows, decimals, cols, _e))
        parts.append(f'<table title="{_e(key)}" border="1"><caption>{_e(caption)}</caption>{body}</table>')
    for key, line in setup_lines(d.problem):
        parts.append(f'<p title="{key}">{_e(line)}</p>')
    return "".join(parts)


def html_text(text: str) -> str:
    """Plain text (a label, a title) in an XML field that Moodle reads as HTML (a multiple-choice
    answer takes its question's format, ``html``; a category's ``<info format="html">``): escaped for
    HTML, then for XML, so that Moodle shows ``<img ...>`` as those characters, never as markup."""
    return html.escape(html.escape(text))


def _e(text: Any) -> str:
    return html.escape(str(text))
