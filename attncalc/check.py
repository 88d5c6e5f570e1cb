"""Grading hand calculations step by step (the library behind ``attncalc check``).

For every answered step the verdict is, in this order:

* ``correct``: each entry matches the true value at the precision it was written in (0.155 is
  judged to 3 decimals), or matches the hand chain in which every intermediate was rounded to that
  precision and carried forward, as the reference documents do;
* ``carried``: it differs from the truth but is right given the answerer's own earlier answers
  (the step recomputed from them, in floats or in the hand chain): the error began earlier;
* ``wrong``: neither. Then the usual slips are tried (:data:`attncalc.arith.MISTAKES`, each a
  switch in the mechanisms) and the one that reproduces the answer is named; failing that, the
  wrong entries are written out from the answerer's own numbers ("e_2 = 0.6·0.42 + … = 0.365,
  not 0.312"), naming a single miscomputed product where one explains the difference.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from .arith import MISTAKES, Chain, MistakeNotApplicable, round_half_up
from .derivation import Argmax, Derivation, Product, Step
from .errors import NumberSyntaxError, ProblemError
from .mechanisms import MECHANISMS, solve
from .numbers import parse_number, to_float
from .problem import Problem, read_raw
from .render import expand
from .render.fmt import entry_label, fmt, paren
from .views import ReportViews

_PLAIN_DECIMAL = re.compile(r"^\s*[-+−]?\d*\.(\d+)\s*$")
UNANSWERED = "?"  # an entry left out of an answer: not graded
UNANSWERED_DECIMALS = -2
SLACK = 1e-9
SHIFTS = ("never", "always")


# ------------------------------------------------------------------------------ answers


@dataclass(frozen=True)
class Answer:
    """One answered step: its entries as floats and the decimals each was written with."""

    id: str
    values: np.ndarray | str  # float array (or the label of a prediction)
    decimals: np.ndarray | None  # int array, -1 where exact (a fraction or expression)


@dataclass(frozen=True)
class Tolerance:
    """How close is close enough: the answer's own precision unless --rtol/--atol/--sigfigs say otherwise."""

    rtol: float | None = None
    atol: float | None = None
    sigfigs: int | None = None

    def close(self, given: float, target: float, decimals: int, units: float = 0.5) -> bool:
        """True when ``given`` is ``target`` written to ``decimals`` places (±``units`` of the last place)."""
        if math.isinf(given) or math.isinf(target):
            return given == target
        if not math.isfinite(target):
            return False
        if self.rtol is not None or self.atol is not None:
            return abs(given - target) <= (self.atol or 0.0) + (self.rtol or 0.0) * abs(target) + 1e-15
        if self.sigfigs is not None:
            if target == 0:
                return abs(given) <= 0.5 * 10.0 ** (-self.sigfigs)
            place = math.floor(math.log10(abs(target))) - self.sigfigs + 1
            return abs(given - target) <= units * 10.0**place * (1 + SLACK)
        if decimals < 0:  # an exact form such as "1/3": agree to rounding error
            return abs(given - target) <= 1e-9 * max(1.0, abs(target))
        return abs(given - target) <= units * 10.0 ** (-decimals) * (1 + SLACK) + 1e-12


def load_answers(path: str | Path, max_bytes: int | None = None) -> tuple[dict[str, Any], str | None]:
    """Read an answers file: a table of step ids (or one under [answers]), and an optional ``problem``."""
    raw = read_raw(path, max_bytes)
    problem = raw.pop("problem", None)
    if problem is not None and (not isinstance(problem, str) or not problem.strip()):
        raise ProblemError(str(path), "problem", "expected the path of a problem file")
    if "answers" in raw and len(raw) == 1:
        if not isinstance(raw["answers"], dict):
            raise ProblemError(str(path), "answers", "expected a table of answers keyed by step id")
        raw = raw["answers"]
    if problem is not None:
        problem = os.path.normpath(Path(path).parent / problem)
    return raw, problem


def parse_answers(raw: dict[str, Any], derivation: Derivation, file: str, key_prefix: str = "") -> list[Answer]:
    """Validate answers against a derivation's steps: known ids, right shapes, numbers."""
    valid = derivation.step_ids
    out: list[Answer] = []
    raw = flatten_ids(raw)
    default_dec = _file_decimals(raw)
    for step_id, value in raw.items():
        key = f"{key_prefix}{step_id}"
        if step_id not in valid:
            import difflib

            close = difflib.get_close_matches(str(step_id), valid, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ProblemError(file, key, f"not a step of this problem{hint}; its steps are: {', '.join(valid)}")
        step = derivation.step(step_id)
        if isinstance(step, Argmax):
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise ProblemError(file, key, f"expected a vocabulary label such as {step.value!r}")
            out.append(Answer(step_id, str(value), None))
            continue
        shape = np.shape(step.value)
        vals, decs = _numbers(value, file, key, default_dec)
        if vals.shape != shape:
            raise ProblemError(file, key, f"expected {_shape_words(shape)}, got {_shape_words(vals.shape)}")
        _unanswered(file, key, vals)
        out.append(Answer(step_id, vals, decs))
    order = {s: i for i, s in enumerate(valid)}
    return sorted(out, key=lambda a: order[a.id])


def flatten_ids(raw: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables to dotted step ids: TOML reads `encoder.2.f = [...]` as {"encoder": {"2": {"f": ...}}}."""
    out: dict[str, Any] = {}
    for k, v in raw.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten_ids(v, key + "."))
        else:
            out[key] = v
    return out


def _shape_words(shape: tuple[int, ...]) -> str:
    if not shape:
        return "one number"
    if len(shape) == 1:
        return f"a list of {shape[0]} numbers"
    return f"a {shape[0]}×{shape[1]} matrix"


def _numbers(value: Any, file: str, key: str, default_dec: int) -> tuple[np.ndarray, np.ndarray]:
    def one(x: Any, where: str) -> tuple[float, int]:
        if isinstance(x, str) and x.strip() in ("-inf", "−inf", "-∞", "−∞"):
            return -math.inf, 0
        if isinstance(x, str) and x.strip() == UNANSWERED:
            return math.nan, UNANSWERED_DECIMALS
        try:
            node = parse_number(x)
        except NumberSyntaxError as exc:
            raise ProblemError(file, key, f"{where}{exc}") from None
        return to_float(node), _decimals_of(x, default_dec)

    if isinstance(value, list):
        if not value:
            raise ProblemError(file, key, "the answer is an empty list")
        if all(isinstance(r, list) for r in value):
            widths = {len(r) for r in value}
            if len(widths) != 1:
                raise ProblemError(file, key, "ragged rows")
            if not value[0]:
                raise ProblemError(file, key, "the rows are empty")
            pairs = [[one(x, f"row {i + 1}, entry {j + 1}: ") for j, x in enumerate(r)] for i, r in enumerate(value)]
        else:
            pairs = [one(x, f"entry {i + 1}: ") for i, x in enumerate(value)]  # type: ignore[misc]
        arr = np.array(pairs, dtype=float)
        return arr[..., 0], arr[..., 1].astype(int)
    v, d = one(value, "")
    return np.array(v), np.array(d)


def _unanswered(file: str, key: str, vals: np.ndarray) -> None:
    if np.isnan(vals).all():
        raise ProblemError(file, key, f"every entry is {UNANSWERED!r}: answer at least one, or leave the step out")


def _decimals_of(x: Any, default: int) -> int:
    """Decimals as written: 0.155 → 3, 0.50 → 2, "1/3" → -1 (exact), 2 → the file's usual precision."""
    if isinstance(x, Decimal):
        exp = x.as_tuple().exponent
        return max(0, -exp) if isinstance(exp, int) else default
    if isinstance(x, float):
        text = repr(x)
        return len(text.split(".")[1]) if "." in text and "e" not in text else default
    if isinstance(x, str):
        m = _PLAIN_DECIMAL.match(x)
        if m:
            return len(m.group(1))
        return default if re.fullmatch(r"\s*[-+−]?\d+\s*", x) else -1
    return default


def _file_decimals(raw: dict[str, Any]) -> int:
    """The precision an answerer works to: the most decimals in any answer (0 if none)."""
    best = 0

    def walk(x: Any) -> None:
        nonlocal best
        if isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, (Decimal, float, str)) and not isinstance(x, bool):
            d = _decimals_of(x, 0)
            best = max(best, d)

    for v in raw.values():
        walk(v)
    return best


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class StepResult:
    id: str
    title: str
    verdict: str  # correct | carried | wrong
    given: Any
    expected: Any
    wrong_entries: list[list[int]]
    note: str = ""
    mistake: str | None = None
    began_at: str | None = None
    given_shown: Any = None  # the answer as written (strings)


@dataclass(frozen=True, repr=False)
class Report(ReportViews):
    """The grades of one answers file; ``to_json()`` and ``to_text()`` are what ``attncalc check`` prints."""

    problem: str
    answers: str
    results: list[StepResult] = field(default_factory=list)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Report {self.answers} on {self.problem}: {s['correct']} correct, "
            f"{s['carried']} carried, {s['wrong']} wrong>"
        )

    # IPython prefers a class's own __repr__ to an inherited _repr_pretty_: name it here too
    _repr_pretty_ = ReportViews._repr_pretty_

    @property
    def summary(self) -> dict[str, int]:
        counts = {"correct": 0, "carried": 0, "wrong": 0}
        for r in self.results:
            counts[r.verdict] += 1
        return counts

    @property
    def all_correct(self) -> bool:
        return all(r.verdict == "correct" for r in self.results)

    @property
    def first_error(self) -> str | None:
        for r in self.results:
            if r.verdict == "wrong":
                return r.id
        return None


# ------------------------------------------------------------------------------ grading


class _Runs:
    """The mechanism run every way check needs, cached."""

    def __init__(self, problem: Problem, answers: list[Answer]) -> None:
        self.problem = problem
        self.mech = MECHANISMS[problem.kind]
        self.overrides = {a.id: np.asarray(a.values, dtype=float) for a in answers if not isinstance(a.values, str)}
        self._cache: dict[tuple[Any, ...], tuple[dict[str, np.ndarray], dict[str, Step]] | None] = {}

    def get(
        self,
        mode: str,
        decimals: int = 3,
        overrides: bool = False,
        mistake: str | None = None,
        shift: str | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, Step]] | None:
        """One run; ``shift`` overrides settings.shift_max (a student may or may not subtract the maximum)."""
        key = (mode, decimals, overrides, mistake, shift)
        if key not in self._cache:
            chain = Chain(mode, decimals, overrides=self.overrides if overrides else None, mistake=mistake)
            problem = self.problem
            if shift is not None:
                problem = dataclasses.replace(problem, settings=dataclasses.replace(problem.settings, shift_max=shift))
            try:
                with np.errstate(all="ignore"):
                    steps = self.mech.run(problem, chain)
                self._cache[key] = (chain.computed, {s.id: s for s in steps})
            except (MistakeNotApplicable, ValueError, IndexError):
                self._cache[key] = None
        return self._cache[key]

    def value(
        self,
        step_id: str,
        mode: str,
        decimals: int = 3,
        overrides: bool = False,
        mistake: str | None = None,
        shift: str | None = None,
    ) -> np.ndarray | None:
        got = self.get(mode, decimals, overrides, mistake, shift)
        if got is None or step_id not in got[0]:
            return None
        return _as_step(got[0][step_id], got[1].get(step_id))


def _as_step(value: Any, step: Step | None) -> np.ndarray:
    """A computed value in its step's shape: the chain sees the loss as [L], the step as L."""
    arr = np.asarray(value, dtype=float)
    if step is not None and arr.size == np.size(step.value) and arr.shape != np.shape(step.value):
        return arr.reshape(np.shape(step.value))
    return arr


def check(
    problem: Problem,
    raw_answers: dict[str, Any],
    answers_file: str,
    tolerance: Tolerance | None = None,
    key_prefix: str = "",
) -> Report:
    """Grade answers (raw table keyed by step id) against a problem."""
    tol = tolerance or Tolerance()
    truth = solve(problem, exact=False, carry_rounded=False)
    answers = parse_answers(raw_answers, truth, answers_file, key_prefix)
    runs = _Runs(problem, answers)
    results: list[StepResult] = []
    status: dict[str, str] = {}
    for ans in answers:
        step = truth.step(ans.id)
        if isinstance(ans.values, str):
            results.append(_grade_prediction(ans, step, runs, status))
        else:
            results.append(_grade(ans, step, truth, runs, tol, status))
        status[ans.id] = results[-1].verdict
    return Report(problem.path, answers_file, results)


def _grade_prediction(ans: Answer, step: Step, runs: _Runs, status: dict[str, str]) -> StepResult:
    assert isinstance(step, Argmax)
    given = str(ans.values)
    tied = step.tied()
    if given in tied and len(tied) > 1:  # any of the tied tokens is the prediction
        note = f"The probabilities of {', '.join(tied)} tie; any of them is the prediction."
        return StepResult(ans.id, step.title, "correct", given, step.value, [], note, given_shown=given)
    if given == step.value:
        return StepResult(ans.id, step.title, "correct", given, step.value, [], given_shown=given)
    mine = runs.get("float", overrides=True)
    theirs = mine[1].get("prediction") if mine else None
    if isinstance(theirs, Argmax) and theirs.value == given:
        began = next((k for k, v in status.items() if v == "wrong"), None)
        note = f"Right for your probabilities; the true prediction is {step.value}."
        return StepResult(ans.id, step.title, "carried", given, step.value, [], note, began_at=began, given_shown=given)
    note = f"The largest probability belongs to {step.value}, not {given}."
    return StepResult(ans.id, step.title, "wrong", given, step.value, [[]], note, given_shown=given)


def _grade(
    ans: Answer, step: Step, truth: Derivation, runs: _Runs, tol: Tolerance, status: dict[str, str]
) -> StepResult:
    given = np.asarray(ans.values, dtype=float)
    decs = np.asarray(ans.decimals)
    true = np.asarray(step.value, dtype=float)
    shown_given = _given_text(given, decs)
    finest = max((int(x) for x in decs.flat if x >= 0), default=0)
    expected = _rounded(true, max(truth.decimals, finest))  # 0.000014 for an answer written 0.000001

    open_ = np.array(np.isnan(given), dtype=bool)  # entries written "?": not graded, so they match anything

    def matches(target: np.ndarray | None, units: float = 0.5) -> np.ndarray:
        if target is None or target.shape != given.shape:
            return open_.copy()
        out = open_.copy()
        for idx in np.ndindex(*given.shape):
            if not open_[idx]:
                out[idx] = tol.close(float(given[idx]), float(target[idx]), int(decs[idx]), units)
        return out

    precisions = sorted({int(x) for x in decs.flat if x >= 0})
    shifts: tuple[str | None, ...] = (None, *SHIFTS)

    def agree(overrides: bool) -> tuple[np.ndarray, bool]:
        """Entries matching the true (or the answerer's own) chain, exact or hand-rounded; and whether
        one variant (the maximum subtracted or not, as the answerer chose) matches every entry."""
        best = np.zeros(given.shape, dtype=bool)
        whole = False
        for maybe in shifts:  # exponentials with or without the maximum subtracted are both right
            hit = matches(true) if maybe is None and not overrides else np.zeros(given.shape, dtype=bool)
            hit |= matches(runs.value(ans.id, "float", overrides=overrides, shift=maybe))
            for k in precisions:
                hit |= matches(runs.value(ans.id, "hand", k, overrides=overrides, shift=maybe))
            if maybe is None or hit.sum() > best.sum():  # judge entries by the variant followed most
                best = hit
            whole = whole or bool(hit.all())
        return best, whole

    ok, ok_whole = agree(overrides=False)
    if ok_whole:
        exact_truth = matches(true).all() or any(
            matches(runs.value(ans.id, "float", shift=maybe)).all() for maybe in SHIFTS
        )
        note = (
            ""
            if exact_truth
            else (
                "Matches the hand chain (every step rounded and carried forward); unrounded it is "
                f"{_fmt_nested(expected)}."
            )
        )
        return StepResult(ans.id, step.title, "correct", _nested(given), expected, [], note, given_shown=shown_given)

    mine, mine_whole = agree(overrides=True)
    earlier_wrong = [k for k, v in status.items() if v != "correct"]
    if mine_whole or (ok | mine).all():
        if not earlier_wrong:
            note = "Consistent with your own rounded earlier answers."
            return StepResult(
                ans.id, step.title, "correct", _nested(given), expected, [], note, given_shown=shown_given
            )
        began = next(k for k, v in status.items() if v == "wrong") if "wrong" in status.values() else earlier_wrong[0]
        note = f"Right given your earlier answers; the error began at {began}."
        return StepResult(
            ans.id, step.title, "carried", _nested(given), expected, [], note, began_at=began, given_shown=shown_given
        )

    bad = ~(ok | mine)
    wrong_entries = [[int(i) for i in idx] for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [[]]
    mistake = _named_mistake(ans.id, given, true, runs, matches)
    if mistake is not None:
        note = f"It looks like {MISTAKES[mistake]}."
    else:
        note = _slip_note(ans, step, runs, bad, truth.decimals)
    return StepResult(
        ans.id,
        step.title,
        "wrong",
        _nested(given),
        expected,
        wrong_entries,
        note,
        mistake=mistake,
        given_shown=shown_given,
    )


def _named_mistake(step_id: str, given: np.ndarray, true: np.ndarray, runs: _Runs, matches: Any) -> str | None:
    """The first usual slip that changes this step and reproduces the answer."""
    for name in MISTAKES:
        for overrides in (True, False):
            v = runs.value(step_id, "float", overrides=overrides, mistake=name)
            plain = runs.value(step_id, "float", overrides=overrides)
            if v is None or plain is None or v.shape != true.shape:
                continue
            answered = ~np.isnan(given)
            if np.allclose(v[answered], plain[answered], rtol=1e-9, atol=1e-12):  # no difference where answered
                continue
            if matches(v, units=1.0).all():
                return name
    return None


def _slip_note(ans: Answer, step: Step, runs: _Runs, bad: np.ndarray, decimals: int) -> str:
    """Write out the wrong entries from the answerer's own earlier numbers."""
    got = runs.get("float", overrides=True)
    if got is None:
        return ""
    computed, steps = got
    mine_step = steps.get(ans.id)
    value = _as_step(computed.get(ans.id), mine_step)
    given = np.asarray(ans.values, dtype=float)
    if value.shape != given.shape:
        return ""
    decs = np.asarray(ans.decimals)
    parts: list[str] = []
    idxs = [tuple(int(i) for i in idx) for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [()]
    for idx in idxs[:3]:
        k = max(int(decs[idx]), decimals) if decs.ndim else max(int(decs), decimals)
        label = _entry_name(runs.problem, step, idx)
        right = fmt(value[idx], k)
        wrote = _given_text(given[idx], decs[idx] if decs.ndim else decs)
        rhs = expand.rhs(mine_step, idx, k) if mine_step is not None else None
        line = f"{label} = {rhs} = {right}, not {wrote}" if rhs else f"{label} = {right}, not {wrote}"
        if isinstance(mine_step, Product):
            culprit = _single_product(mine_step, idx, float(given[idx]) - float(value[idx]), k)
            if culprit:
                line += f" ({culprit})"
        elif (
            rhs
            and rhs.startswith("exp(")
            and abs(float(given[idx]) - round_half_up(float(value[idx]), k)) <= 10.0**-k * 1.01
        ):
            line += " (a rounding slip in the last digit)"
        parts.append(line)
    if len(idxs) > 3:
        parts.append(f"and {len(idxs) - 3} more entries")
    if given.ndim == 1 and ans.id in ("weights", "probabilities") and abs(float(given.sum()) - 1) > 0.02:
        parts.append(f"these add up to {fmt(float(given.sum()), 3)}, not 1")
    return "; ".join(parts) + "."


def _entry_name(problem: Problem, step: Step, idx: tuple[int, ...]) -> str:
    """e_2, or for a similarity the vectors' names: cos(C, C′)."""
    if problem.kind == "similarity":
        from .problem_similarity import entry_name

        return entry_name(problem, step.id, idx)
    return entry_label(step.symbol, idx)


def _single_product(step: Product, idx: tuple[int, ...], delta: float, k: int) -> str:
    """Name one miscomputed product that explains the whole difference, if there is one."""
    tol = 0.6 * 10.0**-k
    for a, b in step.pairs(idx):
        p = a * b
        term = f"{paren(fmt(a, k))}·{paren(fmt(b, k))}"
        if abs(p) > 1e-12 and abs(delta + 2 * p) <= tol:
            return f"the sign of {term} = {fmt(p, k)} was flipped"
        if abs(p) > 1e-12 and abs(delta + p) <= tol:
            return f"the term {term} = {fmt(p, k)} was left out"
        for wrong in (p * 10, p / 10, -p):
            if abs(wrong - p) > tol and abs(delta - (wrong - p)) <= tol:
                return f"{term} = {fmt(p, k)}, not {fmt(wrong, k)}"
    return ""


def _given_text(given: np.ndarray, decs: np.ndarray) -> Any:
    """The answer as it was written: 1.760 keeps its trailing zero."""
    if given.ndim == 0:
        d = int(decs)
        if d == UNANSWERED_DECIMALS:
            return UNANSWERED
        return fmt(float(given), 6) if d < 0 or not math.isfinite(float(given)) else f"{float(given):.{d}f}"
    return [_given_text(g, d) for g, d in zip(given, decs, strict=True)]


def _nested(x: np.ndarray) -> Any:
    if x.ndim == 0:
        v = float(x)
        if math.isnan(v):
            return UNANSWERED
        return v if math.isfinite(v) else None
    return [_nested(v) for v in x]


def _rounded(x: np.ndarray, decimals: int) -> Any:
    if x.ndim == 0:
        v = float(x)
        return round_half_up(v, decimals) if math.isfinite(v) else None
    return [_rounded(v, decimals) for v in x]


def _fmt_nested(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_fmt_nested(v) for v in x) + "]"
    return "−∞" if x is None else fmt(x, 6)
