"""The commands of the classroom: ``check`` (grading, the gradebook) and ``generate`` (homework).

Registered on the app by :mod:`attncalc.cli`; heavy modules are imported inside the commands.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from .. import kinds
from ..errors import printable
from .base import CheckFormat, Detail, Gradebook, MaxFileSize, MaxPages, ProblemsDirs, write_output
from .base import fail as _fail
from .io import max_bytes as _max_bytes


def check(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="PROBLEM, then ANSWERS files (TOML/YAML/JSON keyed by step id). With no ANSWERS, the "
            "problem's own [answers] table is graded. An answers file may name its own problem with "
            'problem = "path". A folder stands for its answers files, never the PROBLEM.',
            show_default=False,
        ),
    ],
    format: Annotated[
        CheckFormat,
        typer.Option("--format", "-f", help="Report format (csv: a gradebook, one row per answers file)."),
    ] = CheckFormat.text,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", help="Write the report to this file (-: standard output, the default)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the --output file if it exists.")] = False,
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
    max_file_size: MaxFileSize = None,
    gradebook: Annotated[
        Gradebook | None,
        typer.Option(
            "--gradebook",
            help="The CSV's columns: plain (file, problem, score, out_of, each step, student, error), canvas "
            "(Canvas's gradebook import) or moodle (Moodle's grade import). With --format csv.",
        ),
    ] = None,
    assignment: Annotated[
        str,
        typer.Option(
            "--assignment",
            help="The score column's title in the canvas and moodle gradebooks: the Canvas assignment "
            '("Homework 3" or "Homework 3 (1234)") or the Moodle grade item.',
        ),
    ] = "attncalc",
    roster: Annotated[
        list[str] | None,  # a list only to see it repeated: one roster (typer took the last one silently)
        typer.Option(
            "--roster",
            help="The LMS's own gradebook export (CSV) with --gradebook canvas or moodle: each answers file is "
            "matched to its student (student =, file name: login, email or SIS id), whose ids fill the id columns; "
            "a file matching nobody gets no row and one line on standard error.",
            show_default=False,
        ),
    ] = None,
    problems: ProblemsDirs = None,
) -> None:
    """Grade hand answers step by step: correct, carried (an earlier error) or wrong, with the slip named,
    and the score (the problem's [grading] table).

    Exit code 0 when every given answer is correct, 1 when any is not, 2 on bad input.
    """
    from ..check import Tolerance
    from ..errors import AttncalcError
    from ..files import check_output
    from .check import grade_paths, gradebook_text, one_roster, refuse_mixed_options
    from .files import answers_in_folders, common_folder, report_shown

    tol = Tolerance(rtol=rtol, atol=atol, sigfigs=sigfigs)
    limit = _max_bytes(max_file_size)
    csv = format is CheckFormat.csv
    roster_file = one_roster(roster)
    refuse_mixed_options(csv, gradebook, roster_file, assignment, problems)
    if output == "-":
        output = None  # '-' is standard output, as with solve -o -
    try:
        # a folder given is its answers files (a class's submissions), never the problem graded against
        paths, found, empty = answers_in_folders(paths)
    except AttncalcError as exc:
        _fail(str(exc))
    folders = common_folder(paths)  # no absolute path of this machine reaches a report or a gradebook
    try:
        if output is not None:  # a path that cannot be written is named before any work
            check_output(output, force)
        # the reports; the gradebook's rows (graded and refused, in order); how many were refused
        reports, entries, bad = grade_paths(paths, folders, limit, tol, problems, csv, found)
        if not csv:  # the JSON's total and the text's mean sum every file's points
            from ..check.points import refuse_overflowing_sum

            refuse_overflowing_sum(reports, limit)
    except AttncalcError as exc:
        _fail(str(exc))
    shown = {id(r): report_shown(r, folders) for r in reports}  # named without this machine's absolute paths
    reports, entries = [shown[id(r)] for r in reports], [shown.get(id(e), e) for e in entries]
    several = len(entries) + empty > 1  # a class (several files given): every file given has its entry
    if csv:
        # a file the roster places nowhere has no row: its grade is not in the gradebook, as an unread file's
        text, unplaced = gradebook_text(entries, (gradebook or Gradebook.plain).value, assignment, roster_file, limit)
        bad = bad or bool(unplaced)
    elif format is CheckFormat.json:
        from ..reports.check_view import reports_json

        text = reports_json(entries, several)
    elif output is not None:
        from ..reports.check_view import reports_text

        text = reports_text(entries, width or 100, several)
    else:
        from ..render.console import terminal_console
        from ..reports.check_view import print_reports

        print_reports(entries, terminal_console(width=width) if width else terminal_console(), several)
        text = ""
    if output is not None:
        write_output(output, text, force)
        sys.stderr.write(f"attncalc: wrote {printable(output)}\n")  # as solve -o does
    else:
        sys.stdout.write(text)
    raise typer.Exit(2 if bad or empty else 0 if all(r.all_correct for r in reports) else 1)  # (empty: folders)


QUIZ_FORMATS = ("moodle", "moodle-cloze", "qti", "qti12", "ilias")  # every variant of the set asks the same questions
ONE_SHAPE_NOTE = (
    "quiz formats draw variants of one shape: the same --seed can give other variants in the worksheet formats; "
    "the sheets written here are this set's, and generate --format pdf (or markdown, latex, html) --one-shape "
    "--seed {seed} with these options draws this set again (or: attncalc solve --sheet question variant-01.toml ...)"
)


class GenFormat(StrEnum):
    markdown = "markdown"
    latex = "latex"
    pdf = "pdf"
    html = "html"
    moodle = "moodle"
    moodle_cloze = "moodle-cloze"
    qti = "qti"
    qti12 = "qti12"
    ilias = "ilias"
    newquizzes = "newquizzes"


def generate(
    out: Annotated[
        str, typer.Option("--out", help="Folder to write the variants and sheets into (created if missing).")
    ],
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help=" | ".join(kinds.with_drawer()),
        ),
    ] = "attention",
    score: Annotated[
        str | None,
        typer.Option(
            "--score",
            help="attention: dot (default) | scaled-dot | general | additive | concat; self-attention: dot | "
            "scaled-dot; seq2seq: dot | general | additive (default: dot for luong, additive for bahdanau)",
            show_default=False,
        ),
    ] = None,
    tokens: Annotated[
        int,
        typer.Option(
            "--tokens",
            help="Positions: keys, rows of X, logits, time steps (rnn, lstm, gru), source tokens, rows of A.",
        ),
    ] = 3,
    dim: Annotated[
        int | None,
        typer.Option(
            "--dim",
            help="Width of each vector (and of a cell's state); default 2, 4 for multi-head and transformer-layer.",
            show_default=False,
        ),
    ] = None,
    head: Annotated[
        bool, typer.Option("--head", help="attention: an output head; rnn, lstm, gru: an output layer with targets.")
    ] = False,
    mask: Annotated[str | None, typer.Option("--mask", help="self-attention, multi-head: causal.")] = None,
    layout: Annotated[
        str, typer.Option("--layout", help="rnn, lstm, gru, seq2seq: the weights' layout, gates | pytorch | keras.")
    ] = "gates",
    reset: Annotated[
        str | None,
        typer.Option(
            "--reset",
            help="GRU: after | before (default: before in the gates layout, after in pytorch and keras).",
            show_default=False,
        ),
    ] = None,
    update: Annotated[str, typer.Option("--update", help="GRU: keep (h = (1-z) h~ + z h) | replace.")] = "keep",
    cell: Annotated[
        str | None,
        typer.Option(
            "--cell",
            help="seq2seq: the encoder's and decoder's cell, rnn | lstm | gru (default gru).",
            show_default=False,
        ),
    ] = None,
    attention: Annotated[str, typer.Option("--attention", help="seq2seq: luong | bahdanau | none.")] = "luong",
    steps: Annotated[int, typer.Option("--steps", help="seq2seq: decoder steps (1 to 4).")] = 2,
    measure: Annotated[
        str | None,
        typer.Option(
            "--measure",
            help="similarity: dot, cosine, euclidean, or several comma-separated (default: all three).",
            show_default=False,
        ),
    ] = None,
    heads: Annotated[
        int, typer.Option("--heads", min=1, help="multi-head: query heads (--dim must split into them).")
    ] = 2,
    kv_heads: Annotated[
        int | None,
        typer.Option(
            "--kv-heads",
            min=1,
            help="multi-head: key/value heads (grouped-query; 1 = multi-query).",
            show_default=False,
        ),
    ] = None,
    positions: Annotated[
        str | None,
        typer.Option(
            "--positions",
            help="multi-head: sinusoidal | rope | alibi; positional-encoding: sinusoidal (default) | rope.",
            show_default=False,
        ),
    ] = None,
    cross: Annotated[bool, typer.Option("--cross", help="multi-head: cross-attention over a drawn memory.")] = False,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", help="decode: greedy | sample | top-k | top-p (default) | beam.", show_default=False
        ),
    ] = None,
    optimizer: Annotated[
        str | None,
        typer.Option(
            "--optimizer",
            help="softmax, rnn/lstm/gru with --head, seq2seq: a training step, sgd | adam | adamw.",
            show_default=False,
        ),
    ] = None,
    clip_norm: Annotated[
        float | None,
        typer.Option("--clip-norm", help="with a training step: clip the gradients to this global norm first."),
    ] = None,
    label_smoothing: Annotated[
        float | None, typer.Option("--label-smoothing", help="softmax: the target smoothed by ε (PyTorch's).")
    ] = None,
    schedule: Annotated[
        str | None,
        typer.Option(
            "--schedule", help="lr-schedule: noam | cosine | linear (default: drawn per variant).", show_default=False
        ),
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(
            "--window",
            min=1,
            help="multi-head, self-attention, transformer-layer: a causal sliding window of this many keys.",
            show_default=False,
        ),
    ] = None,
    normalization: Annotated[
        str | None,
        typer.Option("--normalization", help="transformer-layer: layer (default) | rms.", show_default=False),
    ] = None,
    activation: Annotated[
        str | None,
        typer.Option(
            "--activation",
            help="transformer-layer: relu (default) | gelu | gelu-tanh | silu | swiglu.",
            show_default=False,
        ),
    ] = None,
    norm: Annotated[
        str | None,
        typer.Option(
            "--norm",
            help="transformer-layer: post (default: the norm after each residual sum) | pre (before each "
            "sublayer, as LLaMA).",
            show_default=False,
        ),
    ] = None,
    top_k: Annotated[
        int | None,
        typer.Option(
            "--top-k",
            min=1,
            help="decode, top-p: keep the top k first (Hugging Face's order); moe: 1 (Switch) or 2 (Mixtral) experts a token.",
            show_default=False,
        ),
    ] = None,
    slip_share: Annotated[
        float | None,
        typer.Option(
            "--slip-share",
            help="The share of a step's points a named slip earns, 0 to 1 (written as [grading] slip: check and "
            "every quiz give it; default 0).",
            show_default=False,
        ),
    ] = None,
    carried_share: Annotated[
        float | None,
        typer.Option(
            "--carried-share",
            help="The share a step that follows from a slip made earlier earns, 0 to 1 (written as [grading] "
            "carried: check and every quiz give it; default 1, full marks).",
            show_default=False,
        ),
    ] = None,
    one_shape: Annotated[
        bool,
        typer.Option(
            "--one-shape",
            help="Draw variants of one shape, as moodle, qti, qti12 and ilias always do: the same --seed then gives "
            "the worksheet formats (and newquizzes) the quiz's variants.",
        ),
    ] = False,
    count: Annotated[int, typer.Option("--count", help="How many variants.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="The seed: the same options and seed give the same files.")] = 0,
    values: Annotated[
        str, typer.Option("--values", help="int (small integers) | decimal (one decimal) | mixed")
    ] = "int",
    allow_ties: Annotated[bool, typer.Option("--allow-ties", help="Keep variants whose top two weights tie.")] = False,
    decimals: Annotated[int, typer.Option("--decimals", min=0, max=6, help="Decimals asked for and shown.")] = 3,
    format: Annotated[
        GenFormat,
        typer.Option(
            "--format",
            "-f",
            help="Sheets' format (moodle: a quiz.xml, or quiz-1.xml, quiz-2.xml ... each under 2 MB; moodle-cloze: "
            "cloze.xml, one Cloze question per variant, for one whole variant per student; qti: a QTI 2.1 "
            "package qti.zip for OpenOLAT; qti12: a QTI 1.2 package qti12.zip for Canvas classic quizzes; ilias: ilias.zip for an ILIAS question "
            "pool; newquizzes: a QTI 1.2 package per variant, newquizzes-v01.zip ..., for Canvas New Quizzes, each "
            "number an exact answer with a margin; each with Markdown sheets).",
        ),
    ] = GenFormat.markdown,
    name: Annotated[
        str,
        typer.Option(
            "--name",
            help="The set's name (week5): it names the quiz and goes into its identifiers, so that importing "
            "another set never replaces this one's questions.",
        ),
    ] = "",
    detail: Annotated[
        Detail,
        typer.Option(
            "--detail",
            help=f"Solutions of {', '.join(kinds.recurrent())}: every time step written out (full), the first in full "
            "and the later ones a line per step with their gate tables (first), or the tables only (summary).",
        ),
    ] = Detail.first,
    force: Annotated[bool, typer.Option("--force", help="Overwrite files already in --out.")] = False,
    max_pages: MaxPages = None,
) -> None:
    """Write seeded homework: one problem file per variant, answer keys, and question, answers and solution sheets."""
    from ..api.homework_files import homework_files, homework_names, left_note, write_homework
    from ..errors import AttncalcError
    from ..files import check_folder, out_folder
    from ..homework.generate import Options, check_options, default_dim
    from ..homework.generate import generate as make

    opts = Options(
        kind=kind,
        score=score,
        tokens=tokens,
        dim=dim if dim is not None else default_dim(kind),
        head=head,
        mask=mask,
        count=count,
        seed=seed,
        values=values,
        allow_ties=allow_ties,
        decimals=decimals,
        layout=layout,
        reset=reset,
        update=update,
        cell=cell,
        attention=attention,
        steps=steps,
        measure=measure,
        heads=heads,
        kv_heads=kv_heads,
        positions=positions,
        cross=cross,
        strategy=strategy,
        optimizer=optimizer,
        clip_norm=clip_norm,
        label_smoothing=label_smoothing,
        schedule=schedule,
        window=window,
        normalization=normalization,
        activation=activation,
        norm=norm,
        top_k=top_k,
        slip_share=slip_share,
        carried_share=carried_share,
        # a quiz's variants ask the same questions; --one-shape draws the worksheets' variants so too
        one_shape=one_shape or format.value in QUIZ_FORMATS,
    )
    try:
        folder = out_folder(out)
        check_options(opts)  # --count first: the folder's check lists --count names
        from ..reports.lms import check_name, shape
        from ..reports.lms_shares import share_warnings

        check_name(name)
        check_folder(folder, homework_names(count, format.value), force)  # before any variant is drawn
        result = make(opts, shape)
        files = homework_files(result.problems, result.derivations, format.value, seed, detail.value, max_pages, name)
        left = write_homework(folder, files, force)  # (an earlier set's files it did not replace)
    except AttncalcError as exc:
        _fail(str(exc))
    rejected = sum(result.rejected.values())
    why = ", ".join(f"{n} {reason}" for reason, n in result.rejected.most_common())
    sys.stderr.write(
        f"attncalc: wrote {count} variant{'s' if count != 1 else ''} (seed {seed}) and their sheets to {printable(str(folder))}; "
        f"rejected {rejected} draw{'s' if rejected != 1 else ''}{': ' + why if why else ''}\n"
    )
    sys.stderr.write(share_warnings(format.value, slip_share, carried_share) + left_note(folder, left))
    if format.value in QUIZ_FORMATS and not one_shape:  # a worksheet run of this seed may draw other variants
        sys.stderr.write(f"attncalc: note: {ONE_SHAPE_NOTE.format(seed=seed)}\n")
