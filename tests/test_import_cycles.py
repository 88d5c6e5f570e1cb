"""No import cycles between the modules of attncalc/ (imports inside functions count too)."""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attncalc"

# Cycles tolerated for now, each with the issue that removes it; none since the kind registry
# (issue 12) split the parsing modules. The last test below fails while a listed pair is no longer a cycle.
KNOWN: set[frozenset[str]] = set()


def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__)."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        out[".".join(parts)] = (f, is_pkg)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its file (top level, functions, TYPE_CHECKING).

    ``from . import x`` depends on the module x when x is one, else on the package itself.
    """
    mods = modules(root)
    graph: dict[str, set[str]] = {}
    for name, (path, is_pkg) in mods.items():
        package = name if is_pkg else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else [source, *subs]
            else:
                continue
            for t in targets:
                while t and t not in mods:  # import a.b.c where only a.b is ours: the deepest module
                    t = t.rpartition(".")[0]
                if t and t != name:
                    deps.add(t)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]], allowed: Collection[frozenset[str]] = ()) -> list[list[str]]:
    """Strongly connected groups of more than one module, ignoring the edges of allowed pairs."""
    g = {a: {b for b in bs if frozenset({a, b}) not in allowed} for a, bs in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_attncalc() -> None:
    """Every module of attncalc/ can be read in an order where each depends only on earlier ones."""
    found = cycles(import_graph(PACKAGE), KNOWN)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_model_imports_no_renderer() -> None:
    """derivation.py (and the neutral views table) import nothing from render/, not even inside a method."""
    graph = import_graph(PACKAGE)
    assert "attncalc.render.sheet" in graph  # the walk sees the renderers...
    assert "attncalc.derivation" in graph["attncalc.render.sheet"]  # ...and that they read the model
    for model in ("attncalc.derivation", "attncalc.views"):
        assert not {m for m in graph[model] if m.startswith("attncalc.render")}, graph[model]
    assert graph["attncalc.views"] == set()


def test_known_exceptions_are_still_cycles() -> None:
    """A pair listed in KNOWN whose cycle is gone must leave the list."""
    graph = import_graph(PACKAGE)
    for pair in KNOWN:
        a, b = sorted(pair)
        assert b in graph[a] and a in graph[b], f"{a} <-> {b} is no longer a cycle: remove it from KNOWN"


def test_the_walk_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    """The detector itself: a cycle made only by an import inside a function is found."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n    return x\n")
    (pkg / "c.py").write_text("from . import a\n")
    graph = import_graph(pkg)
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]
    assert cycles(graph, {frozenset({"pkg.a", "pkg.sub.b"})}) == []


@pytest.mark.parametrize("name", ["attncalc.parse.recurrent", "attncalc.render.writers"])
def test_the_walk_reads_relative_imports(name: str) -> None:
    """Relative imports resolve to modules of the package (a broken walk would see no edges at all)."""
    graph = import_graph(PACKAGE)
    assert graph[name], name
