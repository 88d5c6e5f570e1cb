"""What the kind registry decides: the settings a kind takes, its convention, its header
line, its plot's default step and how its entries are named come from its one entry in
attncalc/kinds/__init__.py, and the parser and the JSON Schema agree because they read the same declaration."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from attncalc import kinds
from attncalc.errors import ProblemError
from attncalc.parse import parse_problem, settings_table

from ..helpers import PROBLEMS, solve_file


def value_of(key: str) -> Any:
    """A value the settings key accepts: its declared default, or 0.5 for a number without one (a
    temperature, a label smoothing ε)."""
    k = settings_table()[key]
    return k.default if k.default is not None or k.type != "number" else 0.5


def settings_of(kind: str) -> tuple[str, ...]:
    return kinds.entry(kind).declaration.top["settings"].table.names  # type: ignore[union-attr]


def template_with(kind: str, key: str) -> dict[str, Any]:
    raw = tomllib.loads(kinds.template(kind))
    raw.setdefault("settings", {})[key] = value_of(key)
    return raw


@pytest.mark.parametrize("kind", list(kinds.KINDS))
def test_the_parser_refuses_exactly_the_settings_the_declaration_leaves_out(kind: str) -> None:
    """Every settings key the kind's declaration lists is read; every other one is refused by name,
    the message naming the kinds that take it (multi-head's convention = "row" was accepted before)."""
    for key in settings_table().names:
        raw = template_with(kind, key)
        if key in settings_of(kind):
            try:
                parse_problem(raw, "t.toml")
            except ProblemError as e:  # a cross-key rule (rope only with type rope), not the kind's refusal
                assert "applies to kind" not in str(e) and "throughout" not in str(e), str(e)
            continue
        with pytest.raises(ProblemError) as e:
            parse_problem(raw, "t.toml")
        assert e.value.key == f"settings.{key}", (kind, key)
        takers = [k for k in kinds.KINDS if key in settings_of(k)]
        assert all(repr(k) in str(e.value) for k in takers) or "convention" in str(e.value), str(e.value)


def test_a_row_convention_kind_refuses_convention_even_when_it_says_row() -> None:
    """The schema leaves settings.convention out of multi-head, so the parser refuses it whatever it says."""
    for value in ("row", "column", "default"):
        raw = tomllib.loads(kinds.template("multi-head"))
        raw.setdefault("settings", {})["convention"] = value
        with pytest.raises(ProblemError, match="uses the row convention"):
            parse_problem(raw, "t.toml")


@pytest.mark.parametrize(
    ("convention", "fixed", "setting", "row"),
    [
        ("column", False, "default", False),
        ("column", False, "row", True),
        ("row", False, "default", True),
        ("row", False, "column", False),
        ("column", True, "row", False),
        ("row", True, "column", True),
    ],
)
def test_the_row_convention_follows_the_entry(
    monkeypatch: pytest.MonkeyPatch, convention: str, fixed: bool, setting: str, row: bool
) -> None:
    """Problem.row_convention reads the kind's entry: its default, and whether settings may choose."""
    from dataclasses import replace

    p = solve_file("decoder-dot.toml").problem
    # a fixed convention is a declaration whose settings leave `convention` out (multi-head's)
    schema = "attncalc.schema.transformer:MULTI_HEAD" if fixed else kinds.KINDS["attention"].schema
    entry = replace(kinds.KINDS["attention"], convention=convention, schema=schema)
    assert entry.convention_fixed is fixed
    monkeypatch.setitem(kinds.KINDS, "attention", entry)
    assert replace(p, settings=replace(p.settings, convention=setting)).row_convention is row


@pytest.mark.parametrize("kind", list(kinds.KINDS))
def test_a_fixed_convention_is_read_from_the_declaration(kind: str) -> None:
    """convention_fixed is read from the declaration: a kind whose settings take `convention` with both
    choices may choose it; one whose settings leave it out, or allow only its own, always uses its
    entry's convention and refuses the other (and, when the key is left out, any value)."""
    e = kinds.entry(kind)
    settings = settings_of(kind)
    choices = (
        set(kinds.entry(kind).declaration.top["settings"].table["convention"].choices or ())
        if "convention" in settings
        else set()
    )  # type: ignore[union-attr]
    assert e.convention_fixed is ("convention" not in settings or not {"row", "column"} <= choices)
    raw = template_with(kind, "convention")
    if not e.convention_fixed:
        return
    for value in ("row", "column", "default"):
        raw["settings"]["convention"] = value
        if value in choices:  # an rnn's "column" (or "default"): what it does anyway
            assert parse_problem(raw, "t.toml").row_convention is (e.convention == "row")
            continue
        with pytest.raises(ProblemError, match=f"uses the {e.convention} convention") as err:
            parse_problem(raw, "t.toml")
        assert err.value.key == "settings.convention"


def test_the_interface_names_every_kind_whose_convention_is_fixed() -> None:
    import re

    from ..helpers import ROOT

    text = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8")
    start = text.index("The kinds whose convention is fixed")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([a-z0-9-]+)`", paragraph))
    for kind, e in kinds.BUILTIN.items():  # a plugin kind documents itself
        assert (kind in named) is e.convention_fixed, (
            f"docs/interface.md: {kind!r} (convention_fixed={e.convention_fixed})"
        )


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru", "seq2seq"])
def test_a_recurrent_kind_refuses_the_convention_it_ignored(kind: str) -> None:
    """The recurrent kinds compute W x throughout, but the parser accepted "row" and ignored it: "row"
    is refused now, and "column" (what they do) still reads, so no working file breaks."""
    raw = template_with(kind, "convention")
    raw["settings"]["convention"] = "row"
    with pytest.raises(ProblemError, match=r"settings\.convention.*uses the column convention \(W x\) throughout"):
        parse_problem(raw, "t.toml")
    raw["settings"]["convention"] = "column"
    assert parse_problem(raw, "t.toml").row_convention is False


def test_every_kind_has_a_header_and_its_hooks_load() -> None:
    """Each entry's header function and entry namer exist (a typo in a path fails here, not in a sheet)."""
    for kind, e in kinds.KINDS.items():
        assert callable(e.load("header")), kind
        if e.entry_name is not None:
            assert callable(e.load("entry_name")), kind


def test_the_header_comes_from_the_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """describe() calls the function the kind's entry names, nothing else."""
    from dataclasses import replace

    from attncalc.render.describe import describe

    p = solve_file("decoder-dot.toml").problem
    assert describe(p) == ["attention", "dot score", "column convention (W x)"]
    monkeypatch.setitem(
        kinds.KINDS, "attention", replace(kinds.KINDS["attention"], header="attncalc.mechanisms.bleu:header")
    )
    with pytest.raises(TypeError, match="carries Attention, not Bleu"):  # the bleu header reads a Bleu payload
        describe(p)


@pytest.mark.parametrize("path", sorted(PROBLEMS.glob("*.toml")), ids=lambda p: p.stem)
def test_the_plot_draws_the_kinds_own_weights_by_default(path: Any) -> None:
    """plot's default step is the entry's plot_step when the derivation has it: the step of that id,
    or every step of that template (``t`` standing for a number); whatever the step is called."""
    import re

    from attncalc.render.plot_figure import _select

    d = solve_file(path.name)
    spec = kinds.entry(d.problem.kind).plot_step
    pattern = None if spec is None else r"\.".join(r"\d+" if p == "t" else re.escape(p) for p in spec.split("."))
    wanted = [s for s in d.steps if pattern is not None and re.fullmatch(pattern, s.id)]
    if not wanted:
        with pytest.raises(ProblemError, match="no attention weights"):
            _select(d, None, "--step")
    else:
        assert _select(d, None, "--step") == wanted


def test_the_recurrent_family_comes_from_the_registry() -> None:
    """The kinds that run a cell over time steps are flagged on their entries, and are these four."""
    from attncalc.parse import RECURRENT_KINDS

    assert RECURRENT_KINDS == kinds.recurrent() == ("rnn", "lstm", "gru", "seq2seq")


def test_the_extra_tables_are_the_entrys(monkeypatch: pytest.MonkeyPatch) -> None:
    """attention's table of the weights is drawn because its entry names it after the weights step."""
    from dataclasses import replace

    d = solve_file("decoder-dot.toml")
    with_table = d.to_markdown()
    monkeypatch.setitem(kinds.KINDS, "attention", replace(kinds.KINDS["attention"], tables=()))
    without = d.to_markdown()
    assert len(without) < len(with_table) and set(without.splitlines()) < set(with_table.splitlines())


def test_renderers_and_check_find_kind_specifics_through_the_registry() -> None:
    """No renderer, report or grading module compares a problem's kind with a kind's name (the
    registry's hooks say it). The timeline, which draws only the recurrent family, tells seq2seq's
    encoder-decoder layout from a single cell: that is the one exception."""
    import re
    from pathlib import Path

    root = Path(kinds.__file__).parent.parent  # attncalc/
    files = [*root.glob("render/*.py"), *root.glob("reports/*.py"), *root.glob("check/*.py")]
    assert len(files) > 30 and root / "check" / "grade.py" in files  # the walk sees the packages
    pattern = re.compile(r"""\b(?:problem|p|d\.problem)\.kind\s*(?:==|!=|in|not in)\s*[("']""")
    found = [
        f"{f.name}:{n}: {line.strip()}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and not (f.name == "timeline.py" and '"seq2seq"' in line)
    ]
    assert not found, found
    assert pattern.search('if self.d.problem.kind == "similarity":')  # the pattern sees what it forbids
