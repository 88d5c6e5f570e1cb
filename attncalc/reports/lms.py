"""What every LMS export (Moodle XML, QTI 2.1, QTI 1.2) asks and accepts, worked out once.

Per variant and step a :class:`Question`: its points (the problem's ``[grading]``, a vector's entries
sharing its step's points), and per entry either a number or a choice of labels. A number accepts at
full marks every value ``attncalc check`` accepts from work done at the asked decimals without the
student's own earlier answers: the key (the true value rounded half away from zero) and the hand chain
(every step rounded to the asked decimals and carried forward: as the hand mode works it, and with each
step exact from the carried ones), and each step from the rounded key of the earlier steps, with and
without the maximum subtracted before the exponentials; each within half a unit of the last decimal. A
named slip (:func:`attncalc.kinds.mistakes.every_mistake`, made at this step on the true earlier values or on the
rounded key, or from the start of the hand chain)
whose rounded value is none of those becomes an answer worth the problem's ``slip`` share, with check's
note as its feedback. A label (a prediction, a decode's token, a beam) is a choice; a beam search's kept
beams are one choice per rank among every candidate.

The identifiers of a homework set (:func:`set_tag`) follow from its problems (so from its kind, options
and seed) and its name (``generate --name``), so that two sets never share one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..check.points import copy_steps, step_points
from ..derivation import Argmax, Derivation, Step
from ..derivation.arith import round_half_up
from ..kinds.mistakes import every_mistake
from ..render.asked import asks_sentence, pair_slots, tie_rule
from .lms_defs import ask
from .lms_label_slips import as_step_of, label_slips, places, with_slips
from .lms_numbers import SHIFTS, Number, numbers
from .lms_slip_chain import keyed_slip_chain

# a bpe pair table after merge 1 asks as many counts as the corpus's words have adjacent places (one per
# true pair would say how the earlier merges went); the places past the pairs are answered 0
PAIRS_PRECISION = (
    "Give a count (a whole number) for each distinct pair of your words before this merge, in the order the "
    "pairs first occur, and 0 for each place past your last pair."
)


@dataclass(frozen=True)
class Choice:
    label: str  # what is asked: "ŷ", "beams, rank 1"
    options: tuple[str, ...]
    correct: tuple[str, ...]  # the right labels (several when probabilities tie)
    # a named slip's labels (lms_label_slips): (option, check's note, carried): made at this step the slip
    # share, following from a slip made earlier (its chain) full marks, as check carries it
    slips: tuple[tuple[str, str, bool], ...] = ()

    @property
    def full(self) -> tuple[str, ...]:
        """The options worth full marks: the right labels and those of a slip's chain."""
        return self.correct + tuple(o for o, _, carried in self.slips if carried)


@dataclass(frozen=True)
class Question:
    variant: int
    number: int  # the step's place in the derivation, from 1
    step: Step
    step_id: str
    title: str
    formula: str
    shown: Any  # the key as the answers file writes it
    points: float
    decimals: int
    slip_share: float
    entries: tuple[Number | Choice, ...]
    precision: str = ""  # what a number asks: "Give 3 decimals.", "Give a count (a whole number)."
    # the formula as the item shows it: in words where it states its value, then the formulas of the earlier
    # steps it uses ("..., where Z = Σ_j exp(e_j); and e_i = s · h_i"), so the item stands on its own
    ask: str = ""
    carried_share: float = 1.0  # what a value following from a slip made earlier earns ([grading] carried)

    def share_of(self, carried: bool) -> float:
        """The share of an entry's points a named slip's value earns: one of its chain (made at an earlier
        step) the carried share, one made at this step the slip share, as check gives them."""
        return self.carried_share if carried else self.slip_share

    def option_shares(self, e: Choice) -> dict[str, float]:
        """Each option of a choice worth anything, with its share: the right labels 1, a slip's label as
        :meth:`share_of` says."""
        return {**{o: self.share_of(c) for o, _, c in e.slips}, **dict.fromkeys(e.correct, 1.0)}

    @property
    def asked(self) -> list[Number | Choice]:
        """The entries a student answers (a masked −∞ is shown, not asked)."""
        return [e for e in self.entries if not (isinstance(e, Number) and e.masked)]

    def points_of(self, entry: Number | Choice) -> float:
        """What one asked entry is worth: the step's points shared by its entries, each rounded to 6
        decimals and the remainder given to the last, so that they sum (written out) to the step's points
        exactly (1 point over 3 entries: 0.333333, 0.333333, 0.333334)."""
        asked = self.asked
        share = round(self.points / max(1, len(asked)), 6)
        if entry is asked[-1]:
            return round(self.points - share * (len(asked) - 1), 6)
        return share


NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,58}[A-Za-z0-9._-])?")  # no space at its end


# characters XML 1.0 does not allow anywhere, not even as a character reference: C0 controls but tab,
# line feed and carriage return; lone surrogates; U+FFFE and U+FFFF; and those it allows but asks
# documents to avoid (XML 1.0 section 2.2: "discouraged"), which reach the quiz's reader raw: DEL and the
# C1 controls (U+007F to U+009F), and the noncharacters U+FDD0 to U+FDEF and U+nFFFE, U+nFFFF of every plane
_NOT_XML = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(1, 17))
    + "]"
)


def xml_chars(text: str) -> str:
    """A document with every character XML 1.0 forbids written as a visible escape (``\\x07``), as a
    message shows it: an export of any title, token or label is well-formed."""
    from ..errors import escape

    return _NOT_XML.sub(lambda m: escape(m.group()), text)


def cdata(text: str) -> str:
    """``text`` as a CDATA section, whatever it holds: a ``]]>`` inside closes one section and opens the next."""
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def check_name(name: str) -> None:
    """A set's name (``generate --name``): up to 60 letters, digits, spaces, dots, dashes and underscores,
    starting with a letter or digit and not ending with a space (it names the quiz in the LMS and goes into
    its identifiers: "week 5 " would be a second set beside "week 5")."""
    from ..errors import ProblemError

    if name and not NAME.fullmatch(name):
        raise ProblemError(
            "generate",
            "--name",
            f"{name[:60]!r} is not a set name: use up to 60 letters, digits, spaces, '.', '-' or '_', "
            "starting with a letter or digit, no space at its end (week5)",
        )


def set_tag(problems: list[dict[str, Any]], seed: int, name: str = "") -> str:
    """The set's identifier prefix: its name (letters, digits, - and _ only) and a digest of its problems
    and name, e.g. ``week5-3fa9c2d1``; ``set-…`` without a name. A valid XML name (an NCName)."""
    digest = hashlib.sha256(repr((seed, name, problems)).encode("utf-8")).hexdigest()[:8]
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_")[:40]
    if not slug or not slug[0].isalpha():
        slug = f"set-{slug}" if slug else "set"
    return f"{slug}-{digest}"


def questions(d: Derivation, variant: int) -> list[Question]:
    """Every step of a derivation as an LMS question."""
    from ..check.answers import Answer
    from ..check.runs import Runs
    from ..mechanisms import solve
    from ..render.json import to_dict

    p = d.problem
    truth = solve(p, exact=False, carry_rounded=False)
    points = step_points(p.grading, truth.step_ids, p.path, copy_steps(truth))  # as check does
    answers = [
        Answer(s.id, np.asarray(s.value, dtype=float), None) for s in truth.steps if not isinstance(s.value, str)
    ]
    plain = Runs(p, [])  # the hand chain
    # the true labels too: a slip made at a number step is made on the true merges before it, not on merges
    # the slip would have chosen
    key_labels = [Answer(s.id, s.value, None) for s in truth.steps if isinstance(s.value, str)]
    on_truth = Runs(p, [*answers, *key_labels])  # a step recomputed from the true earlier values (a slip made here)
    # a step recomputed from the key (the true values rounded to the asked decimals) of the steps before it:
    # one step of carry from a student's correctly rounded answers, which check accepts as consistent
    keyed = Runs(p, [*(Answer(a.id, _rounded(np.asarray(a.values), d.decimals), None) for a in answers), *key_labels])
    chains = {shift: carried(p, d.decimals, shift) for shift in SHIFTS}
    named = slips_in_chains(p, d.decimals, plain, keyed)
    labelled, after_label = label_slips(d, d.decimals, plain)
    for k, found in after_label.items():
        named.setdefault(k, []).extend(found)
    out = []
    for n, (step, s) in enumerate(zip(d.steps, to_dict(d)["steps"], strict=True), 1):
        if points[s["id"]] == 0:  # worth nothing in check (a copy, by default): not asked
            continue
        if isinstance(step.value, str):  # a label, or tokens as one string (JSON gives tokens as a list)
            s = {**s, "shown": step.shown if isinstance(step.shown, str) else step.value}
        if isinstance(step, Argmax):
            mine = with_slips(_choices(d, step), labelled.get(step.id, []), p.grading.carried < p.grading.slip)
            entries: tuple[Number | Choice, ...] = _off_rank(tuple(_seeded(c, variant, s["id"]) for c in mine))
        else:
            entries = tuple(numbers(d, step, s["shown"], plain, on_truth, keyed, chains, named.get(step.id, [])))
        # a choice states the order of ties where the step has one; a number, what it asks
        precision = tie_rule(step) if isinstance(step, Argmax) else asks_sentence(step, d)
        if pair_slots(d, step) > len(entries):  # (a bpe pair table after merge 1: how many pairs is not said)
            entries += tuple(places(d, step, named.get(step.id, []), len(entries), pair_slots(d, step)))
            precision = PAIRS_PRECISION
        out.append(
            Question(
                variant,
                n,
                step,
                s["id"],
                s["title"],
                s["formula"],
                s["shown"],
                points[s["id"]],
                d.decimals,
                p.grading.slip,
                entries,
                precision,
                ask(d, n - 1),
                p.grading.carried,
            )
        )
    return out


def shape(d: Derivation) -> tuple[tuple[str, str, int, float], ...]:
    """What a variant's quiz asks, in order: per step its id, whether it is a choice or a number, how many
    entries are asked and the step's points (as :func:`questions` asks them, without working out the
    accepted values). Two variants of one shape give the same questions, each worth the same points: a
    quiz that draws a variant per student (QTI 2.1's selection of one variant's section) or a variant per
    question slot (a Canvas question group, a Moodle random slot) is then out of ``check``'s total for
    whichever variants it draws."""
    p = d.problem
    points = step_points(p.grading, [s.id for s in d.steps], p.path, copy_steps(d))
    out = []
    for step in d.steps:
        if isinstance(step, Argmax):
            out.append((step.id, "choice", len(_choices(d, step)), points[step.id]))
            continue
        if isinstance(step.value, str):
            out.append((step.id, "label", 1, points[step.id]))
            continue
        with np.errstate(all="ignore"):
            values = np.ravel(np.asarray(step.value, dtype=float))
        asked = int(np.isfinite(values).sum())
        slots = pair_slots(d, step)  # a bpe pair table after merge 1 asks a place per adjacent pair
        out.append((step.id, "number", slots if slots > values.size else asked, points[step.id]))
    return tuple(out)


def _seeded(c: Choice, variant: int, step_id: str) -> Choice:
    """The choice with its options in a seeded order (the LMS shuffles them again where it can): never
    the key in its own order (a bpe rank k's right option k-th, the merges in the learned order); the same
    the same order for the same set. The order follows from the variant, the step, what is asked
    and the options themselves, so a re-drawn set gives the same bytes."""
    import random

    digest = hashlib.sha256(repr((variant, step_id, c.label, c.options)).encode("utf-8")).hexdigest()
    order = list(c.options)
    random.Random(int(digest[:16], 16)).shuffle(order)
    return dataclasses.replace(c, options=tuple(order))


def _off_rank(choices: tuple[Choice, ...]) -> tuple[Choice, ...]:
    """The seeded orders, with the last choice's options turned until its option r is not worth marks, where
    in every rank r a right option (the key's, or a slip chain's) came out as option r by chance of the shuffle."""
    at_rank = [r < len(c.options) and c.options[r] in c.full for r, c in enumerate(choices)]
    if len(choices) < 2 or not all(at_rank):
        return choices
    last, r = choices[-1], len(choices) - 1
    for turn in range(1, len(last.options)):
        options = (*last.options[turn:], *last.options[:turn])
        if options[r] not in last.full:
            return (*choices[:-1], dataclasses.replace(last, options=options))
    return choices


def _choices(d: Derivation, step: Argmax) -> tuple[Choice, ...]:
    from .lms_tokens import encode_options, merge_options, rank_names, rank_options

    labels = tuple(step.labels) or (str(step.value),)
    # bpe's lists of tokens: each item among what a slip would make of it, not among the true items
    encoded = encode_options(d, step)
    if encoded is not None:
        return (Choice(step.symbol, encoded, (str(step.value),)),)
    merge = merge_options(d, step)
    if merge is not None:
        return (Choice(step.symbol, merge, step.tied()),)
    per_rank = rank_options(d, step)
    if per_rank is not None:
        named = rank_names(d, step)  # a bpe word's question says which word it asks about
        return tuple(
            Choice(f"{step.symbol}, rank {r}{named[r - 1] if r <= len(named) else ''}", options, (lab,))
            for r, (options, lab) in enumerate(zip(per_rank, labels, strict=True), 1)
        )
    if str(step.value) in labels:
        return (Choice(step.symbol, labels, step.tied()),)
    # a beam search's new beams ("beam 2: dog, beam 1: mat"): per rank, one of every candidate
    cand = next((c for c in d.steps if c.id == "candidates"), None)
    options = labels
    if cand is not None and cand.rows is not None and cand.cols is not None:
        options = tuple(f"{b}: {v}" for b in cand.rows for v in cand.cols)
    return tuple(Choice(f"{step.symbol}, rank {r}", options, (lab,)) for r, lab in enumerate(labels, 1))


def carried(p: Any, decimals: int, shift: str | None) -> dict[str, np.ndarray]:
    """The chain a student works by hand as check accepts it: each step computed exactly (√d_k unrounded)
    from the earlier steps' carried values, then rounded to the asked decimals and carried on
    ("consistent with your own rounded earlier answers", at every step). ``shift`` as in :class:`Runs`."""
    import dataclasses

    from ..check.runs import as_step
    from ..derivation.arith import Chain, MistakeNotApplicable, StopRun
    from ..mechanisms import MECHANISMS

    mech = MECHANISMS[p.kind]
    if shift is not None:
        p = dataclasses.replace(p, settings=dataclasses.replace(p.settings, shift_max=shift))
    got: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        truth = {s.id: s for s in mech.run(p, Chain("float", decimals))}
    for sid, step in truth.items():
        if isinstance(step.value, str):
            continue
        chain = Chain("float", decimals, overrides=dict(got) or None, stop_after=sid)
        try:
            with np.errstate(all="ignore"):
                mech.run(p, chain)
        except StopRun:
            pass
        except (MistakeNotApplicable, ValueError, IndexError, ZeroDivisionError):
            break
        if sid in chain.computed:
            got[sid] = _rounded(as_step(chain.computed[sid], step), decimals)
    return got


def slips_in_chains(
    p: Any, decimals: int, plain: Any, keyed: Any
) -> dict[str, list[tuple[str, Any, np.ndarray, np.ndarray]]]:
    """Per step, a slip made in the hand chain (the slip on from the start, rounded and carried, as check
    recomputes a slip made from the start) and a slip made at the step on the rounded key of the steps
    before it, with their values at the asked decimals, where they change the step, and per entry whether
    the value only follows from the slip made at an earlier step: the step recomputed without the slip
    from the chain's own earlier (rounded) values gives it, so check carries it at full marks
    ("consistent with your own earlier answers"), and the LMS lists it at full marks too."""
    from ..check.answers import Answer
    from ..check.runs import Runs
    from ..check.slips import mistake_args

    out: dict[str, list[tuple[str, Any, np.ndarray, np.ndarray]]] = {}
    truth = plain.get("float")
    if truth is None:
        return out
    order = [k for k, st in truth[1].items() if not isinstance(st.value, str)]
    hand = plain.get("hand", decimals)
    key_of = {k: np.asarray(v, dtype=float) for k, v in keyed.overrides.items()}
    for name in every_mistake():
        if not order or not plain.slip_reaches(name, order[-1]):
            continue
        for arg in mistake_args(p, name):
            run = plain.get("hand", decimals, mistake=name, arg=arg)
            own: Any = None  # the slipped chain's values as a student's answers (built when first needed)
            start: str | None = None  # the first step the slip changes, made on the key of the steps before it
            for k in order:
                if run is not None and hand is not None and k in run[0] and k in hand[0]:
                    v, base = as_step_of(run, k), as_step_of(hand, k)
                    if v.shape == base.shape and not np.allclose(v, base, equal_nan=True):
                        if own is None:  # the slipped chain's numbers and labels (a merge chosen), as answers
                            own = Runs(p, [*(Answer(j, as_step_of(run, j), None) for j in order if j in run[0]),
                                           *_labels_of(run, truth)])  # fmt: skip
                        carried_on = np.zeros(v.size, dtype=bool)
                        for mode in ("float", "hand"):  # one run each, every own value carried in
                            follows = own.value(k, mode, decimals, overrides=True)
                            if follows is not None and follows.shape == v.shape:
                                carried_on |= np.ravel(_rounded(follows, decimals) == _rounded(v, decimals))
                        out.setdefault(k, []).append((name, arg, np.ravel(v), carried_on))
                w = keyed.value(k, "float", decimals, overrides=True, mistake=name, arg=arg, stop_after=k)
                key = keyed.value(k, "float", decimals, overrides=True, stop_after=k)
                if (
                    w is not None
                    and key is not None
                    and w.shape == key.shape
                    and not np.allclose(w, key, equal_nan=True)
                ):
                    out.setdefault(k, []).append((name, arg, np.ravel(w), np.zeros(w.size, dtype=bool)))
                    start = start or k
            if start is not None:  # the slip's chain from the key, made at its step and carried on
                for shift in SHIFTS if plain.shifts_matter else (None,):
                    for j, found in keyed_slip_chain(p, decimals, key_of, order, start, (name, arg), shift).items():
                        out.setdefault(j, []).extend(found)
    return out


def _labels_of(run: Any, truth: Any) -> list[Any]:
    """A run's label steps (bpe's merges and words, a prediction) as answers, so that a number recomputed
    from a slipped chain takes its labels too (a pair count after a merge chosen with the other tie rule)."""
    from ..check.answers import Answer

    return [
        Answer(k, s.value, None)
        for k, s in run[1].items()
        if isinstance(s.value, str) and k in truth[1] and isinstance(truth[1][k].value, str)
    ]


def _rounded(x: np.ndarray, decimals: int) -> np.ndarray:
    return np.vectorize(lambda v: round_half_up(float(v), decimals), otypes=[float])(x) if x.size else x
