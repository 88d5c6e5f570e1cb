"""The generated reference: per kind its keys, settings, step ids and named slips; the commands; the
JSON documents. Everything here is read from the program (the kinds' declarations, the step
catalogue, the slips check tries, the Typer app, the output schema), never written by hand."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from gallery import part_of


def _cell(text: Any) -> str:
    """Text for a Markdown table cell: pipes escaped, markup characters shown as they are."""
    return html.escape(str(text)).replace("|", "\\|").replace("\n", " ").replace("*", "\\*").replace("_", "\\_")


def _code(text: Any) -> str:
    return "<code>" + html.escape(str(text)).replace("|", "&#124;") + "</code>"


def _type(key: Any) -> str:
    t = key.type
    if key.shape:
        t += " (" + " × ".join(str(s) for s in key.shape) + ")"
    if key.also:
        t += " or " + " or ".join(key.also)
    return t


def _default(key: Any) -> str:
    if key.required:
        return "**required**"
    if key.default is None:
        return ""
    return _code(json.dumps(key.default) if not isinstance(key.default, str) else f'"{key.default}"')


def _key_rows(table: Any, prefix: str, at: str = "") -> tuple[list[str], list[tuple[str, Any, str]]]:
    """The table's rows, and its keys that are tables (name, table, anchor); ``at``: this table's anchor."""
    rows = ["| key | type | default | what it is |", "| --- | --- | --- | --- |"]
    nested: list[tuple[str, Any, str]] = []
    for key in table.keys:
        doc = _cell(key.doc)
        if key.choices:
            doc += " Choices: " + ", ".join(_code(c) for c in key.choices) + "."
        if key.min is not None or key.max is not None:
            doc += f" ({'' if key.min is None else key.min} … {'' if key.max is None else key.max})"
        name = f"{prefix}{key.name}"
        if key.table is not None:
            anchor = (f"{at}-" if at else "") + name.replace(".", "-")
            shown = f"[`{name}`](#{anchor})" if key.type == "table" else f"[`[[{name}]]`](#{anchor})"
            nested.append((name, key.table, anchor))
            rows.append(f"| {shown} | {key.type} | {_default(key)} | {doc} |")
        else:
            rows.append(f"| `{name}` | {_type(key)} | {_default(key)} | {doc} |")
    if getattr(table, "extra", ()):
        rows.append(f"| {', '.join(_code(prefix + e) for e in table.extra)} | | | accepted, checked by the parser |")
    return rows, nested


def _table_section(name: str, table: Any, anchor: str, level: int, out: list[str]) -> None:
    out += ["", f"{'#' * level} `[{name}]` {{ #{anchor} }}", ""]
    if table.doc:
        out += [_cell(table.doc), ""]
    rows, nested = _key_rows(table, "", anchor)
    out += rows
    for sub, t, a in nested:
        _table_section(f"{name}.{sub}", t, a, min(level + 1, 6), out)


def _slips(kind: str, problems: list[Path]) -> list[str]:
    """The named slips check tries on this kind's examples and on its `attncalc new` template: those
    the computation consults (attncalc.check.runs.Runs.slip_reaches), in the order check tries them."""
    import tempfile

    from attncalc.check.runs import Runs
    from attncalc.kinds import template
    from attncalc.kinds.mistakes import MISTAKES
    from attncalc.parse import load_problem

    found: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp) / f"{kind}.toml"
        t.write_text(template(kind), encoding="utf-8")
        for path in [t, *problems]:
            runs = Runs(load_problem(path), [])
            found |= {name for name in MISTAKES if runs.slip_reaches(name, "")}
    return [name for name in MISTAKES if name in found]


def kind_page(kind: str, problems: list[Path]) -> str:
    from attncalc.kinds import entry, template
    from attncalc.kinds.mistakes import MISTAKES

    e = entry(kind)
    decl = e.declaration
    out = [
        f"# Kind `{kind}`",
        "",
        _cell(decl.summary[0].upper() + decl.summary[1:]) + ".",
        "",
        f"Part of the course: [{part_of(kind)[1]}](../../gallery/{part_of(kind)[0]}.md). "
        f"A template that solves as it is: `attncalc new {kind}`. "
        f"Its JSON Schema, for editors: `attncalc schema {kind}`. "
        "The stable meaning of every key is in [the interface](../../interface.md).",
        "",
        "## Examples",
        "",
    ]
    if problems:
        out += [
            f"- [{_cell(p.stem)}](../../gallery/{part_of(kind)[0]}.md#{p.stem}): `attncalc solve problems/{p.name}`"
            for p in problems
        ]
    else:
        out += ["No file of problems/ has this kind yet; the template below is its example."]
    out += ["", f"## The template: `attncalc new {kind}`", "", "```toml", template(kind).rstrip(), "```", ""]
    out += ["## Keys", "", "The top-level keys of a problem file of this kind.", ""]
    rows, nested = _key_rows(decl.top, "")
    out += rows
    for name, table, anchor in nested:
        _table_section(name, table, anchor, 3, out)
    for sel in decl.selects:
        out += ["", f"### `[{sel.table}]` keys by `{sel.key}`", ""]
        if sel.always:
            out += [f"Every `{sel.key}` allows {', '.join(_code(k) for k in sel.always)}.", ""]
        for value, t in sel.keys.items():
            out += ["", f'#### `{sel.key} = "{value}"`', ""]
            out += _key_rows(t, "")[0]
    steps = e.load("step_ids")
    out += [
        "",
        "## Step ids",
        "",
        "The ids of the steps, in derivation order: the keys of an answers file's `[answers]`, of "
        "`[grading] points` and of the JSON's `steps`. A `t` stands for a time step or a head (1, 2, ...); "
        "which steps a problem has depends on its keys (the description says when).",
        "",
        "| step id | what it is |",
        "| --- | --- |",
        *[f"| `{sid}` | {_cell(doc)} |" for sid, doc in steps],
        "",
        "## Named slips",
        "",
        "The usual mistakes `check` recognises by name in this kind (it names one only when redoing the "
        "step with that slip gives the student's answer). Listed: those the computation consults in the "
        "template and in the examples above; a problem's own keys may bring in others.",
        "",
    ]
    slips = _slips(kind, problems)
    if slips:
        out += ["| slip | what the student did |", "| --- | --- |"]
        out += [f"| `{s}` | {_cell(MISTAKES[s])} |" for s in slips]
    else:
        out += ["None: a wrong answer is graded `wrong` or `carried` without a named slip."]
    return "\n".join(out) + "\n"


def commands_page() -> str:
    import typer.main

    from attncalc.cli import app

    group = typer.main.get_command(app)
    out = [
        "# Commands",
        "",
        "Every command and option of `attncalc`, as `attncalc COMMAND --help` says them "
        "(made from the program when the site is built). `python -m attncalc ...` is the same.",
        "",
    ]
    # Typer carries its own copy of Click: the parameters are read by their attributes
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        ctx = cmd.make_context(name, [], resilient_parsing=True)
        args = [p for p in cmd.params if p.param_type_name == "argument"]
        usage = " ".join(["[OPTIONS]", *(p.name.upper() + ("..." if p.nargs == -1 else "") for p in args)])
        out += ["", f"## `attncalc {name}` {{ #{name} }}", "", f"`attncalc {name} {html.escape(usage)}`", ""]
        out += [_cell((cmd.help or "").strip()), ""]
        out += ["| argument or option | type | default | what it does |", "| --- | --- | --- | --- |"]
        for p in cmd.params:
            if p.name == "help":
                continue
            if p.param_type_name == "argument":
                opts = _code(p.name.upper()) + (" ..." if p.nargs == -1 else "")
            else:
                opts = ", ".join(_code(o) for o in [*p.opts, *p.secondary_opts])
            kind = p.display_type(ctx).strip("<>")
            value = getattr(p.default, "value", p.default)
            default = "" if value in (None, (), [], False, "") or p.required else _code(value)
            out.append(f"| {opts} | {_cell(kind)} | {default} | {_cell(p.help or '')} |")
    return "\n".join(out) + "\n"


def json_page() -> str:
    from attncalc.reports.output_schema import output_schema
    from attncalc.schema.json_schema import dumps

    out = [
        "# The JSON documents",
        "",
        "`attncalc solve --format json` and `attncalc check --format json` print one JSON document each; "
        "their JSON Schemas (draft 2020-12) are below, as `attncalc schema --output solve` and "
        "`attncalc schema --output check` print them. Field by field, with examples, the "
        "[interface](../interface.md#json) says what each one means. The schema of a problem file is "
        "`attncalc schema [KIND]` ([kinds](kinds/index.md)).",
    ]
    for which in ("solve", "check"):
        out += [
            "",
            f"## `attncalc schema --output {which}`",
            "",
            f'??? note "The schema of what `{which} --format json` prints"',
            "",
            "    ```json",
            *[("    " + x).rstrip() for x in dumps(output_schema(which)).splitlines()],
            "    ```",
        ]
    return "\n".join(out) + "\n"


def kinds_index() -> str:
    from attncalc.kinds import KINDS

    out = [
        "# Kinds",
        "",
        "A problem file's `kind` says what is computed. Each page lists the kind's keys and settings, its "
        "step ids and the slips `check` names, all read from the program when the site is built, with "
        "the kind's examples in the gallery.",
        "",
        "| kind | what it computes |",
        "| --- | --- |",
    ]
    out += [f"| [`{k}`]({k}.md) | {_cell(e.declaration.summary)} |" for k, e in KINDS.items()]
    return "\n".join(out) + "\n"


def pages(problems: Path) -> dict[str, str | bytes]:
    from attncalc.kinds import KINDS
    from attncalc.parse import load_problem

    by_kind: dict[str, list[Path]] = {}
    for path in sorted(problems.glob("*.toml")):
        by_kind.setdefault(load_problem(path).kind, []).append(path)
    out: dict[str, str | bytes] = {"reference/kinds/index.md": kinds_index()}
    for kind in KINDS:
        out[f"reference/kinds/{kind}.md"] = kind_page(kind, by_kind.get(kind, []))
    out["reference/commands.md"] = commands_page()
    out["reference/json.md"] = json_page()
    return out


def kinds_nav() -> list[dict[str, str]]:
    from attncalc.kinds import KINDS

    return [{k: f"reference/kinds/{k}.md"} for k in KINDS]
