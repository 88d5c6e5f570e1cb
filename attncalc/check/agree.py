"""Which entries of an answer a chain reaches: the true values, the answerer's own chains (from their
earlier answers, exact or hand-rounded at each precision they wrote), the bounds a step's formula gives
over those answers, and slips named earlier carried on. check's ``_grade`` asks it twice: once over the
true chain (is the answer right?) and once over the answerer's own (is it right given their answers?)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .answers import Answer, Tolerance, close_all
from .picks import Context
from .runs import Runs
from .slips import slip_carried, within_rounding


@dataclass
class Entries:
    """An answer's entries as written: its values, each entry's decimals (negative for an exact form)
    and the entries written "?" (not graded, so they match anything)."""

    given: np.ndarray
    decs: np.ndarray
    tol: Tolerance
    scale: float = 1.0  # the bytes of the unit written ("145.5 GiB": 2^30), or 10^k for a count "5.88e23"
    # decisions (accept flags, chosen indices, integer codes): every entry whole, as their true values
    # are. One chain decides them all: entries of one chain mixed with another's are neither's
    decision: bool = False
    open_: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.open_ = np.array(np.isnan(self.given), dtype=bool)

    def join(self, hit: np.ndarray, more: np.ndarray) -> np.ndarray:
        """Two chains' entries together: every entry either reaches (numbers), or, for decisions, the
        entries of the one that reaches more (the first on a tie): an answer whose first flag follows
        the rounded chain and second the true one follows neither."""
        if not self.decision:
            return np.asarray(hit | more, dtype=bool)
        return more if int(more.sum()) > int(hit.sum()) else hit

    def matches(self, target: np.ndarray | None, units: float = 0.5, chain_decimals: int | None = None) -> np.ndarray:
        """Entries of the answer that are ``target`` as written. A hand chain rounded to
        ``chain_decimals`` is matched only by entries written to at most that many decimals: 0.500
        is not the 1-decimal chain's 0.5 (a student who wrote three decimals worked to three)."""
        given, decs, open_ = self.given, self.decs, self.open_
        if target is None or target.shape != given.shape:
            return open_.copy()
        hit = close_all(self.tol, given, target, decs, units * (self.scale if self.tol.plain else 1.0))
        if chain_decimals is not None:
            hit &= ~((decs >= 0) & (decs > chain_decimals))
        return np.asarray(open_ | hit, dtype=bool)

    def within(self, bounds: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """Entries inside the bounds the step's formula gives over the answerer's earlier answers,
        widened by half a unit of the entry's own last decimal (0 for an exact form)."""
        given, decs, open_ = self.given, self.decs, self.open_
        if bounds is None or bounds[0].shape != given.shape:
            return open_.copy()
        lo, hi = bounds
        scale = self.scale if self.tol.plain else 1.0
        half = np.where(decs >= 0, 0.5 * scale * 10.0 ** -np.clip(decs, 0, None), 0.0) * (1 + 1e-9) + 1e-12
        with np.errstate(invalid="ignore", over="ignore"):
            # bounds are a superset of what the earlier answers can give: over a long chain (a 256-step
            # recurrence) they widen until they take any answer; bounds wider than a tenth of their own
            # size and 20 half units of the entry's decimals say nothing, and give no credit
            tight = (hi - lo) <= LOOSE * np.maximum(np.abs(lo), np.abs(hi)) + 20 * half
            ok = np.isfinite(lo) & np.isfinite(hi) & tight & (given >= lo - half) & (given <= hi + half)
        return np.asarray(open_ | ok, dtype=bool)


LOOSE = 0.1  # bounds wider than this share of their size (and 20 half units) take no answer: see within


@dataclass
class Agreement:
    """What ``agree`` needs about one answer, and what it records for the notes: the hand chains
    (shift, decimals) matching every entry, and per entry what it matched (the true value, or a hand
    chain), for a note when the entries of one answer match different chains."""

    ans: Answer
    runs: Runs
    true: np.ndarray
    e: Entries
    ctx: Context
    shifts: tuple[str | None, ...]
    precisions: list[int]
    unrounded: frozenset[str]
    carried_slips: list[tuple[str, int | None]]
    recompute: bool = True  # an earlier answer not wrong: the unrounded run (``unrounded``) is made
    hand_only: list[tuple[str | None, int]] = field(default_factory=list)
    seen: list[tuple[tuple[str | None, int] | None, np.ndarray]] = field(default_factory=list)


def agree(a: Agreement, overrides: bool) -> tuple[np.ndarray, bool]:
    """Entries matching the true (or the answerer's own) chain, exact or hand-rounded; and whether
    one variant (the maximum subtracted or not, as the answerer chose) matches every entry."""
    e, runs, ans = a.e, a.runs, a.ans
    # the answerer's own chains are the shared ones when no answer of theirs comes before this step
    own = overrides and runs.own_numbers_reach(ans.id)
    best = np.zeros(e.given.shape, dtype=bool)
    whole = False
    for maybe in a.shifts:  # exponentials with or without the maximum subtracted are both right
        hit = _shift_hits(a, overrides, own, maybe)
        if maybe is None or hit.sum() > best.sum():  # judge entries by the variant followed most
            best = hit
        whole = whole or bool(hit.all())
        if overrides and best.all():
            break
    if own and not best.all() and e.tol.plain:
        hit = within_rounding(ans.id, runs, e.given, e.decs, e.open_, a.unrounded)
        best = e.join(best, hit)
        whole = whole or bool(hit.all())
    if overrides and a.carried_slips and not best.all():
        hit, slip_whole = slip_carried(ans.id, runs, e.matches, a.precisions, a.carried_slips, a.ctx.answers, e.tol)
        # a slip carried on gives the whole step; short of that, the entries of the chain followed most
        # count (one chain's entries mixed with another's are neither's: a typo among slipped entries
        # is the one entry wrong)
        if slip_whole:
            best, whole = best | hit, True
        elif hit.sum() > best.sum():
            best = hit
    return best, whole


def _shift_hits(a: Agreement, overrides: bool, own: bool, maybe: str | None) -> np.ndarray:
    """The entries one variant (the maximum subtracted or not) reaches, exact or hand-rounded."""
    e, runs, ans = a.e, a.runs, a.ans
    hit = e.matches(a.true) if maybe is None and not overrides else np.zeros(e.given.shape, dtype=bool)
    hit = e.join(hit, e.matches(runs.value(ans.id, "float", overrides=own, shift=maybe)))
    if not overrides:
        a.seen.append((None, hit.copy()))
    elif own and not hit.all() and not e.decision and runs.answered_before(ans.id):
        # anywhere the answerer's numbers, as written, can take the step (bounds are entry by entry: a
        # decision's entries within them together may be no run's). Only where an answer comes before
        # the step: with none, the numbers are the true ones, and the bounds (a superset, loose over a
        # long chain: a 256-step recurrence's loss bounded by hundreds) would take any answer.
        hit = e.join(hit, e.within(runs.interval(ans.id, shift=maybe)))
    # from the answerer's own answers only the entries matched count: once all are, no other chain can add one
    enough = overrides and bool(hit.all())
    if overrides and a.recompute and not enough:
        hit = e.join(
            hit, e.matches(runs.value(ans.id, "float", overrides=own, shift=maybe, without=a.unrounded, patched=True))
        )
    for k in a.precisions if not enough else ():
        if not follows(runs, ans.id, "hand", k, own, maybe):
            continue  # a decision the answerer's own right answers contradict: not their chain
        chain = e.matches(runs.value(ans.id, "hand", k, overrides=own, shift=maybe), chain_decimals=k)
        if not overrides and chain.all():
            a.hand_only.append((maybe, k))
        if not overrides:
            a.seen.append(((maybe, k), chain))
        hit = e.join(hit, chain)
    return hit


def follows(runs: Runs, step_id: str, mode: str, decimals: int, overrides: bool, shift: str | None) -> bool:
    """Whether a run reaches, at every discrete step before ``step_id`` the answerer got right, the
    answerer's own value (:attr:`~attncalc.check.runs.Runs.decided`): a hand chain whose rounding accepts a draft the answerer
    rightly rejected takes its later steps from another decision, which their answers contradict."""
    limit = runs._index.get(step_id)
    earlier = [k for k in runs.decided if limit is not None and runs._index.get(k, limit) < limit]
    if not earlier:
        return True
    got = runs.get(mode, decimals, overrides=overrides, shift=shift, light=True)
    if got is None:
        return True  # (no run: it credits nothing anyway)
    for k in earlier:
        if k not in got[0]:
            continue
        reached = np.asarray(got[0][k], dtype=float).reshape(-1)
        mine = runs.decided[k].reshape(-1)
        if reached.shape != mine.shape or not np.allclose(reached, mine, rtol=0.0, atol=1e-6):
            return False
    return True
