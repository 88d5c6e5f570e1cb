"""Fuzzing the Transformer and decoding surfaces: the Transformer and decoding kinds' examples (every
strategy, mask, cache and sublayer the examples use), their answers files, ``plot``, ``generate`` in
every homework format, and the Python API; each run keeps the promise of tests/fuzz/harness.py (exit 0, 1 or
2; exit 2 one line naming the file; no traceback; no NaN or Infinity in JSON; bounded in time and
memory, in the worker process). An API call keeps its own: a value or an ``AttncalcError``, nothing
else.

As tests/fuzz/test_fuzz.py: Hypothesis draws from a fixed seed (derandomize) and saves nothing; the
numbers of examples keep the file to about a minute. A failure prints the request: add it to
tests/fuzz/corpus/ (see its README).
"""

from __future__ import annotations

import base64
import json
import pickle
import tomllib
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import attncalc
from attncalc import kinds
from attncalc.api.args import describe

from ..helpers import PROBLEMS
from .harness import Worker, keeps_the_promise
from .test_fuzz import FUZZ, NASTY_STRINGS, _mutate, serialize, values

#: the kinds added after the first round of hostile input: their examples are the seeds
SECOND_WAVE = ("multi-head", "positional-encoding", "transformer-layer", "decode", "bleu")
EXAMPLES = {
    p.name: tomllib.loads(p.read_text(encoding="utf-8"))
    for p in sorted(PROBLEMS.glob("*.toml"))
    if tomllib.loads(p.read_text(encoding="utf-8")).get("kind") in SECOND_WAVE
}
#: the step ids of each example, for answers files and plot's --step
STEP_IDS = {name: list(attncalc.solve(raw, exact=False).step_ids) for name, raw in EXAMPLES.items()}


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


def test_every_second_wave_kind_has_an_example() -> None:
    assert {raw["kind"] for raw in EXAMPLES.values()} == set(SECOND_WAVE)
    assert set(SECOND_WAVE) <= set(kinds.KINDS)


# ------------------------------------------------------------------ problem files of the examples


@pytest.mark.parametrize("example", sorted(EXAMPLES))
@settings(FUZZ, max_examples=6)
@given(data=st.data())
def test_mutated_examples_keep_the_promise(worker: Worker, example: str, data: Any) -> None:
    tree = _mutate(data, EXAMPLES[example])
    fmt = data.draw(st.sampled_from(["toml", "json", "yaml"]), label="format")
    name = f"p.{fmt}"
    view = data.draw(st.sampled_from(["text", "json", "markdown", "html", "latex"]), label="view")
    extra = data.draw(st.sampled_from([[], ["--no-exact"], ["--carry"], ["--detail", "summary"]]), label="options")
    request = {"files": {name: serialize(tree, fmt)}, "args": ["solve", "-f", view, name, *extra]}
    reply = worker.run(request)
    event(f"exit {reply['exit']}")
    keeps_the_promise(request, reply, [name])


# ------------------------------------------------------------------ their answers files

answer_values = st.one_of(
    values,
    st.lists(st.one_of(st.floats(-3, 3), st.sampled_from(["?", "1/3", "-inf", "0.155", "cat"])), max_size=4),
    st.lists(st.lists(st.one_of(st.floats(-3, 3), st.just("?")), max_size=3), max_size=3),
)


@settings(FUZZ, max_examples=30)
@given(data=st.data())
def test_answers_to_the_examples_keep_the_promise(worker: Worker, data: Any) -> None:
    example = data.draw(st.sampled_from(sorted(EXAMPLES)), label="example")
    ids = st.one_of(st.sampled_from(STEP_IDS[example]), st.text(min_size=1, max_size=8))
    answers = data.draw(st.dictionaries(ids, answer_values, max_size=4), label="answers")
    fmt = data.draw(st.sampled_from(["toml", "json", "yaml"]), label="format")
    name = f"a.{fmt}"
    files = {"p.toml": (PROBLEMS / example).read_text(encoding="utf-8"), name: serialize(answers, fmt)}
    args = ["check", "p.toml", name]
    if data.draw(st.booleans(), label="json"):
        args += ["-f", "json"]
    request = {"files": files, "args": args}
    keeps_the_promise(request, worker.run(request), [name, "p.toml"])


# ------------------------------------------------------------------ plot


@settings(FUZZ, max_examples=15)
@given(data=st.data())
def test_plot_keeps_the_promise(worker: Worker, data: Any) -> None:
    """A mutated example (or a kind's template) drawn with a step from its ids, a template with t, or
    nonsense, in each format and at dpi from the bounds and past them."""
    source = data.draw(st.sampled_from([*sorted(EXAMPLES), "attention", "self-attention", "seq2seq"]), label="problem")
    seed = EXAMPLES.get(source) or tomllib.loads(kinds.template(source, None))
    tree = _mutate(data, seed) if data.draw(st.integers(0, 2), label="mutate") == 0 else seed
    ids = STEP_IDS.get(source, ["weights", "scores"])
    step = data.draw(
        st.one_of(
            st.none(),
            st.sampled_from(ids),
            st.sampled_from(["head.t.weights", "self.head.t.weights", "decoder.t.weights", "t.h", "positions"]),
            st.text(max_size=10),
        ),
        label="step",
    )
    out = data.draw(st.sampled_from(["w.svg", "w.png", "w.pdf", "w.txt", "adir/w.svg"]), label="output")
    args = ["plot", "p.json", "-o", out]
    if step is not None:
        args += ["--step", step]
    if out.endswith(".png"):
        args += ["--dpi", str(data.draw(st.sampled_from([50, 200, 1200, 49, 5000]), label="dpi"))]
    request = {"files": {"p.json": json.dumps(tree)}, "args": args}
    reply = worker.run(request)
    event(f"exit {reply['exit']}")  # --hypothesis-show-statistics: how many figures were drawn
    keeps_the_promise(request, reply, ["p.json", out, "--dpi"])


# ------------------------------------------------------------------ generate, every homework format

small = st.one_of(st.integers(1, 4), st.sampled_from([0, -1, 9, 100]))


@settings(FUZZ, max_examples=24)
@given(data=st.data())
def test_generate_keeps_the_promise(worker: Worker, data: Any) -> None:
    """Any kind in any format (pdf for the Transformer and decoding kinds, about one time in ten): half the runs
    with options in range only, which must make the set; the others with options out of range or
    not the kind's too. Exit 0 writes under --out only; exit 2 is one line naming an option or the folder."""
    kind = data.draw(st.sampled_from(kinds.with_drawer()), label="kind")
    fmt = data.draw(
        st.sampled_from(["markdown", "latex", "html", "moodle", "qti", "qti12"] * 2 + ["pdf"] * (kind in SECOND_WAVE)),
        label="format",
    )
    strategy = data.draw(st.sampled_from([None, "greedy", "sample", "top-k", "top-p", "beam"]), label="strategy")
    in_range = data.draw(st.booleans(), label="options in range only")
    if in_range and kind != "decode":
        strategy = None
    seed = str(data.draw(st.integers(0, 10**6), label="seed"))
    args = ["generate", "--kind", kind, "--format", fmt, "--out", "out", "--seed", seed]
    args += ["--detail", data.draw(st.sampled_from(["full", "first", "summary"]), label="detail")]
    if strategy is not None:
        args += ["--strategy", strategy]
    for option, value in () if in_range else OPTIONS:
        if data.draw(st.booleans(), label=option):
            args += [option, str(data.draw(value, label=option + " value"))]
    if not in_range and data.draw(st.booleans(), label="cross"):
        args += ["--cross"]
    request = {"files": {}, "args": args}
    reply = worker.run(request)
    event(f"exit {reply['exit']}" + (" (options in range)" if in_range else ""))
    keeps_the_promise(request, reply, ["generate", "out", *(a for a in args if a.startswith("--"))])
    written = set(reply["after"]) - set(reply["before"])
    assert all(k == "out" or k.startswith("out/") for k in written), (written, request)
    if in_range:
        assert reply["exit"] == 0, f"{reply['stderr']}\nrequest: {request}"
    if reply["exit"] == 0:
        assert "out/variant-01.toml" in written and "out/answers/variant-01.toml" in written, written


#: generate's options with values in range and out of it (or not the kind's)
OPTIONS = (
    ("--tokens", small),
    ("--dim", small),
    ("--count", st.sampled_from([1, 2])),
    ("--heads", small),
    ("--steps", small),
    ("--decimals", st.sampled_from([0, 3, 6, 7])),
    ("--values", st.sampled_from(["int", "decimal", "mixed", "x"])),
    ("--mask", st.sampled_from(["causal", "x"])),
    ("--positions", st.sampled_from(["sinusoidal", "rope", "alibi", "x"])),
)


# ------------------------------------------------------------------ the Python API


def _native(data: Any) -> Any:
    """What a Python caller may pass that no file holds: tuples, numpy arrays and scalars (long double
    too), huge ints, Decimals, None, sets, bytes."""
    return data.draw(
        st.one_of(
            st.sampled_from(
                [
                    (1, 2),
                    np.array([1.0, 2.0]),
                    np.array([[1, 0], [0, 1]]),
                    np.longdouble(1) / 3,
                    np.float32("nan"),
                    np.int64(3),
                    10**5000,
                    Decimal("NaN"),
                    None,
                    {1, 2},
                    b"x",
                    1 + 2j,
                    np.array([1j]),
                    np.array("x"),
                ]
            ),
            st.sampled_from(NASTY_STRINGS),
            values,
        ),
        label="native value",
    )


def _call(worker: Worker, api: str, *args: Any, **kwargs: Any) -> int:
    request = {"api": api, "args": ["api", api], "pickle": base64.b64encode(pickle.dumps((args, kwargs))).decode()}
    reply = worker.run(request)
    where = f"\nattncalc.{api}(*{describe(args)}, **{describe(kwargs)})"
    assert not reply["crash"], f"{reply['crash']}{where}"
    assert reply["exit"] in (0, 2), where
    if reply["exit"] == 2:
        assert reply["stderr"].count("\n") == 1, reply["stderr"] + where
    return int(reply["exit"])


@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_the_api_raises_only_attncalc_errors(worker: Worker, data: Any) -> None:
    """A mutated template or example given to solve, check or plot, with Python values put in, and
    hostile keywords."""
    source = data.draw(st.sampled_from(sorted(EXAMPLES) + sorted(kinds.KINDS)), label="problem")
    seed = EXAMPLES.get(source) or tomllib.loads(kinds.template(source, None))
    tree: Any = _mutate(data, seed)
    for _ in range(data.draw(st.integers(0, 2), label="python values")):
        # (the paths of the tree as it is now: a value put in before may have replaced a table)
        paths = [p for p in _paths(tree) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="where")
        parent = tree
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = _native(data)
    api = data.draw(st.sampled_from(["solve", "check", "plot"]), label="api")
    keywords: dict[str, Any] = {}
    options = {
        "solve": ["decimals", "exact", "carry"],
        "check": ["rtol", "atol", "sigfigs"],
        "plot": ["decimals", "dpi"],
    }
    for key in data.draw(st.lists(st.sampled_from(options[api]), max_size=2, unique=True), label="keywords"):
        keywords[key] = _native(data)
    if api == "check":
        ids = st.one_of(st.sampled_from(STEP_IDS.get(source, ["weights", "scores"])), st.text(max_size=6))
        answers = data.draw(st.dictionaries(ids, answer_values, max_size=3), label="answers")
        code = _call(worker, api, tree, answers, **keywords)
    elif api == "plot":
        step = data.draw(st.one_of(st.none(), st.sampled_from(["weights", "head.t.weights"])), label="step")
        code = _call(worker, api, tree, step, **keywords)
    else:
        code = _call(worker, api, tree, **keywords)
    event(f"exit {code}")


@settings(FUZZ, max_examples=15)
@given(data=st.data())
def test_generate_from_the_api_raises_only_attncalc_errors(worker: Worker, data: Any) -> None:
    names = ["kind", "score", "tokens", "dim", "count", "seed", "values", "heads", "kv_heads", "strategy", "detail"]
    keywords = {k: _native(data) for k in data.draw(st.lists(st.sampled_from(names), max_size=2, unique=True))}
    event(f"exit {_call(worker, 'generate', **keywords)}")


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _paths(v, (*prefix, i))


def test_the_api_worker_reports_a_crash(worker: Worker) -> None:
    """The harness itself: an exception that is not attncalc's is caught as a crash (a test that cannot
    fail is no test): attncalc.solve's own argument check is bypassed by calling a missing function."""
    with pytest.raises(AssertionError):
        _call(worker, "no_such_function")
    _call(worker, "solve", kind="softmax", logits=[1, 2])
