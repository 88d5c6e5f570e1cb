"""The command line: parse options, call load_problem -> solve -> render, print or write.

Heavy modules (numpy, sympy, the renderers) are imported inside the commands, so that
``attncalc --help`` costs little more than importing typer.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .cli_io import fail as _fail
from .cli_io import max_bytes as _max_bytes
from .cli_io import named_problem as _named_problem
from .cli_io import pdf_name as _pdf_name
from .cli_io import text_view as _text_view
from .cli_io import utf8_output as _utf8_output
from .cli_io import write_output

app = typer.Typer(
    name="attncalc",
    help="Worked derivations of attention mechanisms, exact and numeric.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class SolveFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    latex = "latex"
    pdf = "pdf"
    html = "html"


class SheetKind(StrEnum):
    solution = "solution"
    answers = "answers"
    question = "question"


class ListFormat(StrEnum):
    text = "text"
    json = "json"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"attncalc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Worked derivations of attention mechanisms, exact and numeric.

    Start with `attncalc new attention > p.toml`, then `attncalc solve p.toml`.
    """
    _utf8_output()


@app.command()
def solve(
    problems: Annotated[
        list[str],
        typer.Argument(
            help="Problem files (.toml, .yaml/.yml or .json); several make one numbered sheet.", show_default=False
        ),
    ],
    format: Annotated[SolveFormat, typer.Option("--format", "-f", help="Output format.")] = SolveFormat.text,
    output: Annotated[
        str | None,
        typer.Option(
            "--output", "-o", help="Write to this file instead of standard output (pdf: default PROBLEM.pdf)."
        ),
    ] = None,
    sheet: Annotated[
        SheetKind,
        typer.Option(
            "--sheet",
            help="markdown/latex/pdf/html: question (no results), answers, or the full solution (text, json: solution only).",
        ),
    ] = SheetKind.solution,
    fragment: Annotated[
        bool, typer.Option("--fragment", help="latex/html: only the body, to paste into a document.")
    ] = False,
    decimals: Annotated[
        int | None, typer.Option("--decimals", min=0, max=12, help="Decimals shown (overrides the problem's settings).")
    ] = None,
    exact: Annotated[
        bool | None,
        typer.Option("--exact/--no-exact", help="Derive exact forms too (default: the problem's settings)."),
    ] = None,
    carry: Annotated[
        bool | None,
        typer.Option(
            "--carry/--no-carry", help="Round every step and carry it forward, as by hand (default: settings)."
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the --output file if it exists.")] = False,
    width: Annotated[int | None, typer.Option("--width", min=40, help="Terminal width for the text view.")] = None,
    max_file_size: Annotated[
        str | None,
        typer.Option(
            "--max-file-size",
            metavar="SIZE",
            help="Largest input file read, in bytes or with K, M or G (default 1M).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the worked derivation of one or more problems, or write it as a sheet."""
    if sheet is not SheetKind.solution and format in (SolveFormat.text, SolveFormat.json):
        _fail(
            f"--sheet {sheet.value}: the {format.value} view is the full solution; "
            "use --format markdown, latex, pdf or html for a question or answers sheet"
        )
    from .errors import AttncalcError
    from .files import check_output
    from .mechanisms import solve as solve_problem
    from .problem import load_problem

    limit = _max_bytes(max_file_size)
    target = output
    if format is SolveFormat.pdf and target is None:
        target = _pdf_name(problems[0])
    try:
        if target is not None:  # a path that cannot be written is named before any work
            check_output(target, force)
        derivations = [
            solve_problem(load_problem(p, limit), exact=exact, decimals=decimals, carry_rounded=carry) for p in problems
        ]
        if format is SolveFormat.pdf:
            from .render.pdf import compile_pdf
            from .render.writers import render as render_sheet

            assert target is not None
            pdf = compile_pdf(render_sheet(derivations, "latex", sheet.value))
            write_output(target, pdf, force)
            sys.stderr.write(f"attncalc: wrote {target}\n")
            return
    except AttncalcError as exc:
        _fail(str(exc))
    if format is SolveFormat.json:
        import json

        from .render.json import to_dict

        data = [to_dict(d) for d in derivations]
        text = json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False) + "\n"
    elif format in (SolveFormat.markdown, SolveFormat.latex, SolveFormat.html):
        from .render.writers import render as render_sheet

        text = render_sheet(derivations, format.value, sheet.value, fragment)
    else:
        text = _text_view(derivations, to_terminal=output is None, width=width)
        if output is None:
            return
    if output is None:
        sys.stdout.write(text)
    else:
        write_output(output, text, force)


# keys only a problem file has (an answers file holds step ids, [answers] and problem =)
_PROBLEM_ONLY_KEYS = {
    "kind",
    "title",
    "description",
    "score",
    "tokens",
    "given",
    "head",
    "settings",
    "cell",
    "training",
}


@app.command()
def check(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="PROBLEM, then ANSWERS files (TOML/YAML/JSON keyed by step id). With no ANSWERS, the "
            "problem's own [answers] table is graded. An answers file may name its own problem with "
            'problem = "path".',
            show_default=False,
        ),
    ],
    format: Annotated[ListFormat, typer.Option("--format", "-f", help="Report format.")] = ListFormat.text,
    rtol: Annotated[
        float | None, typer.Option("--rtol", min=0, help="Relative tolerance instead of the answer's precision.")
    ] = None,
    atol: Annotated[
        float | None, typer.Option("--atol", min=0, help="Absolute tolerance instead of the answer's precision.")
    ] = None,
    sigfigs: Annotated[
        int | None, typer.Option("--sigfigs", min=1, max=15, help="Judge to N significant figures.")
    ] = None,
    width: Annotated[int | None, typer.Option("--width", min=40, help="Terminal width for the text report.")] = None,
    max_file_size: Annotated[
        str | None,
        typer.Option(
            "--max-file-size",
            metavar="SIZE",
            help="Largest input file read, in bytes or with K, M or G (default 1M).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Grade hand answers step by step: correct, carried (an earlier error) or wrong, with the slip named.

    Exit code 0 when every given answer is correct, 1 when any is not, 2 on bad input.
    """
    from .check import Tolerance, load_answers
    from .check import check as grade
    from .errors import AttncalcError
    from .problem import load_problem, read_raw

    tol = Tolerance(rtol=rtol, atol=atol, sigfigs=sigfigs)
    limit = _max_bytes(max_file_size)
    reports = []
    try:
        problem = None
        answer_paths = paths
        first = read_raw(paths[0], limit)
        if "problem" not in first and not set(first) & _PROBLEM_ONLY_KEYS:
            _fail(
                f'{paths[0]}: no problem named: add problem = "path/to/problem.toml" to the file, '
                "or give the problem first: attncalc check PROBLEM ANSWERS"
            )
        if "kind" in first or "problem" not in first:  # PROBLEM [ANSWERS...]
            problem = load_problem(paths[0], limit)
            answer_paths = paths[1:]
            if not answer_paths:
                if not problem.answers:
                    _fail(f"{paths[0]}: answers: none to check; give an ANSWERS file or an [answers] table")
                reports.append(grade(problem, problem.answers, paths[0], tol, key_prefix="answers."))
        for path in answer_paths:
            raw, own_problem = load_answers(path, limit)
            # a PROBLEM on the command line wins: the file's own problem = is followed only without one
            if problem is not None:
                target = problem
            elif own_problem is not None:
                target = _named_problem(path, own_problem, limit)
            else:
                _fail(f"{path}: problem: this answers file names no problem; give the PROBLEM file first")
            reports.append(grade(target, raw, path, tol))
    except AttncalcError as exc:
        _fail(str(exc))
    if format is ListFormat.json:
        from .render.check_view import reports_json

        sys.stdout.write(reports_json(reports))
    else:
        from .render.check_view import print_reports
        from .render.console import terminal_console

        print_reports(reports, terminal_console(width=width) if width else terminal_console())
    raise typer.Exit(0 if all(r.all_correct for r in reports) else 1)


class GenFormat(StrEnum):
    markdown = "markdown"
    latex = "latex"
    pdf = "pdf"
    html = "html"
    moodle = "moodle"


@app.command()
def generate(
    out: Annotated[
        str, typer.Option("--out", help="Folder to write the variants and sheets into (created if missing).")
    ],
    kind: Annotated[str, typer.Option("--kind", help="attention | self-attention | softmax")] = "attention",
    score: Annotated[
        str,
        typer.Option(
            "--score",
            help="attention: dot | scaled-dot | general | additive | concat; self-attention: scaled-dot | dot",
        ),
    ] = "dot",
    tokens: Annotated[int, typer.Option("--tokens", help="Positions (keys, rows of X, or logits).")] = 3,
    dim: Annotated[int, typer.Option("--dim", help="Width of each vector.")] = 2,
    head: Annotated[bool, typer.Option("--head", help="attention: add an output layer and a prediction.")] = False,
    mask: Annotated[str | None, typer.Option("--mask", help="self-attention: causal.")] = None,
    count: Annotated[int, typer.Option("--count", help="How many variants.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="The seed: the same options and seed give the same files.")] = 0,
    values: Annotated[
        str, typer.Option("--values", help="int (small integers) | decimal (one decimal) | mixed")
    ] = "int",
    allow_ties: Annotated[bool, typer.Option("--allow-ties", help="Keep variants whose top two weights tie.")] = False,
    decimals: Annotated[int, typer.Option("--decimals", min=0, max=6, help="Decimals asked for and shown.")] = 3,
    format: Annotated[
        GenFormat, typer.Option("--format", "-f", help="Sheets' format (moodle: a quiz.xml plus Markdown sheets).")
    ] = GenFormat.markdown,
    force: Annotated[bool, typer.Option("--force", help="Overwrite files already in --out.")] = False,
) -> None:
    """Write seeded homework: one problem file per variant, answer keys, and question, answers and solution sheets."""
    from .api import homework_files, homework_names, write_homework
    from .errors import AttncalcError
    from .files import check_folder
    from .generate import Options
    from .generate import generate as make

    opts = Options(kind, score, tokens, dim, head, mask, count, seed, values, allow_ties, decimals)
    folder = Path(out)
    try:
        check_folder(folder, homework_names(count, format.value), force)  # before any variant is drawn
        result = make(opts)
        files = homework_files(result.problems, result.derivations, format.value, seed)
        write_homework(folder, files, force)
    except AttncalcError as exc:
        _fail(str(exc))
    rejected = sum(result.rejected.values())
    why = ", ".join(f"{n} {reason}" for reason, n in result.rejected.most_common())
    sys.stderr.write(
        f"attncalc: wrote {count} variants (seed {seed}) and their sheets to {folder}; "
        f"rejected {rejected} draws{': ' + why if why else ''}\n"
    )


@app.command()
def new(
    kind: Annotated[
        str,
        typer.Argument(
            help="attention | self-attention | softmax | sequence | rnn | lstm | gru | seq2seq | similarity",
            show_default=False,
        ),
    ],
    score: Annotated[
        str | None, typer.Option("--score", help="For attention: dot | scaled-dot | general | additive | concat.")
    ] = None,
) -> None:
    """Print a commented template problem file for KIND (it solves as it is)."""
    from . import catalog, kinds

    if kind not in kinds.KINDS:
        _fail(f"unknown kind {kind!r}; choose one of: {', '.join(kinds.KINDS)}")
    if score is not None:
        if kind != "attention":
            _fail("--score applies to kind 'attention' only")
        if score not in catalog.SCORES:
            _fail(f"unknown score {score!r}; choose one of: {', '.join(catalog.SCORES)}")
    sys.stdout.write(kinds.template(kind, score))


@app.command()
def schema(
    kind: Annotated[
        str | None,
        typer.Argument(
            help="A kind (attention, rnn, ...); without one, one schema covering every kind, selected by `kind`.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a problem file, for editors to complete keys and flag mistakes."""
    from . import kinds
    from .schema.json_schema import dumps, kind_schema, whole_schema

    if kind is None:
        sys.stdout.write(dumps(whole_schema(kinds.declarations())))
        return
    if kind not in kinds.KINDS:
        _fail(f"unknown kind {kind!r}; choose one of: {', '.join(kinds.KINDS)}")
    sys.stdout.write(dumps(kind_schema(kinds.entry(kind).declaration)))


@app.command(name="list")
def list_(
    format: Annotated[ListFormat, typer.Option("--format", "-f", help="Output format.")] = ListFormat.text,
) -> None:
    """List the kinds, score functions, similarity measures and step ids."""
    from . import catalog, kinds

    summaries = {k: e.declaration.summary for k, e in kinds.KINDS.items()}
    # the step ids are listed feed-forward kinds first, then the recurrent ones (the catalogue's order)
    step_ids = {k: kinds.entry(k).load("step_ids") for k in catalog.STEP_IDS}
    if format is ListFormat.json:
        import json

        data = {
            "kinds": summaries,
            "scores": catalog.SCORES,
            "measures": catalog.MEASURES,
            "step_ids": {k: [s for s, _ in v] for k, v in step_ids.items()},
        }
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    lines = ["Kinds:"]
    lines += [f"  {k:<16} {v}" for k, v in summaries.items()]
    lines += ["", "Scores (kind attention; self-attention takes scaled-dot or dot):"]
    lines += [f"  {k:<16} {v}" for k, v in catalog.SCORES.items()]
    lines += ["", "Measures (kind similarity; measure = one name or a list):"]
    lines += [f"  {k:<16} {v}" for k, v in catalog.MEASURES.items()]
    for kind, ids in step_ids.items():
        lines += ["", f"Step ids for {kind}, in order:"]
        lines += [f"  {i:<20} {why}" for i, why in ids]
    sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    """Entry point of the ``attncalc`` console script.

    The process is short-lived and allocates many small sympy objects, so the cyclic garbage
    collector is paused (measured: about a tenth of a solve's time; see benchmarks/).
    """
    import gc

    gc.disable()
    app()


if __name__ == "__main__":
    main()
