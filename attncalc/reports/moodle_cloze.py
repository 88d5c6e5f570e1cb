"""The Moodle quiz written by ``generate --format moodle-cloze``: one Cloze (``multianswer``) question per
variant, all in one category ``$course$/attncalc TAG/variants``, so that a quiz of ONE random question
from that category gives each student one whole variant (``--format moodle`` draws a variant per slot).

A question states the variant's givens (as ``--format moodle``'s questions do), then asks every entry of
every step in step order (:func:`attncalc.reports.lms.questions`, the entries ``--format moodle`` asks),
each as an embedded sub-question: a number as ``{W:NUMERICAL:=key:tol~=other accepted:tol~%P%slip:tol#note}``
(every value ``check`` accepts at full marks, each named slip at the slip share ``--format moodle``
gives it), a label as ``{W:MULTICHOICE_S:...}`` (shuffled). A Cloze mark ``W`` is a whole number: each
entry's weight is its exact share of its step's points (``check`` gives an entry ``points / entries``),
times the least common multiple of those shares' denominators, so the question's default mark (the sum
of its weights, as Moodle's importer computes it) is ``check``'s total times that factor, and the share of
its marks a student earns is ``check``'s score over its total. The worked steps are the general feedback.
What Moodle's importer reads (``qtype_multianswer_extract_question``) is written down in docs/lms.md."""

from __future__ import annotations

import html
import math
from fractions import Fraction

from ..derivation import Derivation
from .lms import Choice, Question, cdata, questions
from .lms_numbers import Number
from .moodle import MOODLE_MAX_BYTES, encoded_size, givens_html, moodle_document, slip_percent

# characters a Cloze answer or feedback cannot hold as they are: '}' '#' '~' end an answer, '}' '~' a
# feedback, a '\' or '&' before them changes that; the importer html_entity_decode()s both, so each is
# written as a character reference (whose '#' follows '&', which the answer's end does not match)
_CLOZE = {"&": "&amp;", "}": "&#125;", "~": "&#126;", "#": "&#35;", "\\": "&#92;", "{": "&#123;"}


def cloze_text(text: str) -> str:
    """``text`` as a Cloze answer or feedback that the importer decodes back to ``text`` exactly (a
    ``text`` ending in ``&`` would end in ``&amp;``, which the answer's end does not match: give it
    HTML-escaped, as :func:`cloze_html` does)."""
    return "".join(_CLOZE.get(c, c) for c in text)


def cloze_html(text: str) -> str:
    """Plain ``text`` shown as HTML (a label, a note) from a Cloze answer or feedback: HTML-escaped,
    then :func:`cloze_text` (the importer's decoding gives back the escaped HTML)."""
    return cloze_text(html.escape(text))


def _plain(text: str) -> str:
    """HTML of the question text outside the sub-questions with every ``{`` a character reference: no
    title, label or given starts a sub-question (``{1:NUMERICAL:...}``) or stands in for one (``{#1}``)."""
    return text.replace("{", "&#123;")


def weights(qs: list[Question]) -> tuple[list[list[int]], int]:
    """Per question its asked entries' Cloze marks, and the factor: each entry's exact share of its
    step's points (``check``'s ``points / entries``, the points as the problem's decimal) times the least
    common multiple of the shares' denominators, so every mark is a whole number and
    ``sum(marks) == check's total * factor``."""
    shares = [[Fraction(repr(float(q.points))) / len(q.asked)] * len(q.asked) for q in qs]
    factor = math.lcm(*(s.denominator for row in shares for s in row)) if any(shares) else 1
    return [[int(s * factor) for s in row] for row in shares], factor


def _mark(share: float) -> str:
    """A Cloze answer's grade: ``=`` for full marks, else ``%p%`` (Moodle's nearest answer grade)."""
    percent = slip_percent(share)
    return "=" if percent == "100" else f"%{percent}%"


def _sub(q: Question, e: Number | Choice, mark: int, tol: str) -> str:
    """One entry as an embedded sub-question."""
    if isinstance(e, Choice):
        # the right labels at full marks, a slip's chain's at the carried share (full marks by default), a slip
        # made here at the slip share, each with its note
        notes = {o: note for o, note, _ in e.slips}
        shares = q.option_shares(e)

        def grade(o: str) -> str:
            return _mark(shares[o]) if o in shares else ""

        options = "~".join(
            f"{grade(o)}{cloze_html(o)}{'#' + cloze_html(notes[o]) if o in notes else ''}" for o in e.options
        )
        return f"{{{mark}:MULTICHOICE_S:{options}}}"
    alts = [f"={a}:{tol}" for a in e.accepted]  # every value check accepts, at full marks
    # a named slip made at this step at the slip share; a value that follows from one made earlier (the
    # slip's chain) at the carried share (full marks by default), as check carries it
    alts += [f"{_mark(q.share_of(s.carried))}{s.value}:{tol}#{cloze_html(s.note)}" for s in e.slips]
    return f"{{{mark}:NUMERICAL:{'~'.join(alts)}}}"


def _question(d: Derivation, k: int) -> str:
    """Variant k as one Cloze question."""
    from .qti import worked

    tol = f"{0.5 * 10.0 ** (-d.decimals):g}"
    qs = [q for q in questions(d, k) if q.asked]
    marks, factor = weights(qs)
    total = sum(Fraction(repr(float(q.points))) for q in qs)
    out_of = f"{float(total):.12g}"
    title = "" if d.problem.title == f"Variant {k}" else f": {html.escape(d.problem.title)}"
    parts = [_plain(f"<p><b>Variant {k}</b>{title}</p>"), _plain(givens_html(d))]
    solutions = []
    for q, row in zip(qs, marks, strict=True):
        ask = f"Compute <b>{html.escape(q.title)}</b> [{q.step_id}]: {html.escape(q.ask)}."
        rule = f" {html.escape(q.precision)}" if q.precision else ""
        parts.append(_plain(f"<p>{ask}{rule}</p><ul>"))
        for e, mark in zip(q.asked, row, strict=True):
            verb = ": pick the label" if isinstance(e, Choice) else " ="
            parts.append(f"<li>{_plain(html.escape(e.label))}{verb} {_sub(q, e, mark, tol)}</li>")
        parts.append("</ul>")
        solutions.append(worked(q.step, q.shown, d.decimals))
    # the name says what the quiz slot is out of (Moodle sets a random slot's mark, not the question)
    name = html.escape(
        f"Variant {k}: out of {out_of}: set the quiz slot's Maximum mark to {out_of} "
        f"(the question's default mark is {out_of} x {factor})"
    )
    return (
        f'<question type="cloze"><name><text>{name}</text></name>'
        f'<questiontext format="html"><text>{cdata("".join(parts))}</text></questiontext>'
        f'<generalfeedback format="html"><text>{cdata("".join(solutions))}</text></generalfeedback>'
        "<penalty>0</penalty></question>"
    )


def _category(derivations: list[Derivation], seed: int, tag: str | None, about: str) -> str:
    top = f"attncalc {tag or f'seed-{seed}'}"
    info = (
        f"{about}: one Cloze question per variant ({len(derivations)}); a quiz of ONE random question from here "
        "gives each student one whole variant; set that slot's Maximum mark to check's total (each question's "
        "name says it)"
    )
    return (
        f'<question type="category"><category><text>$course$/{html.escape(top)}/variants</text></category>'
        f'<info format="html"><text>{html.escape(info)}</text></info></question>'
    )


def cloze_files(
    derivations: list[Derivation], seed: int, tag: str | None = None, name: str = "", limit: int = MOODLE_MAX_BYTES
) -> dict[str, str]:
    """The quiz as the files ``generate --format moodle-cloze`` writes: ``cloze.xml`` when it is at most
    ``limit`` bytes of UTF-8; else ``cloze-1.xml``, ``cloze-2.xml``, ... each the category, then whole
    questions (whole variants) in the set's order, each file at most ``limit`` bytes. A single variant's
    question over ``limit`` is refused (:class:`~attncalc.errors.ProblemError`)."""
    from ..errors import ProblemError

    about = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    category = _category(derivations, seed, tag, about)
    qs = [_question(d, k) for k, d in enumerate(derivations, 1)]
    whole = moodle_document([category, *qs])
    if encoded_size(whole) <= limit:
        return {"cloze.xml": whole}
    empty = encoded_size(moodle_document([category]))
    files: list[list[str]] = []
    current: list[str] = []
    size = empty
    for k, q in enumerate(qs, 1):
        more = encoded_size(q) + 1  # the question and its newline
        if empty + more > limit:
            raise ProblemError(
                "generate",
                "--format",
                f"moodle-cloze: variant {k}'s question is {empty + more:,} bytes, over the {limit:,} a file may "
                "have to pass Moodle's default 2 MB upload limit; use --format moodle (a question per entry)",
            )
        if current and size + more > limit:
            files.append(current)
            current, size = [], empty
        current.append(q)
        size += more
    files.append(current)
    return {f"cloze-{k}.xml": moodle_document([category, *lines]) for k, lines in enumerate(files, 1)}
