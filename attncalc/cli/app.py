"""The command line: parse options, call load_problem -> solve -> render, print or write.

Heavy modules (numpy, sympy, the renderers) are imported inside the commands, so that
``attncalc --help`` costs little more than importing typer.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import kinds
from ..errors import printable
from . import homework, plot, serve
from .base import Detail, MaxFileSize, MaxPages, app, write_output
from .base import fail as _fail
from .io import max_bytes as _max_bytes
from .io import pdf_name as _pdf_name
from .io import text_view as _text_view


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


class OutputSchema(StrEnum):
    solve = "solve"
    check = "check"


@app.command()
def solve(
    problems: Annotated[
        list[str],
        typer.Argument(
            help="Problem files (.toml, .yaml/.yml or .json); several make one numbered sheet.", show_default=False
        ),
    ],
    format: Annotated[
        SolveFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="Output format (default: from the --output file's extension, .md .tex .pdf .html .json, else text).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to this file instead of standard output ('-': standard output; pdf: default PROBLEM.pdf).",
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
    detail: Annotated[
        Detail,
        typer.Option(
            "--detail",
            help=f"{', '.join(kinds.recurrent())}: write out every time step (full), the first of each cell and "
            "the later ones a line per step with their gate tables (first), or the tables only (summary).",
        ),
    ] = Detail.first,
    reveal: Annotated[
        bool,
        typer.Option("--reveal", help="html: each step opens in stages (formula, then the working, then the value)."),
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
    max_file_size: MaxFileSize = None,
    max_pages: MaxPages = None,
) -> None:
    """Print the worked derivation of one or more problems, or write it as a sheet."""
    if format is None:
        format = _format_of(output)
    if output == "-" and format is not SolveFormat.pdf:
        output = None  # '-' is standard output
    if sheet is not SheetKind.solution and format in (SolveFormat.text, SolveFormat.json):
        _fail(
            f"--sheet {sheet.value}: the {format.value} view is the full solution; "
            "use --format markdown, latex, pdf or html for a question or answers sheet"
        )
    if reveal and sheet is not SheetKind.solution:
        _fail(f"--reveal: the solution sheet opens in stages; the {sheet.value} sheet has no working to reveal")
    if reveal and format is not SolveFormat.html:
        _fail(f"--reveal: steps open in stages in the html sheet only, not in {format.value}; use --format html")
    from ..errors import AttncalcError
    from ..files import check_output
    from ..mechanisms import solve as solve_problem
    from ..parse import load_problem

    limit = _max_bytes(max_file_size)
    target = output
    if format is SolveFormat.pdf and target is None:
        target = _pdf_name(problems[0])
    try:
        if target is not None and target != "-":  # a path that cannot be written is named before any work
            check_output(target, force)
        derivations = [
            solve_problem(load_problem(p, limit), exact=exact, decimals=decimals, carry_rounded=carry) for p in problems
        ]
        if sheet is not SheetKind.solution:
            _say_early_stops(problems, derivations)
        if format is SolveFormat.pdf:
            from ..render.pdf import compile_pdf
            from ..render.pdf_pages import check_pages
            from ..render.writers import render as render_sheet

            assert target is not None
            tex = render_sheet(derivations, "latex", sheet.value, detail=detail.value)
            check_pages(tex, problems[0], max_pages)  # estimated before pdflatex typesets a thousand pages
            pdf = compile_pdf(tex, name="standard output" if target == "-" else printable(target))
            if target == "-":
                sys.stdout.buffer.write(pdf)
                return
            write_output(target, pdf, force)
            sys.stderr.write(f"attncalc: wrote {printable(target)}\n")
            return
    except AttncalcError as exc:
        _fail(str(exc))
    if format is SolveFormat.json:
        import json

        from ..render.json import to_dict

        data = [to_dict(d) for d in derivations]
        text = json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    elif format in (SolveFormat.markdown, SolveFormat.latex, SolveFormat.html):
        from ..render.writers import render as render_sheet

        text = render_sheet(derivations, format.value, sheet.value, fragment, reveal=reveal, detail=detail.value)
    else:
        text = _text_view(derivations, to_terminal=output is None, width=width, detail=detail.value)
        if output is None:
            return
    if output is None:
        sys.stdout.write(text)
    else:
        write_output(output, text, force)
        sys.stderr.write(f"attncalc: wrote {printable(output)}\n")  # as for a PDF: say where the sheet went


def _say_early_stops(paths: list[str], derivations: list[Any]) -> None:
    """A question or answers sheet of a bpe problem whose merges stop early shows it by the steps it asks
    (merge r+1 asks only its pair counts): the grader is told, with how to ask it otherwise."""
    from ..errors import printable
    from ..mechanisms.bpe import early_stop_note, stops_early

    for path, d in zip(paths, derivations, strict=True):
        early = stops_early(d)
        if early is not None:
            sys.stderr.write(f"attncalc: note: {printable(path)}: {early_stop_note(*early)}\n")


_SUFFIX_FORMATS = {
    ".md": SolveFormat.markdown,
    ".markdown": SolveFormat.markdown,
    ".tex": SolveFormat.latex,
    ".pdf": SolveFormat.pdf,
    ".html": SolveFormat.html,
    ".htm": SolveFormat.html,
    ".json": SolveFormat.json,
}


def _format_of(output: str | None) -> SolveFormat:
    """The format an --output file's extension names (-o sheet.pdf writes a PDF), text otherwise."""
    if output is None or output == "-":
        return SolveFormat.text
    return _SUFFIX_FORMATS.get(Path(output).suffix.lower(), SolveFormat.text)


# `check` and `generate` live in cli/homework.py; registered here to keep the commands' order in --help
app.command()(homework.check)
app.command()(homework.generate)
app.command()(plot.plot)
app.command()(serve.serve)


@app.command()
def new(
    kind: Annotated[
        str,
        typer.Argument(
            help=" | ".join(kinds.KINDS),
            show_default=False,
        ),
    ],
    score: Annotated[
        str | None, typer.Option("--score", help="For attention: dot | scaled-dot | general | additive | concat.")
    ] = None,
) -> None:
    """Print a commented template problem file for KIND (it solves as it is)."""
    from .. import kinds
    from ..schema import catalog

    if kind not in kinds.KINDS:
        _fail(f"unknown kind {kind!r}; choose one of: {', '.join(kinds.KINDS)}")
    if score is not None:
        scored = [k for k, e in kinds.KINDS.items() if callable(e.load("template"))]  # a template per score
        if kind not in scored:
            _fail(f"--score applies to kind{'s' if len(scored) > 1 else ''} {' and '.join(map(repr, scored))} only")
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
    output: Annotated[
        OutputSchema | None,
        typer.Option(
            "--output",
            help="Instead: the schema of what `solve --format json` (solve) or `check --format json` (check) prints.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a problem file, for editors to complete keys and flag mistakes;
    with --output, of what `solve` or `check` prints with --format json."""
    from .. import kinds
    from ..schema.json_schema import dumps, kind_schema, whole_schema

    if output is not None:
        if kind is not None:
            _fail(
                f"give a kind or --output, not both (--output {output.value} is the schema of an output, not of a kind)"
            )
        from ..reports.output_schema import output_schema

        sys.stdout.write(dumps(output_schema(output.value)))
        return
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
    """List the kinds (a plugin kind with the distribution it came from), score functions, similarity
    measures and step ids."""
    from .. import kinds
    from ..schema import catalog

    summaries = {k: e.declaration.summary for k, e in kinds.KINDS.items()}
    plugins = {k: origin for k in kinds.KINDS if (origin := kinds.KINDS.origin(k)) is not None}
    # the step ids are listed feed-forward kinds first, then the recurrent ones (each in the registry's order)
    step_ids = {k: kinds.entry(k).load("step_ids") for k in sorted(kinds.KINDS, key=lambda k: kinds.KINDS[k].recurrent)}
    if format is ListFormat.json:
        import json

        data = {
            "kinds": summaries,
            "scores": catalog.SCORES,
            "measures": catalog.MEASURES,
            "positions": catalog.POSITION_TYPES,
            "masks": catalog.MASKS,
            "step_ids": {k: [s for s, _ in v] for k, v in step_ids.items()},
            "plugins": plugins,  # plugin kind -> the distribution it came from (the entry-point group attncalc.kinds)
        }
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        return
    import textwrap
    from collections.abc import Iterable

    def entries(items: Iterable[tuple[str, str]], column: int = 16) -> list[str]:
        """One entry per name, its description wrapped at 80 columns under itself."""
        out = []
        for name, text in items:
            head = f"  {name:<{column}} "
            out.append(textwrap.fill(text, 80, initial_indent=head, subsequent_indent=" " * len(head)))
        return out

    # a plugin kind says the distribution it came from
    lines = [
        "Kinds:",
        *entries((k, f"{v} (plugin: {plugins[k]})" if k in plugins else v) for k, v in summaries.items()),
    ]
    lines += ["", "Scores (kind attention; self-attention takes scaled-dot or dot):", *entries(catalog.SCORES.items())]
    lines += ["", "Measures (kind similarity; measure = one name or a list):", *entries(catalog.MEASURES.items())]
    lines += ["", "Positions (kind multi-head: given.positions; positional-encoding: type):"]
    lines += entries(catalog.POSITION_TYPES.items())
    lines += ["", "Masks (kind multi-head: given.mask, or a 0/1 matrix; given.key_padding):"]
    lines += entries(catalog.MASKS.items())
    for kind, ids in step_ids.items():
        lines += ["", f"Step ids for {kind}, in order:", *entries(ids, 20)]
    sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    """Entry point of the ``attncalc`` console script.

    The process is short-lived and allocates many small sympy objects, so the cyclic garbage
    collector is paused (measured: about a tenth of a solve's time; see benchmarks/).
    """
    import gc

    gc.disable()
    named = _existing_dashed(sys.argv[1:])
    if named is not None:  # (before click reads it as an option: --problems=m/x.toml, -om/leak.toml)
        glob = "a glob of students' files: attncalc check --problems DIR -- subs/*.toml"
        if named != "--" and "--" in sys.argv[1:]:  # (the TA's own -o, and a student's folder here named -o)
            line = (
                f"{named}: an option, and the name of a file or folder here; join the option to its value with "
                f"'=' (--output=FILE, --problems=DIR), or write the file as ./{named}"
            )
        else:
            line = _read_as_option(named, glob)
        sys.stderr.write(f"attncalc: error: {printable(line)}\n")
        sys.exit(2)
    try:
        code = app(standalone_mode=False)
    except Exception as exc:  # the command-line library's own errors, as click would show them
        sys.exit(_library_error(exc))
    sys.exit(code if isinstance(code, int) else 0)


FILE_SUFFIXES = (".toml", ".yaml", ".yml", ".json")


def _dashed_file(args: list[str]) -> str | None:
    """The first argument before ``--`` that begins with '-' and is a file's name (a file that exists,
    or a problem file's suffix), or None."""
    import os

    for arg in args:
        if arg == "--":
            return None
        named = arg.lower().endswith(FILE_SUFFIXES) or os.path.isfile(arg)
        if len(arg) > 1 and arg.startswith("-") and "=" not in arg and named:
            return arg
    return None


def _read_as_option(name: str, why: str) -> str:
    """The one line for a file named like an option: how to name it so that it is read as a file."""
    return f"{name}: a file name beginning with '-' is read as an option; write ./{name} or put -- before it ({why})"


def _existing_dashed(args: list[str]) -> str | None:
    """The first argument before ``--`` that begins with '-' and names a file or folder that exists: a
    glob over students' files expands to such names (a student's ``--problems=m/x.toml`` or
    ``-om/leak.toml``), which click would read as options (another --problems folder, the gradebook
    written into a student's folder)."""
    import os

    after = args[args.index("--") + 1 :] if "--" in args else []
    for i, arg in enumerate(args):
        if arg == "--":
            # (a student's file named "--", put first by the TA's `*` before the options, would end them: the
            # TA's -o read as a file, the gradebook on the terminal; a "--" the TA typed before `*` is
            # followed by the file's)
            return arg if os.path.lexists(arg) and "--" not in args[i + 1 :] else None
        # (the TA's own -o before the `--` they typed before `*`, which gives a student's folder -o there too:
        # the glob's entry is after the `--`, the option is the TA's)
        if len(arg) > 1 and arg.startswith("-") and os.path.lexists(arg) and arg not in after:
            return arg
    return None


def _library_error(exc: Exception) -> int:
    """A misused option or argument is one line, like any bad input (click prints usage, a blank line
    and the error: three lines); help asked for by giving no arguments is shown as it is; anything else
    is not ours to hide."""
    usage = next((c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError"), None)
    clickish = next((c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"), None)
    if usage is not None and isinstance(exc, usage) and type(exc).__name__ != "NoArgsIsHelpError":
        ctx = getattr(exc, "ctx", None)
        where = f"; see {ctx.command_path} --help" if ctx is not None else ""
        message = " ".join(exc.format_message().split()).replace("Value error, ", "").rstrip(".")  # type: ignore[attr-defined]
        dashed = _dashed_file(sys.argv[1:])
        if dashed is not None:  # -p.toml: click read a file name as options
            message = _read_as_option(dashed, message)
        sys.stderr.write(f"attncalc: error: {printable(message)}{where}\n")
        return 2
    if clickish is not None and isinstance(exc, clickish):
        exc.show()  # type: ignore[attr-defined]
        return int(getattr(exc, "exit_code", 1))
    if type(exc).__name__ == "Abort":  # Ctrl-C at a prompt
        sys.stderr.write("Aborted!\n")
        return 1
    raise exc


if __name__ == "__main__":
    main()
