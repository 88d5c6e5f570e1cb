"""Fuzzing the real CLI: malformed and hostile problem files of every kind, number strings, answers
files and output paths, each run keeping the promise of tests/fuzz/harness.py (exit 0, 1 or 2; exit 2 one
line naming the file; no traceback; no NaN; no run past the time bound in a bounded address space).

Hypothesis draws the inputs from a fixed seed (derandomize) and saves nothing, so a run is the same
everywhere; the numbers of examples keep the whole file to well under a minute. A failure prints
the request: add it to tests/fuzz/corpus/ (see its README) so that it stays fixed.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attncalc import kinds

from .harness import Worker, keeps_the_promise

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


# ------------------------------------------------------------------ values that break things

NASTY_STRINGS = [
    "1e999999999",
    "1e-999999999",
    "2^-1074",
    "exp(700)",
    "exp(-700)",
    "exp(1000)",
    "1/0",
    "sqrt(-1)",
    "ln(0)",
    "0^-1",
    "2^2^2^2^2",
    "(1+1e-30)^1000000000",
    "e^100",
    "tanh(1e150)",
    "9" * 60,
    "(" * 50 + "1" + ")" * 50,
    "-" * 60 + "1",
    "nan",
    "inf",
    "-inf",
    "?",
    "",
    " ",
    "[/]",
    "[red]x",
    ":cat:",
    "\x1b[31m",
    "a\nb",
    "\u202e",
    "<script>alert(1)</script>",
    "1/3",
    "0.1",
    "causal",
    "__import__('os')",
]

scalars = st.one_of(
    st.integers(min_value=-(10**45), max_value=10**45),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0, 1, -1, 2, 0.5, 1e-300, 1e300, 1e26, -1e150]),
    st.sampled_from(NASTY_STRINGS),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _paths(v, (*prefix, i))


def _mutate(data: Any, tree: dict[str, Any]) -> dict[str, Any]:
    """One to three changes: a value replaced, a key dropped or added, a list cut or grown."""
    tree = json.loads(json.dumps(tree))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        paths = [p for p in _paths(tree) if p]
        path = data.draw(st.sampled_from(paths), label="path")
        parent: Any = tree
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = data.draw(st.sampled_from(["replace", "replace", "drop", "add", "grow", "cut"]), label="action")
        if action == "replace":
            parent[last] = data.draw(st.one_of(st.sampled_from(NASTY_STRINGS), values), label="value")
        elif action == "drop":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["W", "W_z", "scale", "mask", "gates", "x", "zz"]))] = data.draw(values)
        elif action == "grow" and isinstance(parent[last], list):
            parent[last] = parent[last] + parent[last][:1]
        elif action == "cut" and isinstance(parent[last], list):
            parent[last] = parent[last][:-1]
    return tree


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if v is None:
        return '""'
    if isinstance(v, float):
        return repr(v)
    return json.dumps(v) if isinstance(v, str) else str(v)


def serialize(tree: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(tree)
    if fmt == "yaml":
        return yaml.safe_dump(tree, allow_unicode=True)
    return "".join(f"{json.dumps(str(k))} = {_toml_value(v)}\n" for k, v in tree.items())


TEMPLATES = {k: tomllib.loads(kinds.template(k, None)) for k in kinds.KINDS}


# ------------------------------------------------------------------ problem files of every kind


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
@settings(FUZZ, max_examples=25)
@given(data=st.data())
def test_mutated_problem_files_keep_the_promise(worker: Worker, kind: str, data: Any) -> None:
    tree = _mutate(data, TEMPLATES[kind])
    fmt = data.draw(st.sampled_from(["toml", "json", "yaml"]), label="format")
    name = f"p.{fmt}"
    view = data.draw(st.sampled_from(["text", "json", "markdown", "html", "latex"]), label="view")
    options = data.draw(
        st.lists(st.sampled_from(["--no-exact", "--carry", "--decimals", "--width"]), max_size=2, unique=True)
    )
    args = ["solve", "-f", view, name]
    for o in options:
        args += [o, "0"] if o == "--decimals" else [o, "40"] if o == "--width" else [o]
    request = {"files": {name: serialize(tree, fmt)}, "args": args}
    keeps_the_promise(request, worker.run(request), [name])


# ------------------------------------------------------------------ the number grammar

atoms = st.one_of(
    st.sampled_from(["1e999999999", "1e-999999999", "9" * 41, "0.1e400", "2", "1e308", "1e-308", "700"]),
    st.integers(min_value=0, max_value=10**45).map(str),
    st.tuples(st.integers(0, 999), st.integers(-1200, 1200)).map(lambda t: f"{t[0]}e{t[1]}"),
    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
    st.sampled_from(["e", "pi", "0", "1", "2", "0.5"]),
)
expressions = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^", "**", "−"]), inner).map(
            lambda t: f"({t[0]}){t[1]}({t[2]})"
        ),
        st.tuples(st.sampled_from(["sqrt", "exp", "ln", "log", "tanh"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
        inner.map(lambda s: f"-{s}"),
    ),
    max_leaves=6,
)


@settings(FUZZ, max_examples=60)
@given(
    expr=st.one_of(expressions, st.text(alphabet="0123456789.eE+-*/^()sqrtexplnh ", max_size=30)),
    where=st.sampled_from(["logits", "temperature", "query"]),
    fmt=st.sampled_from(["toml", "json", "yaml"]),
)
def test_number_strings_keep_the_promise(worker: Worker, expr: str, where: str, fmt: str) -> None:
    if where == "query":
        tree: dict[str, Any] = {"kind": "attention", "given": {"query": [expr, 1], "keys": [[1, 0], [0, 2]]}}
    else:
        tree = {"kind": "softmax", "given": {"logits": [expr, 0] if where == "logits" else [1, 2]}}
        if where == "temperature":
            tree["settings"] = {"temperature": expr}
    name = f"p.{fmt}"
    request = {"files": {name: serialize(tree, fmt)}, "args": ["solve", "-f", "json", name]}
    reply = worker.run(request)
    keeps_the_promise(request, reply, [name])
    if reply["exit"] == 2:
        assert "given." in reply["stderr"] or "settings.temperature" in reply["stderr"], reply["stderr"]


# ------------------------------------------------------------------ answers files

PROBLEMS = {
    "attention": 'kind = "attention"\ntokens = ["a", "b"]\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2]]\n'
    '[head]\nW_out = [[1, 0], [0, 1]]\nvocab = ["A", "B"]\n',
    "softmax": 'kind = "softmax"\n[given]\nlogits = [2, 1, 0.1]\ntarget = 0\nhidden = [1, 2]\n'
    'W_out = [[1, 0], [0, 1], [1, 1]]\n[training]\noptimizer = "sgd"\nlr = 0.1\n',
    "gru": kinds.template("gru", None),
    "seq2seq": kinds.template("seq2seq", None),
    "self-attention": kinds.template("self-attention", None),
    "similarity": kinds.template("similarity", None),
}
STEP_IDS = {
    "attention": ["scores", "exponentials", "exp_sum", "weights", "context", "logits", "probabilities", "prediction"],
    "softmax": ["exponentials", "exp_sum", "probabilities", "loss", "gradient", "grad_W_out", "W_out_new"],
    "gru": ["1.r", "1.z", "1.h_tilde", "1.h", "1.r_pre"],
    "seq2seq": ["encoder.1.h", "decoder.1.h", "decoder.1.weights", "decoder.1.probabilities", "loss"],
    "self-attention": ["Q", "scores", "weights", "output"],
    "similarity": ["dots", "cosines", "distances"],
}
answer_values = st.one_of(
    values,
    st.lists(st.one_of(st.floats(-3, 3), st.sampled_from(["?", "1/3", "-inf", "0.155"])), min_size=0, max_size=4),
    st.lists(st.lists(st.one_of(st.floats(-3, 3), st.just("?")), min_size=0, max_size=3), min_size=0, max_size=3),
)


@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_answers_files_keep_the_promise(worker: Worker, data: Any) -> None:
    kind = data.draw(st.sampled_from(sorted(PROBLEMS)), label="problem")
    ids = st.one_of(st.sampled_from(STEP_IDS[kind]), st.text(min_size=1, max_size=8))
    answers = data.draw(st.dictionaries(ids, answer_values, max_size=4), label="answers")
    fmt = data.draw(st.sampled_from(["toml", "json", "yaml"]), label="format")
    name = f"a.{fmt}"
    files = {"p.toml": PROBLEMS[kind]}
    if data.draw(st.booleans(), label="names its problem"):
        files[name] = serialize(
            {"problem": data.draw(st.sampled_from(["p.toml", "", "nope.toml", "."])), **answers}, fmt
        )
        args = ["check", name]
    else:
        files[name] = serialize(answers, fmt)
        args = ["check", "p.toml", name]
    if data.draw(st.booleans(), label="json"):
        args += ["-f", "json"]
    request = {"files": files, "args": args}
    keeps_the_promise(request, worker.run(request), [name, "p.toml", "nope.toml", "."])


# ------------------------------------------------------------------ files that are not what they seem


@settings(FUZZ, max_examples=20)
@given(
    content=st.one_of(
        st.binary(max_size=200).map(lambda b: {"bytes": b.decode("latin-1")}),
        st.text(max_size=200),
        st.sampled_from(["\ufeffkind = 'softmax'\n", "[" * 300 + "]" * 300, "{}", "[]", "null", "---\n...\n"]),
    ),
    ext=st.sampled_from([".toml", ".json", ".yaml", ".yml", ".txt", ""]),
)
def test_arbitrary_bytes_keep_the_promise(worker: Worker, content: Any, ext: str) -> None:
    name = f"p{ext}"
    request = {"files": {name: content}, "args": ["solve", name]}
    keeps_the_promise(request, worker.run(request), [name])


# ------------------------------------------------------------------ output paths

names = st.sampled_from(
    ["out.md", "adir", ".", "afile", "link.md", "dangling", "adir/x.md", "afile/x.md", "new/x.md", "é ü.md", "g", "gf"]
)


def _snapshot_request(layout: dict[str, Any], args: list[str]) -> dict[str, Any]:
    return {"files": layout["files"], "dirs": layout["dirs"], "links": layout["links"], "args": args}


LAYOUT = {
    "files": {
        "p.toml": PROBLEMS["attention"],
        "afile": "keep me",
        "out.md": "keep me too",
        "adir/kept.md": "kept",
        "gf/answers": "a file where generate needs a folder",
    },
    "dirs": ["adir", "g/answers", "gf"],
    "links": {"link.md": "afile", "dangling": "nowhere"},
}


@settings(FUZZ, max_examples=25)
@given(target=names, force=st.booleans(), command=st.sampled_from(["solve", "solve", "generate"]))
def test_output_paths_keep_the_promise(worker: Worker, target: str, force: bool, command: str) -> None:
    """Exit 0 or one line naming the path; nothing that existed changes without --force, and with it
    only what the command writes; no temporary file is left behind."""
    if command == "solve":
        args = ["solve", "p.toml", "-f", "markdown", "-o", target]
    else:
        args = ["generate", "--out", target, "--count", "1"]
    request = _snapshot_request(LAYOUT, [*args, "--force"] if force else args)
    reply = worker.run(request)
    keeps_the_promise(request, reply, [target, target.split("/")[0]])
    before, after = reply["before"], reply["after"]
    changed = {k for k in before if after.get(k) != before[k]}
    if not force:
        assert not changed, (changed, request)
    elif command == "solve":
        assert changed <= {target}, (changed, request)
    assert not [k for k in after if k.split("/")[-1].startswith(".") and k.endswith(".tmp")], after


def test_the_worker_reports_what_it_must(worker: Worker) -> None:
    """The harness itself: a traceback, a second line and a NaN are caught (a test that cannot fail
    is no test)."""
    request = {"files": {"p.toml": PROBLEMS["attention"]}, "args": ["solve", "p.toml", "-f", "json"]}
    reply = worker.run(request)
    keeps_the_promise(request, reply, ["p.toml"])
    with pytest.raises(AssertionError):
        keeps_the_promise(request, {**reply, "crash": "Traceback (most recent call last): ..."}, ["p.toml"])
    with pytest.raises(AssertionError):
        keeps_the_promise(request, {**reply, "exit": 2, "stderr": "attncalc: error: p.toml: x\nmore\n"}, ["p.toml"])
    with pytest.raises(AssertionError):
        keeps_the_promise(request, {**reply, "stdout": '{"value": NaN}'}, ["p.toml"])
    assert json.loads(reply["stdout"])["kind"] == "attention"  # the view came back whole
