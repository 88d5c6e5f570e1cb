"""The pipeline's first stages stay visible and small: attncalc/schema/ (declarations) and
attncalc/parse/ (file → typed problem) have no import cycles and no module over ~400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "attncalc"


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every attncalc module this file imports, at the top or inside a function."""
    me = _module(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("attncalc"):
                continue
            for alias in node.names:  # `from . import attention` imports a module
                sub = f"{mod}.{alias.name}"
                where = PKG.parent / sub.replace(".", "/")
                out.add(sub if where.with_suffix(".py").exists() or (where / "__init__.py").exists() else mod)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("attncalc")}
    return out - {me}


def _graph() -> dict[str, set[str]]:
    files = [*sorted((PKG / "parse").glob("*.py")), *sorted((PKG / "schema").glob("*.py"))]
    files += sorted((PKG / "kinds").glob("*.py"))
    return {_module(f): _imports(f) for f in files}


def test_no_import_cycle_among_the_parsing_modules() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if n not in graph:
                continue
            assert state.get(n) != 1, f"import cycle: {' -> '.join([*stack[stack.index(n) :], n])}"
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m)


def test_the_graph_is_what_it_claims() -> None:
    """The walk sees the imports it checks (a walk that saw none could not fail)."""
    graph = _graph()
    assert "attncalc.parse.reader" in graph["attncalc.parse.attention"]
    assert "attncalc.parse.recurrent" in graph["attncalc.parse.seq2seq"]
    assert "attncalc.kinds" in graph["attncalc.parse.top"]
    assert "attncalc.schema.decl" in graph["attncalc.schema.feedforward"]


def test_parsing_and_schema_modules_stay_small() -> None:
    for path in [
        *(PKG / "parse").glob("*.py"),
        *(PKG / "schema").glob("*.py"),
        *(PKG / "kinds").glob("*.py"),
    ]:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{path.name}: {lines} lines"


def test_schema_and_registry_import_neither_numpy_nor_sympy() -> None:
    """The declarations, the registry and the JSON Schema load without the heavy libraries."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom attncalc import kinds\nfrom attncalc.schema import json_schema\n"
        "json_schema.whole_schema(kinds.declarations())\n"
        "print('HEAVY', sorted(m for m in ('sympy', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out
