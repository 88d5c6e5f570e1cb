"""No function of attncalc/ is above cyclomatic complexity 35, as radon measures it (a stated project
rule: a function a reader can hold). Each function, method and closure is measured on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

radon_complexity = pytest.importorskip(
    "radon.complexity", reason="radon (the test extra) measures the complexity bound; it is not installed"
)

BOUND = 35
PACKAGE = Path(__file__).resolve().parents[2] / "attncalc"


def _blocks(block: object, prefix: str = "") -> list[tuple[str, int]]:
    """(qualified name, complexity) of a radon block and of everything nested in it."""
    name = f"{prefix}{block.name}"  # type: ignore[attr-defined]
    out = [(name, int(block.complexity))]  # type: ignore[attr-defined]
    for inner in (*getattr(block, "methods", ()), *getattr(block, "closures", ())):
        out += _blocks(inner, name + ".")
    return out


def measured() -> list[tuple[str, int]]:
    """Every function of attncalc/ as path:name with its complexity."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
            out += [(f"{rel}:{name}", cc) for name, cc in _blocks(block)]
    return out


def test_every_function_is_within_the_bound() -> None:
    found = measured()
    assert len(found) > 500  # the whole package was read, not an empty folder
    over = [f"{name} has complexity {cc} (above {BOUND})" for name, cc in found if cc > BOUND]
    assert not over, "split these by responsibility:\n" + "\n".join(over)


def test_the_measure_sees_a_complex_function() -> None:
    """A function with 40 branches measures above the bound (the test can fail), a closure's branches
    count to the closure."""
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(40))
    source = f"def wide(x):\n{branches}    return -1\n\ndef outer(x):\n    def inner(y):\n{branches.replace('    ', '        ')}        return -1\n    return inner(x)\n"
    found = dict((name, cc) for block in radon_complexity.cc_visit(source) for name, cc in _blocks(block))
    assert found["wide"] == 41
    assert found["outer.inner"] == 41
    assert found["outer"] <= 2
