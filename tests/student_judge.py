"""The rules of a fair TA, held against ``attncalc check``'s report on a simulated student
(tests/student_sim.py), and the report of a run: a per-kind, per-rule table with one reproducible
example of each failure, and those examples as problem and answers files for ``attncalc check``.

What a rule expects comes from what the simulator knows the student did (where it made which
mistake, which steps depend on which), never from check's own verdict logic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attncalc.api import check

from .student_problems import read, written_differs
from .student_sim import Student, slip_args, slip_value, students

RULES = (
    "graded",
    "before_first_correct",
    "first_wrong_is_wrong",
    "slip_named",
    "named_only_for_slips",
    "later_correct_or_carried",
    "points_only_at_mistakes",
    "degenerate_no_carry",
)


# ------------------------------------------------------------------------------ judging


@dataclass
class Failure:
    rule: str
    student: Student
    step: str
    expected: str
    got: str


Grader = Callable[[dict[str, Any], dict[str, Any]], Any]  # (problem table, answers) -> a Report


def judge(st: Student, grade: Grader = check) -> list[Failure]:
    """Grade the student (``attncalc.check`` unless ``grade`` says otherwise: the tests hand it
    deliberately unfair graders) and hold the JSON report to the rules."""
    case = st.case
    fails: list[Failure] = []
    try:
        report = grade(case.raw, st.answers).to_json()
    except Exception as e:  # check must grade every answers file; a crash is a failure of its own
        fails.append(Failure("graded", st, "", "a report", f"{type(e).__name__}: {e}"))
        return fails
    results = {r["id"]: r for r in report["results"]}

    def fail(rule: str, step: str, expected: str, r: dict[str, Any]) -> None:
        got = f"verdict {r['verdict']}, mistake {r.get('mistake')}, points {r['points']}/{r['out_of']}: {r['note']}"
        fails.append(Failure(rule, st, step, expected, got))

    mistakes = [k for k in case.order if k in st.at]
    first = mistakes[0] if mistakes else None
    degenerate_at = [k for k in mistakes if st.at[k].startswith("degenerate")]
    # below a degenerate answer, however far down: through the computation, or from answer to answer
    # (an answer that moves with one resting on it rests on it too, even where the computation as a
    # whole does not: the online softmax's result does not depend on its running maximum, but the
    # student's sum, worked from their rescaled exponentials, does)
    resting: set[str] = set()
    for k in degenerate_at:
        reached, todo = {k}, [k]
        while todo:
            for d in case.moved_with(todo.pop(), st.answers):
                if d not in reached:
                    reached.add(d)
                    if d in st.answers:
                        todo.append(d)
        resting |= case.descendants(k) | (reached - {k})
    for k in case.order:
        r = results.get(k)
        if r is None:
            continue
        idx = case.order.index(k)
        before_first = first is None or idx < case.order.index(first)
        if before_first and r["verdict"] != "correct":
            fail("before_first_correct", k, "correct (no mistake made yet)", r)
        if k in st.at:
            if r["verdict"] != "wrong":
                fail("first_wrong_is_wrong", k, f"wrong ({st.at[k]})", r)
            if st.at[k].startswith("slip"):
                if not r.get("mistake"):
                    fail("slip_named", k, f"the slip named ({st.at[k]})", r)
                elif st.slip is not None and r["mistake"] != st.slip[0] and not _same_slip(st, k, r["mistake"]):
                    fail("slip_named", k, f"{st.slip[0]} or a slip giving the same numbers", r)
            elif r.get("mistake"):
                fail("named_only_for_slips", k, f"no slip named ({st.at[k]})", r)
            continue
        if r.get("mistake"):
            fail("named_only_for_slips", k, "no slip named (no new mistake here)", r)
        if not before_first and r["verdict"] not in ("correct", "carried"):
            fail("later_correct_or_carried", k, "correct or carried (computed from the student's own values)", r)
        if k in resting and r["verdict"] == "carried":
            if r["points"] != 0:
                fail("degenerate_no_carry", k, f"no carried credit (rests on {degenerate_at})", r)
        elif r["points"] != r["out_of"] and r["verdict"] in ("correct", "carried"):
            fail("points_only_at_mistakes", k, f"all {r['out_of']} points (no new mistake here)", r)
    return fails


def _same_slip(st: Student, step: str, named: str) -> bool:
    """Whether the slip check named gives the student's answer at that step too."""
    case = st.case
    before = {j: read(st.answers[j]) for j in case.order[: case.order.index(step)]}
    for arg in slip_args(case, named):
        v = slip_value(case, st.how, step, before, named, arg)
        if v is not None and not written_differs(v, read(st.answers[step]), case.decimals, 1.0):
            return True
    return False


# ------------------------------------------------------------------------------ a run over kinds


@dataclass
class Tally:
    students: int = 0
    skipped: int = 0
    failures: dict[str, list[Failure]] = field(default_factory=dict)
    made: Counter[str] = field(default_factory=Counter)  # students graded, by the mistake they made


def simulate(kind: str, per_kind: int, seed: int) -> Tally:
    tally = Tally()
    for st in students(kind, per_kind, seed):
        if st.number < 0:
            tally.skipped += 1
            continue
        tally.students += 1
        tally.made[st.mistake] += 1
        for f in judge(st):
            tally.failures.setdefault(f.rule, []).append(f)
    return tally


HEADER = (
    "| kind | students | skipped | " + " | ".join(r.replace("_", " ") for r in RULES) + " |\n"
    "|" + " --- |" * (3 + len(RULES))
)


def row(kind: str, t: Tally) -> str:
    """A kind's line of the table: students graded, skipped, and the students failing each rule."""
    cells = [str(len({id(f.student) for f in t.failures.get(r, [])})) for r in RULES]
    return f"| {kind} | {t.students} | {t.skipped} | " + " | ".join(cells) + " |"


def examples(kind: str, t: Tally) -> list[str]:
    """One example of each of the kind's failing rules: kind, seed, student, step, expected, said."""
    out = []
    for rule in RULES:
        if t.failures.get(rule):
            f = t.failures[rule][0]
            made = "; ".join(f"{k}: {v}" for k, v in f.student.at.items()) or "no mistake"
            out.append(
                f"- {kind}, {rule}: {f.student.describe()} ({made}), step `{f.step}`: "
                f"expected {f.expected}; check said {f.got}"
            )
    return out


def table(results: dict[str, Tally]) -> str:
    """The report: per kind, students and failures by rule, one example of each failure."""
    lines = [HEADER, *(row(k, t) for k, t in results.items()), ""]
    lines += ["Cells count the students failing each rule. One example of each failure:", ""]
    for kind, t in results.items():
        lines += examples(kind, t)
    return "\n".join(lines)


# ------------------------------------------------------------------------------ the examples as files


def _toml(v: Any) -> str:
    """An answer as an answers file writes it: numbers as written, labels and −∞ quoted."""
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, str) and v not in ("-inf",) and _is_number(v):
        return v
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _from_files(problem: Path, answers: Path) -> Grader:
    """A grader reading the written files instead of the tables (the example as the lead runs it)."""
    return lambda raw, given: check(problem, answers)


def write_cases(results: dict[str, Tally], folder: str | Path, force: bool = False) -> list[Path]:
    """Each failing (kind, rule)'s first example as ``KIND--RULE.problem.toml`` and
    ``KIND--RULE.answers.toml`` (``attncalc check P A`` grades them), each checked to fail the same
    rule again when graded from the files. Existing files are kept unless ``force``."""
    from attncalc.homework.generate import problem_toml

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for kind, t in results.items():
        for rule in RULES:
            if not t.failures.get(rule):
                continue
            f = t.failures[rule][0]
            st = f.student
            name = f"{kind}--{rule}"
            prob, ans = out / f"{name}.problem.toml", out / f"{name}.answers.toml"
            what = "; ".join(f"{k}: {v}" for k, v in st.at.items()) or "no mistake"
            head = [
                f"# Simulated student: {st.describe()}",
                f"# Mistakes made: {what}",
                f"# Rule {rule} fails at step {f.step or '(none)'}: expected {f.expected}",
                f"# check said: {f.got}".replace("\n", " "),
                f"# Run: attncalc check {prob.name} {ans.name}",
            ]
            lines = [*head, f'problem = "{prob.name}"']
            lines += [f'"{k}" = {_toml(v)}' for k, v in st.answers.items()]
            mode = "w" if force else "x"
            with open(prob, mode, encoding="utf-8") as fh:
                fh.write(problem_toml(st.case.raw, st.case.seed))
            with open(ans, mode, encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
            again = judge(st, _from_files(prob, ans))
            if not any(x.rule == rule for x in again):
                raise AssertionError(f"{ans}: graded from the files, rule {rule} no longer fails")
            written += [prob, ans]
    return written
