"""A simulated student: the independent judge of ``attncalc check``'s fairness, for every kind.

Problems are drawn with each kind's own homework drawer (``attncalc.generate``, fixed seeds). A
student works a problem the way a person does, with the mechanism's own arithmetic
(``MECHANISMS[kind].run`` on an :class:`attncalc.derivation.arith.Chain`): one of three ways of keeping
numbers, and then at most one new mistake per branch, every later step computed from the
student's own values (``Chain(overrides=...)``). ``check`` (the public API) grades the answers, and
the rules of a fair TA are asserted here, from what the simulator knows it did, never from check's
own verdict logic:

* ``graded``: check grades the answers (a report, not an exception);
* ``before_first_correct``: every step before the first mistake is ``correct``;
* ``first_wrong_is_wrong``: the step where a mistake was made is ``wrong``;
* ``slip_named``: that step names a slip when the mistake was a slip, and the slip named recomputes
  to the same answer (the one made, or one indistinguishable from it here);
* ``named_only_for_slips``: no other step names a slip (a typo is never a slip);
* ``later_correct_or_carried``: every later step is ``correct`` or ``carried``;
* ``points_only_at_mistakes``: every step but a mistake's earns all its points;
* ``degenerate_no_carry``: below a degenerate answer (all zeros, all equal, a given copied) a
  ``carried`` step that rests on it earns nothing.

``python -m tests.student_sim --per-kind 2000 --seed 1`` runs thousands of students and prints a
per-kind, per-rule table with one reproducible example of each failure (docs/simulated-student.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .student_problems import Case, draw_cases, kinds, read, run, write, written_differs

STUDENTS = ("rounded", "calculator", "hand")
MISTAKE_KINDS = ("none", "slip", "typo", "slip+typo", "degenerate")
PAIRS = [(how, m) for m in MISTAKE_KINDS for how in STUDENTS]

# ------------------------------------------------------------------------------ students


@dataclass
class Student:
    """What one simulated student did: its answers, and where it made which mistake."""

    case: Case
    how: str  # rounded | calculator | hand
    mistake: str  # none | slip | typo | slip+typo | degenerate
    answers: dict[str, Any]
    at: dict[str, str]  # step -> what was done there: "slip NAME", "typo ...", "degenerate ..."
    slip: tuple[str, int | None] | None = None
    number: int = 0

    def describe(self) -> str:
        return f"{self.case.kind} seed {self.case.seed} {self.case.options} student {self.how}/{self.mistake} #{self.number}"


def mode_of(how: str) -> str:
    return "hand" if how == "hand" else "float"


def own_run(case: Case, how: str, overrides: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Every step from the student's own values (the overrides: their mistaken steps)."""
    return run(case.problem, mode_of(how), case.decimals, overrides or None)


def carried_value(value: np.ndarray, case: Case, how: str) -> np.ndarray:
    """What the student carries on from a mistaken step: the calculator its full value, the others
    the value as written."""
    if how == "calculator":
        return value
    return read(write(value, case.decimals, how))  # type: ignore[return-value]


def slip_value(
    case: Case, how: str, step: str, before: dict[str, Any], name: str, arg: int | None
) -> np.ndarray | str | None:
    """The step recomputed from the student's earlier values with the slip on."""
    over = {k: v for k, v in before.items() if not isinstance(v, str)}
    got = run(case.problem, mode_of(how), case.decimals, over or None, mistake=name, arg=arg)
    return None if got is None else got.get(step)


def slip_unmoved(
    case: Case, how: str, over: dict[str, np.ndarray], step: str, value: np.ndarray, slip: tuple[str, int | None]
) -> bool:
    """Whether the slipped step (the one in ``over``) comes out the same with the new mistake at
    ``step`` carried in, and still differs from that step done right: only then are the two
    mistakes in independent branches for this student."""
    s1 = next(iter(over))
    mine = own_run(case, how, {step: value})
    if mine is None:
        return False
    before = {j: mine[j] for j in case.order[: case.order.index(s1)]}
    v = slip_value(case, how, s1, before, slip[0], slip[1])
    # and the slip still shows: the step done right from these values is not what the slip gives
    return (
        v is not None
        and not written_differs(v, over[s1], case.decimals, 0.5)
        and written_differs(mine[s1], over[s1], case.decimals)
    )


def slip_args(case: Case, name: str) -> list[int | None]:
    return list(range(6)) if name == "wrong_vocab_row" else [None]


def first_slip(
    case: Case, how: str, rng: random.Random, base: dict[str, Any]
) -> tuple[str, str, int | None, Any] | None:
    """A slip the computation consults, the first step it changes, and its value there."""
    names = case.slips[:]
    rng.shuffle(names)
    for name in names:
        for arg in slip_args(case, name):
            got = run(case.problem, mode_of(how), case.decimals, mistake=name, arg=arg)
            if got is None:
                continue
            for k in case.order:
                if k in got and written_differs(got[k], base[k], case.decimals):
                    if case.is_label(k) and k != case.order[-1]:
                        break  # a wrong label cannot be carried on (Chain overrides numbers only)
                    before = {j: base[j] for j in case.order[: case.order.index(k)]}
                    v = slip_value(case, how, k, before, name, arg)
                    if v is not None and written_differs(v, base[k], case.decimals):
                        return name, k, arg, v
                    break
    return None


def competitors(case: Case, how: str, step: str, before: dict[str, Any]) -> list[Any]:
    """Values a typo must stay clear of to be a typo: the truth, the hand chains (the maximum
    subtracted or not), and every slip recomputed from the student's earlier values."""
    out = [case.truth[step], case.hand[step]]
    for shift in ("always", "never"):
        p = dataclasses.replace(case.problem, settings=dataclasses.replace(case.problem.settings, shift_max=shift))
        for mode in ("hand", "float"):
            got = run(p, mode, case.decimals)
            if got is not None:
                out.append(got.get(step))
    for name in case.slips:
        for arg in slip_args(case, name):
            v = slip_value(case, how, step, before, name, arg)
            if v is not None:
                out.append(v)
    return [v for v in out if v is not None]


def typo(value: np.ndarray, rng: random.Random, decimals: int) -> tuple[np.ndarray, str] | None:
    """One typo in a written value: a leading digit changed, two entries swapped, or a sign flipped."""
    v = np.array(value, dtype=float)
    flat = v.reshape(-1)
    finite = [i for i in range(flat.size) if np.isfinite(flat[i])]
    if not finite:
        return None
    what = rng.choice(("digit", "swap", "sign"))
    if what == "swap" and len(finite) >= 2:
        i, j = rng.sample(finite, 2)
        flat[i], flat[j] = flat[j], flat[i]
        return v, f"entries {i} and {j} swapped"
    i = rng.choice(finite)
    if what == "sign" and flat[i] != 0:
        flat[i] = -flat[i]
        return v, f"sign of entry {i} flipped"
    # a digit among the two leading ones changed (a slip of the pen, not of rounding)
    text = f"{abs(flat[i]):.{decimals}f}"
    digits = [k for k, c in enumerate(text) if c.isdigit()]
    lead = next((k for k in digits if text[k] != "0"), digits[0])  # 0.000: its units digit
    # (not the last decimal, which a rounding slip could explain; the units digit when nothing else is left)
    k = rng.choice([d for d in digits if d >= lead and d != digits[-1]][:2] or [digits[0]])
    new = rng.choice([c for c in "0123456789" if c != text[k]])
    changed = text[:k] + new + text[k + 1 :]
    flat[i] = float(changed) * (-1 if flat[i] < 0 else 1)
    return v, f"entry {i}: digit {text[k]} of {text} written {new}"


def degenerate(case: Case, step: str, rng: random.Random) -> tuple[np.ndarray, str] | None:
    """A degenerate answer where the truth is not one: all zeros, all equal (not a short −1/0/1
    answer, which the documentation keeps from being called so), or a given (or its row) copied."""
    true = np.asarray(case.truth[step], dtype=float)
    if not np.isfinite(true).all():
        return None
    options: list[tuple[np.ndarray, str]] = []
    if not np.allclose(true, 0, atol=10.0**-case.decimals):
        options.append((np.zeros_like(true), "all zeros"))
    if true.size >= 2 and not np.allclose(true, true.flat[0], atol=10.0**-case.decimals):
        options.append((np.full_like(true, 0.5), "all entries 0.5"))
    for name, g in case.problem.given.items():
        gv = np.asarray(getattr(g, "floats", None), dtype=float) if hasattr(g, "floats") else None
        if gv is None or gv.dtype != float:
            continue
        rows = [gv] if gv.shape == true.shape else []
        if true.ndim == 1 and gv.ndim == 2 and gv.shape[1] == true.size:
            rows += list(gv)
        for r in rows:
            plain = r.size <= 4 and bool(np.isin(r, (-1.0, 0.0, 1.0)).all())
            if r.size >= 2 and not plain and np.isfinite(r).all() and written_differs(r, true, case.decimals):
                options.append((np.array(r, dtype=float), f"the given {name} copied"))
    return rng.choice(options) if options else None


def looks_degenerate(case: Case, step: str, value: np.ndarray) -> bool:
    """The documented degenerate patterns (docs/interface.md, [grading]): all zeros, all entries
    equal or a given (or a row of one) copied, where the truth is none of these; a short answer of
    −1, 0 and 1 only is never "all equal" or a copy."""
    true = np.asarray(case.truth[step], dtype=float)
    v = np.asarray(value, dtype=float)
    if np.all(v == 0):
        return written_differs(true, np.zeros_like(true), case.decimals, 0.5)
    plain = v.size <= 4 and bool(np.isin(v, (-1.0, 0.0, 1.0)).all())
    if v.size < 2 or plain:
        return False
    if np.all(v == v.flat[0]) and written_differs(true, np.full_like(true, true.flat[0]), case.decimals, 0.5):
        return True
    for g in case.problem.given.values():
        gv = np.asarray(getattr(g, "floats", np.zeros(0)), dtype=float)
        rows = [gv] if gv.shape == v.shape else []
        if v.ndim == 1 and gv.ndim == 2 and gv.shape[1] == v.size:
            rows += list(gv)
        if any(not written_differs(v, r, case.decimals, 0.5) for r in rows):
            return True
    return False


def finite(case: Case, step: str, v: Any) -> bool:
    """A value a student can write: a label, or numbers of the step's shape, finite but where the
    truth is masked (−∞)."""
    if isinstance(v, str):
        return True
    if np.shape(v) != np.shape(case.truth[step]):  # (BPE: own counts with other pairs) not in the answer's shape
        return False
    return bool(np.all(np.isfinite(v) | np.isneginf(case.truth[step])))


def make_student(case: Case, how: str, mistake: str, rng: random.Random) -> Student | None:
    """One student of the case, or None when this case offers no such mistake."""
    base = own_run(case, how, {})
    if base is None:
        return None
    dec = case.decimals
    if mistake == "none":
        if not all(finite(case, k, base[k]) for k in case.order):
            return None
        return Student(case, how, mistake, {k: write(base[k], dec, how) for k in case.order}, {})
    over: dict[str, np.ndarray] = {}
    at: dict[str, str] = {}
    slip = None
    if mistake in ("slip", "slip+typo"):
        found = first_slip(case, how, rng, base)
        if found is None:
            return None
        name, step, arg, value = found
        if isinstance(value, str):
            answers = {k: write(base[k], dec, how) for k in case.order}
            answers[step] = value
            return Student(case, how, mistake, answers, {step: f"slip {name}"}, (name, arg))
        over[step] = carried_value(np.asarray(value, dtype=float), case, how)
        at[step] = f"slip {name}" + (f" (arg {arg})" if arg is not None else "")
        slip = (name, arg)
    if mistake in ("typo", "slip+typo", "degenerate"):
        numeric = [k for k in case.order if not case.is_label(k) and k not in over]
        if over:  # another branch: neither depends on the other
            s1 = next(iter(over))
            numeric = [k for k in numeric if k not in case.descendants(s1) and s1 not in case.descendants(k)]
        rng.shuffle(numeric)
        for step in numeric[:8]:
            mine = own_run(case, how, over)
            if mine is None:
                return None
            written = np.asarray(read(write(mine[step], dec, how)), dtype=float)
            made = typo(written, rng, dec) if mistake != "degenerate" else degenerate(case, step, rng)
            if made is None:
                continue
            value, what = made
            before = {j: mine[j] for j in case.order[: case.order.index(step)]}
            if any(not written_differs(value, c, dec) for c in competitors(case, how, step, before)):
                continue  # not a mistake anyone could see, or one that is also a slip's value
            if mistake != "degenerate" and looks_degenerate(case, step, value):
                continue  # a typo that makes a degenerate answer is graded as one (documented)
            if slip is not None and not slip_unmoved(case, how, over, step, value, slip):
                continue  # under the slip the two steps are not independent after all
            over[step] = value
            at[step] = ("typo: " if mistake != "degenerate" else "degenerate: ") + what
            break
        else:
            return None
    mine = own_run(case, how, over)
    if mine is None:
        return None
    answers = {}
    for k in case.order:
        if k not in mine:
            continue  # the student's own numbers have no such step (no pair left to merge): left unanswered
        v = mine[k]
        if not finite(case, k, v):
            return None  # the student's numbers left the finite ones: nothing to write
        answers[k] = write(over[k] if k in over else v, dec, how)
    if any(not visible(case, answers, k) for k in at):
        return None
    return Student(case, how, mistake, answers, at, slip)


def visible(case: Case, answers: dict[str, Any], step: str) -> bool:
    """Whether the mistake at ``step`` shows: its answer differs from the step done right from the
    student's written earlier answers, in floats and in the hand chain (a top-p cut on a rounded
    running sum, say, can go either way; a mistake hidden there is no mistake)."""
    before = case.order[: case.order.index(step)]
    over = {k: v for k, v in ((k, read(answers[k])) for k in before if k in answers) if not isinstance(v, str)}
    mine = read(answers[step])
    for mode in ("float", "hand"):
        got = run(case.problem, mode, case.decimals, over or None)
        if got is not None and not written_differs(mine, got.get(step), case.decimals):
            return False
    return True


def students(kind: str, per_kind: int, seed: int, per_problem: int = 10) -> Iterator[Student]:
    """``per_kind`` students of the kind, ``per_problem`` to a drawn problem, cycling through every
    way of keeping numbers with every mistake (the same seed gives the same students). A student the
    problem offers no such mistake is yielded with ``number`` below 0 (counted as skipped)."""
    rng = random.Random(f"{kind}:{seed}")
    count = max(1, -(-per_kind // per_problem))
    n = 0
    for case in draw_cases(kind, seed, count):
        for _ in range(per_problem):
            if n >= per_kind:
                return
            how, mistake = PAIRS[n % len(PAIRS)]
            st = make_student(case, how, mistake, rng)
            n += 1
            if st is not None:
                st.number = n
            yield st if st is not None else Student(case, how, mistake, {}, {}, number=-n)


def main(argv: list[str] | None = None) -> int:
    from .student_judge import Tally, examples, row, simulate, table, write_cases

    ap = argparse.ArgumentParser(prog="python -m tests.student_sim", description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-kind", type=int, default=200, help="students per kind (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", action="append", help="only this kind (repeatable); default every kind")
    ap.add_argument("--cases", help="write each failing (kind, rule)'s first example as TOML files into this folder")
    ap.add_argument("--force", action="store_true", help="overwrite case files already in --cases")
    a = ap.parse_args(argv)
    results: dict[str, Tally] = {}
    for kind in a.kind or kinds():
        t0 = time.monotonic()
        results[kind] = t = simulate(kind, a.per_kind, a.seed)
        # each kind's line and examples as soon as it is done (a long run stopped early keeps them)
        print(f"{kind}: {time.monotonic() - t0:.0f} s\n{row(kind, t)}", file=sys.stderr)
        print("\n".join(examples(kind, t)), file=sys.stderr, flush=True)
        if a.cases:
            for path in write_cases({kind: t}, a.cases, a.force):
                print(f"wrote {path}", file=sys.stderr, flush=True)
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
