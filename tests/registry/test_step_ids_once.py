"""A step's id is written once: the id a step is shown and graded by is the id its value was finished
under (``Chain.finish``, where ``check`` puts a student's answer in its place). When the two
disagreed, ``check`` silently ignored that step's answer; ``Chain.step`` builds the step from the one id.

Run on every example and every kind's template (a plugin kind's included), in the float chain and in
a chain carrying answers: every step with numbers was finished under its own id, every finished id is
a step, and an answer given for a step is what the following steps are computed from."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from attncalc import kinds
from attncalc.derivation.arith import Chain
from attncalc.mechanisms import MECHANISMS
from attncalc.parse import Problem, load_problem, parse_problem

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def _problems() -> list[tuple[str, Problem]]:
    out = [(p.stem, load_problem(p)) for p in sorted(PROBLEMS.glob("*.toml"))]
    out += [(f"new-{k}", parse_problem(tomllib.loads(kinds.template(k)), f"{k}.toml")) for k in kinds.KINDS]
    return out


CASES = _problems()


@pytest.mark.parametrize(("name", "problem"), CASES, ids=[n for n, _ in CASES])
def test_every_step_is_finished_under_its_own_id(name: str, problem: Problem) -> None:
    chain = Chain("float", problem.settings.decimals)
    steps = MECHANISMS[problem.kind].run(problem, chain)
    ids = [s.id for s in steps]
    assert len(ids) == len(set(ids)), "a step id twice"
    numbered = [s for s in steps if not isinstance(s.value, str)]  # a prediction's label is read as written
    unfinished = [s.id for s in numbered if s.id not in chain.computed]
    assert not unfinished, f"steps whose value was finished under another id: {unfinished}"
    orphans = [i for i in chain.computed if i not in set(ids)]
    assert not orphans, f"values finished under an id no step has: {orphans}"
    for s in numbered:  # the step shows the value finished under its id
        np.testing.assert_array_equal(np.asarray(s.value, dtype=float), np.asarray(chain.computed[s.id], dtype=float))


@pytest.mark.parametrize(("name", "problem"), CASES, ids=[n for n, _ in CASES])
def test_an_answer_is_read_under_the_steps_id(name: str, problem: Problem) -> None:
    """An answer given for a step (its value moved by 0.001, a whole number by 1) is what the step shows when the chain carries
    answers, as check's runs do: it was read under the step's own id. (A later step the moved number
    makes impossible, a count that is no longer whole, ends the run: those steps are not asked.)"""
    truth = Chain("float", problem.settings.decimals)
    steps = MECHANISMS[problem.kind].run(problem, truth)
    asked = 0
    for s in steps:
        if isinstance(s.value, str) or not np.size(s.value):
            continue
        value = np.asarray(s.value, dtype=float)
        answer = value + (1.0 if np.all(value == np.round(value)) else 0.001)  # a count stays whole
        chain = Chain("float", problem.settings.decimals, overrides={s.id: answer})
        try:
            carried = {c.id: c for c in MECHANISMS[problem.kind].run(problem, chain)}
        except (ValueError, IndexError, KeyError, TypeError, ArithmeticError):
            continue
        asked += 1
        np.testing.assert_allclose(np.asarray(carried[s.id].value, dtype=float), answer, err_msg=s.id)
    assert asked, "no step could be asked"


def test_no_mechanism_writes_a_step_id_twice() -> None:
    """No function of attncalc/ names the same step id, a string or an f-string, both where it finishes
    a value (``.finish("id", ...)``) and where it builds the step (``id="id"``): ``Chain.step`` takes it
    once. (An id held in a variable is written once where the variable is set.)"""
    import ast

    root = Path(__file__).resolve().parents[2] / "attncalc"
    twice = []
    for path in sorted(root.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            finished, built = set(), set()
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                if isinstance(node.func, ast.Attribute) and node.func.attr == "finish" and node.args:
                    first = node.args[0]
                    if isinstance(first, (ast.Constant, ast.JoinedStr)):
                        finished.add(ast.unparse(first))
                built |= {
                    ast.unparse(k.value)
                    for k in node.keywords
                    if k.arg == "id" and isinstance(k.value, (ast.Constant, ast.JoinedStr))
                }
            twice += [f"{path.relative_to(root.parent)}:{fn.name}: {i}" for i in sorted(finished & built)]
    assert not twice, twice
