"""The Python API: ``attncalc.solve``, ``attncalc.check``, ``attncalc.generate`` and ``attncalc.plot``.

Its place in the pipeline (parse → mechanisms → derivation → render | check → reports → cli | serve;
docs/contributing.md, "The layers"): the Python face of the whole pipeline (what cli does for a shell).

They return the objects the commands render (a :class:`~attncalc.derivation.Derivation`, a
:class:`~attncalc.check.Report`, the generated variants) and raise
:class:`~attncalc.errors.AttncalcError` (a :class:`~attncalc.errors.ProblemError` for bad input)
with the one line the command prints after ``attncalc: error:``; they never exit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..check import Report, Tolerance, load_answers
from ..check import check as _grade
from ..derivation import Derivation
from ..errors import ProblemError
from ..homework.generate import Options, answer_key, check_options, default_dim
from ..homework.generate import generate as _draw
from ..mechanisms import solve as _solve
from ..parse import Problem, load_problem, parse_problem, read_raw
from ..parse.top import TOP_KEYS, top_keys
from .args import (
    GENERATE_RANGES,
    MAX_SEED_DIGITS,
    checked,
    describe,
    in_range,
    keywords_checked,
    misspelt_option,
    plain,
)
from .homework_files import QUIZZES, homework_files, homework_names, write_homework

#: keyword arguments of solve() that are top-level keys or tables of a problem file (every other
#: keyword goes under [given]): the kinds' declared top-level keys, as the parser knows them (as the
#: registry stood at import; solve() asks the registry anew)
TOP_LEVEL = tuple(k for k in TOP_KEYS if k != "given")

ProblemLike = str | Path | Mapping[str, Any] | Problem


def _from_keywords(keys: dict[str, Any]) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    given_raw = keys.pop("given", None)
    if given_raw is not None and not isinstance(given_raw, Mapping):
        raise ProblemError("<keywords>", "given", f"expected a table of keys, got {describe(given_raw)}")
    given: dict[str, Any] = dict(given_raw or {})
    for name, value in keys.items():
        if name != "given" and name in top_keys() and not _given_only(keys.get("kind"), name):
            raw[name] = value
        else:
            if given_raw is not None and name in given_raw:  # solve(query=..., given={"query": ...})
                raise ProblemError("<keywords>", name, f"given twice, as {name}=... and in given={{...}}: give it once")
            given[name] = value
    if given:
        raw["given"] = given
    return raw


def _given_only(kind: Any, name: str) -> bool:
    """A top-level key's name that the kind has no top-level key for but declares in ``[given]``
    (accounting's ``tokens``, a count, not the labels of the attention kinds): a key of ``[given]``."""
    from ..kinds import KINDS

    if not isinstance(kind, str) or kind not in KINDS:
        return False
    top = KINDS[kind].declaration.top
    given = top["given"].table if "given" in top else None
    return name not in top and given is not None and name in given


def problem_of(problem: ProblemLike, label: str = "<dict>") -> Problem:
    """A typed problem from a path, a dict shaped like a problem file, or a Problem as it is."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, (str, Path)):
        return load_problem(problem)
    if isinstance(problem, Mapping):
        raw = plain(problem, label)
        if "title" not in raw and isinstance(raw.get("kind"), str):
            raw = {"title": f"{raw['kind']} problem", **raw}
        return parse_problem(raw, label)
    raise ProblemError(label, "", f"expected a path, a dict or a Problem, got {describe(problem)}")


def solve(
    problem: ProblemLike | None = None,
    /,
    *,
    decimals: int | None = None,
    exact: bool | None = None,
    carry: bool | None = None,
    **keys: Any,
) -> Derivation:
    """Solve a problem and return its derivation, as ``attncalc solve`` computes it.

    ``problem`` is the path of a problem file (TOML, YAML or JSON), or a dict with the same keys
    as a problem file. Or give the problem as keywords instead: ``kind``, ``score``, ``measure``,
    ``title``, ``description`` and ``tokens`` are top-level keys; ``settings``, ``head``, ``cell``,
    ``training``, ``encoder``, ``decoder`` (and ``given``, ``answers``) take a dict each for that
    table; every other keyword is a key of ``[given]``, and so is a top-level name the kind has only
    in ``[given]`` (kind accounting's ``tokens=512``, a count; ``given={"tokens": 512}`` says it too)::

        d = attncalc.solve(kind="attention", score="dot", query=[1, 1], keys=[[1, 0], [0, 2]])
        d["weights"]  # [0.2689..., 0.7310...]

    Numbers may be ints, floats, strings of the number grammar ("1/3", "sqrt(2)") or numpy
    arrays. ``decimals``, ``exact`` and ``carry`` override the problem's settings as
    ``--decimals``, ``--exact/--no-exact`` and ``--carry/--no-carry`` do. Bad input raises
    :class:`~attncalc.errors.ProblemError` naming the file (``<dict>`` or ``<keywords>``) and key.
    """
    flags = checked(solve, "attncalc.solve", {"decimals": decimals, "exact": exact, "carry": carry})
    decimals, exact, carry = flags["decimals"], flags["exact"], flags["carry"]
    if problem is not None and keys:
        misspelt_option(keys, ["decimals", "exact", "carry"])  # solve(path, decimal=3)
        raise ProblemError(
            "attncalc.solve", ", ".join(sorted(keys)), "give a problem (a path or a dict) or keywords, not both"
        )
    if problem is None:
        if not keys:
            raise ProblemError("attncalc.solve", "", "no problem: give a path, a dict, or keywords such as kind=...")
        target = problem_of(_from_keywords(keys), "<keywords>")
    else:
        target = problem_of(problem)
    if decimals is not None and (
        isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 12
    ):
        raise ProblemError(
            "attncalc.solve", "decimals", f"expected a whole number from 0 to 12, got {describe(decimals)}"
        )
    return _solve(target, exact=exact, decimals=decimals, carry_rounded=carry)


@keywords_checked("attncalc.check")
def check(
    problem: ProblemLike,
    answers: str | Path | Mapping[str, Any] | None = None,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    sigfigs: int | None = None,
) -> Report:
    """Grade answers against a problem step by step, as ``attncalc check PROBLEM ANSWERS`` does.

    ``answers`` is the path of an answers file or a dict keyed by step id (``{"weights": [0.27,
    0.73]}``; numbers as written keep their decimals when given as strings, ``"0.270"``), read as a
    file's table is (``student`` and ``problem`` are checked, not graded: the problem given here wins;
    ``{"answers": {...}}`` is the table under ``[answers]``); None
    grades the problem's own ``[answers]`` table. ``rtol``, ``atol`` and ``sigfigs`` are the
    command's tolerances. Returns the :class:`~attncalc.check.Report`: ``report.all_correct``,
    ``report.results``, ``report.to_json()`` (the command's JSON), ``report.to_text()``.
    """
    given = checked(check, "attncalc.check", {"rtol": rtol, "atol": atol, "sigfigs": sigfigs})
    rtol, atol, sigfigs = given["rtol"], given["atol"], given["sigfigs"]
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value is not None and not value >= 0:
            raise ProblemError("attncalc.check", name, f"expected a tolerance of 0 or more, got {describe(value)}")
    if sigfigs is not None and not 1 <= sigfigs <= 15:
        raise ProblemError(
            "attncalc.check", "sigfigs", f"expected 1 to 15 significant figures, got {describe(sigfigs)}"
        )
    if answers is None and isinstance(problem, (str, Path)):  # an answers file naming its problem, as on the CLI
        raw = read_raw(problem)
        if "problem" in raw and "kind" not in raw:
            own, own_problem = load_answers(problem)
            assert own_problem is not None
            return _grade(problem_of(own_problem), own, str(problem), Tolerance(rtol=rtol, atol=atol, sigfigs=sigfigs))
    target = problem_of(problem)
    tol = Tolerance(rtol=rtol, atol=atol, sigfigs=sigfigs)
    if answers is None:
        if not target.answers:
            raise ProblemError(target.path, "answers", "none to check; give answers or an [answers] table")
        return _grade(target, target.answers, target.path, tol, key_prefix="answers.")
    if isinstance(answers, (str, Path)):
        raw, _own_problem = load_answers(answers)  # the problem given here wins, as on the command line
        return _grade(target, raw, str(answers), tol)
    if isinstance(answers, Mapping):  # read as a file's table is: student, problem and [answers] are no steps
        from ..check.answers import answers_of_table

        raw, _own_problem, _student = answers_of_table(plain(answers, "<answers>"), "<answers>", False)
        return _grade(target, raw, "<answers>", tol)
    raise ProblemError("<answers>", "", f"expected a path or a dict of step ids, got {describe(answers)}")


@dataclass(frozen=True)
class Variant:
    """One generated variant: its problem table, its derivation, and its key (step id → shown value)."""

    problem: dict[str, Any]
    derivation: Derivation
    key: dict[str, Any]


@keywords_checked("attncalc.generate")
def generate(
    *,
    kind: str = "attention",
    score: str | None = None,
    tokens: int = 3,
    dim: int | None = None,
    head: bool = False,
    mask: str | None = None,
    count: int = 1,
    seed: int = 0,
    values: str = "int",
    allow_ties: bool = False,
    decimals: int = 3,
    layout: str = "gates",
    reset: str | None = None,
    update: str = "keep",
    cell: str | None = None,
    attention: str = "luong",
    steps: int = 2,
    measure: str | None = None,
    heads: int = 2,
    kv_heads: int | None = None,
    positions: str | None = None,
    cross: bool = False,
    strategy: str | None = None,
    optimizer: str | None = None,
    clip_norm: float | None = None,
    label_smoothing: float | None = None,
    schedule: str | None = None,
    window: int | None = None,
    normalization: str | None = None,
    activation: str | None = None,
    norm: str | None = None,
    top_k: int | None = None,
    slip_share: float | None = None,
    carried_share: float | None = None,
    out: str | Path | None = None,
    format: str = "markdown",
    detail: str = "first",
    force: bool = False,
    max_pages: int | None = None,
    name: str = "",
) -> list[Variant]:
    """Draw seeded homework variants, as ``attncalc generate`` does with the same options.

    Returns the variants; each ``key`` is the answers file's content as a dict (the true values at
    ``decimals``, as strings) and grades as all correct with ``attncalc.check(v.problem, v.key)``.
    Nothing is written unless ``out`` names a folder: then the command's files are written there
    (problem files, answer keys, sheets in ``format``, the solutions at ``detail``: full | first |
    summary), never over existing files without ``force``. ``max_pages`` bounds a PDF sheet as
    ``--max-pages`` does (default 500; a longer sheet is refused before typesetting). ``name``
    (``generate --name``) goes into the quiz's identifiers, so that sets drawn with the same options
    and seed differ. ``slip_share`` (``generate --slip-share``, 0 to 1) is written into every problem
    as ``[grading] slip``: the share of a step's points a named slip earns, in check and every quiz;
    ``carried_share`` (``--carried-share``) as ``[grading] carried``: what a step carried from it earns.
    """
    a = checked(generate, "attncalc.generate", dict(locals()))  # every option, as its annotation types it
    for option, (low, high) in GENERATE_RANGES.items():
        in_range("attncalc.generate", option, a[option], low, high)
    if abs(a["seed"]) >= 10**MAX_SEED_DIGITS:  # the seed is written into every problem file
        raise ProblemError(
            "attncalc.generate", "seed", f"expected at most {MAX_SEED_DIGITS} digits, got {describe(seed)}"
        )
    kind, count, format, detail, force, out, seed = (
        a[k] for k in ("kind", "count", "format", "detail", "force", "out", "seed")
    )
    dim = a["dim"] if a["dim"] is not None else default_dim(kind)
    opts = Options(
        **{f.name: a[f.name] for f in fields(Options) if f.name not in ("dim", "one_shape")},
        dim=dim,
        one_shape=format in QUIZZES,  # a quiz's variants ask the same questions for the same points
    )
    check_options(opts)  # count first: the folder's check lists count names
    from ..render.timeline import check_detail
    from ..reports.lms import check_name

    check_name(name)
    check_detail(detail)
    homework_names(count, format)  # the format checked with or without out, as the command names it
    if out is not None:  # what stands in the way is named before any variant is drawn
        from ..files import check_folder, out_folder

        check_folder(out_folder(out), homework_names(count, format), force)
    from ..reports.lms import shape

    result = _draw(opts, shape)
    variants = []
    for raw, d in zip(result.problems, result.derivations, strict=True):
        variants.append(Variant(raw, d, answer_key(d)))
    if out is not None:
        files = homework_files(result.problems, result.derivations, format, seed, detail, a["max_pages"], name)
        write_homework(out_folder(out), files, force)
    return variants


@keywords_checked("attncalc.plot")
def plot(
    problem: ProblemLike | Derivation,
    step: str | None = None,
    format: str = "svg",
    *,
    decimals: int | None = None,
    dpi: int = 200,
) -> bytes:
    """A step's matrix or vector as a heat map, as ``attncalc plot`` draws it: the file's bytes.

    ``problem`` is what :func:`solve` takes, or a derivation it returned. ``step`` is a step id, or
    a template with ``t`` for every head or time step (``head.t.weights``, ``decoder.t.weights``);
    None draws the attention weights. ``format`` is ``"svg"``, ``"pdf"`` or ``"png"`` (``dpi``: its
    pixels per inch); ``decimals`` overrides the problem's, as ``--decimals`` does (a derivation is
    solved again for it). Needs matplotlib (``pip install 'attncalc[plots]'``); without it, and for
    a step that is one number or a label, raises :class:`~attncalc.errors.AttncalcError`::

        Path("weights.svg").write_bytes(attncalc.plot("problems/mh-self-attention.toml"))
    """
    from ..render.plot import FORMATS
    from ..render.plot import plot as draw

    a = checked(plot, "attncalc.plot", {"step": step, "format": format, "decimals": decimals, "dpi": dpi})
    step, format, decimals, dpi = a["step"], a["format"], a["decimals"], a["dpi"]
    if format not in FORMATS:
        raise ProblemError("attncalc.plot", "format", f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 50 <= dpi <= 1200:
        raise ProblemError("attncalc.plot", "dpi", f"expected a whole number from 50 to 1200, got {describe(dpi)}")
    in_range("attncalc.plot", "decimals", decimals, 0, 12)  # named here, not as attncalc.solve's
    if isinstance(problem, Derivation):
        d = problem
        if decimals is not None:
            d = solve(d.problem, decimals=decimals, exact=d.exact_requested, carry=d.carry_rounded)
    else:
        d = solve(problem, decimals=decimals)
    return draw(d, step, format, dpi=dpi, option="step")
