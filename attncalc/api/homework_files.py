"""The files ``generate`` writes for a homework set, by format: the variants, the answer keys, the
sheets and the LMS quiz files (:func:`homework_names`, :func:`homework_files`, :func:`write_homework`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..derivation import Derivation
from ..errors import AttncalcError, ProblemError, printable
from ..homework.generate import answers_toml, problem_toml

FORMATS = ("markdown", "latex", "pdf", "html", "moodle", "moodle-cloze", "qti", "qti12", "ilias", "newquizzes")
# the quiz file of each LMS format
QUIZZES = {
    "moodle": "quiz.xml",
    "moodle-cloze": "cloze.xml",
    "qti": "qti.zip",
    "qti12": "qti12.zip",
    "ilias": "ilias.zip",
}
# the LMS formats (Markdown sheets beside the quiz); newquizzes writes a package per variant, whose
# variants need not share a shape
LMS_FORMATS = (*QUIZZES, "newquizzes")


def homework_names(count: int, fmt: str) -> list[str]:
    """The names of the files a homework set of ``count`` variants in ``fmt`` is written as (a Moodle
    quiz over 2 MB is written as ``quiz-1.xml``, ``quiz-2.xml``, ... instead of ``quiz.xml``:
    :func:`attncalc.reports.moodle.moodle_files`)."""
    if fmt not in FORMATS:
        raise ProblemError("generate", "--format", f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    names: list[str] = []
    for k in range(1, count + 1):
        names += [f"variant-{k:02d}.toml", f"answers/variant-{k:02d}.toml"]
    ext = SHEET_EXTENSIONS["markdown" if fmt in LMS_FORMATS else fmt]
    names += [f"{name}.{ext}" for _, name in SHEETS]
    if fmt == "newquizzes":
        from ..reports.newquizzes import newquizzes_names

        return [*names, *newquizzes_names(count)]
    return [*names, *([QUIZZES[fmt]] if fmt in QUIZZES else [])]


def homework_files(
    problems: list[dict[str, Any]],
    derivations: list[Derivation],
    fmt: str,
    seed: int,
    detail: str = "first",
    max_pages: int | None = None,
    set_name: str = "",
) -> dict[str, str | bytes]:
    """The files of a homework set by name (:func:`homework_names`): variants, answer keys, and the
    three sheets in fmt (the solutions at ``detail``; a PDF of at most ``max_pages``, default 500).
    The quiz's identifiers (QTI items, Moodle categories) follow from the problems and ``set_name``,
    so two sets never share one."""
    from ..homework.generate import drawer

    names = iter(homework_names(len(problems), fmt))
    subject = drawer(derivations[0].problem.kind).subject if derivations else "Homework"
    files: dict[str, str | bytes] = {}
    for raw, d in zip(problems, derivations, strict=True):
        name, key = next(names), next(names)
        files[name] = problem_toml(raw, seed)
        files[key] = answers_toml(d, f"../{name}")
    files.update(_sheets(derivations, "markdown" if fmt in LMS_FORMATS else fmt, seed, subject, detail, max_pages))
    if fmt == "moodle":
        from ..reports.moodle import moodle_files

        # quiz.xml, or quiz-1.xml, quiz-2.xml, ... each under Moodle's default 2 MB upload limit
        files.update(moodle_files(derivations, seed, _set_tag(problems, seed, set_name), set_name))
    if fmt == "moodle-cloze":  # one Cloze question per variant: a random question gives one whole variant
        from ..reports.moodle_cloze import cloze_files

        files.update(cloze_files(derivations, seed, _set_tag(problems, seed, set_name), set_name))
    if fmt == "qti":
        from ..reports.qti import qti_zip

        files["qti.zip"] = qti_zip(derivations, seed, _set_tag(problems, seed, set_name), set_name)
    if fmt == "qti12":
        from ..reports.qti12 import qti12_zip

        files["qti12.zip"] = qti12_zip(derivations, seed, _set_tag(problems, seed, set_name), set_name)
    if fmt == "newquizzes":  # one package per variant, for Canvas New Quizzes
        from ..reports.newquizzes import newquizzes_zips

        files.update(newquizzes_zips(derivations, seed, _set_tag(problems, seed, set_name), set_name))
    if fmt == "ilias":
        from ..reports.qti12 import ilias_zip

        files["ilias.zip"] = ilias_zip(derivations, seed, _set_tag(problems, seed, set_name), set_name)
    return files


def _set_tag(problems: list[dict[str, Any]], seed: int, name: str) -> str:
    from ..reports.lms import set_tag

    return set_tag(problems, seed, name)


SHEETS = (("question", "questions"), ("answers", "answers"), ("solution", "solutions"))
SHEET_EXTENSIONS = {"markdown": "md", "latex": "tex", "html": "html", "pdf": "pdf"}


def _sheets(
    derivations: list[Derivation], fmt: str, seed: int, subject: str, detail: str, max_pages: int | None = None
) -> dict[str, str | bytes]:
    from ..render.writers import render

    count = len(derivations)
    ext = SHEET_EXTENSIONS[fmt]
    out: dict[str, str | bytes] = {}
    for sheet, name in SHEETS:
        title = f"{subject}, {count} variant{'s' if count > 1 else ''} (seed {seed}): {name}"
        out[f"{name}.{ext}"] = render(derivations, "latex" if fmt == "pdf" else fmt, sheet, title=title, detail=detail)
    if fmt == "pdf":
        from ..render.pdf import compile_pdf
        from ..render.pdf_pages import check_pages

        for name, tex in out.items():  # every sheet's length estimated before pdflatex typesets any
            check_pages(str(tex), "generate", max_pages, what=name)
        out = {name: compile_pdf(str(tex), name=name) for name, tex in out.items()}
    return out


# the names generate writes (homework_names, in every format and count): a file so named that a run did not
# write is an earlier set's (--force over a set of more variants, or of another format)
_SET_FILE = re.compile(
    r"(answers/)?variant-[0-9]{2,}\.toml|(questions|answers|solutions)\.(md|tex|html|pdf)"
    r"|quiz(-[0-9]+)?\.xml|cloze\.xml|(qti|qti12|ilias)\.zip|newquizzes-v[0-9]{2,}\.zip"
)


def earlier_files(folder: Path, written: list[str]) -> list[str]:
    """The files in ``folder`` (and its ``answers/``) named as a homework set's are, that are not among
    ``written``: an earlier set's, left beside this one (``check --problems`` would grade a file naming
    ``variant-03.toml`` against the old variant)."""
    found = []
    for sub in ("", "answers/"):
        try:
            names = sorted(p.name for p in (folder / sub).iterdir() if p.is_file())
        except OSError:
            continue
        found += [sub + n for n in names if _SET_FILE.fullmatch(sub + n) and sub + n not in written]
    return found


def left_note(folder: Path, left: list[str]) -> str:
    """The note on :func:`earlier_files` (empty when there are none)."""
    if not left:
        return ""
    shown = ", ".join(printable(n) for n in left[:6]) + (f", and {len(left) - 6} more" if len(left) > 6 else "")
    return (
        f"attncalc: note: {printable(str(folder))} still holds {len(left)} file{'s' if len(left) > 1 else ''} of an "
        f"earlier set that this run did not write ({shown}): remove them, or write the set to an empty folder "
        "(check --problems would grade a file naming an old variant against it, and an LMS import of every quiz "
        "file would take the old quiz too)\n"
    )


def write_homework(folder: Path, files: dict[str, str | bytes], force: bool) -> list[str]:
    """Write the files into folder (created if missing); refuse, naming one, if any exists without force.
    The files of an earlier set left in the folder, by name (:func:`earlier_files`)."""
    from ..files import check_folder, check_inside, write_atomic

    check_folder(folder, list(files), force)
    try:
        (folder / "answers").mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # /proc, a name too long, a read-only mount: one line, not a traceback
        raise AttncalcError(f"{folder}: cannot create the folder ({exc.strerror or exc})") from None
    for name, content in files.items():  # each checked again as it is written: a link made meanwhile
        write_atomic(str(check_inside(folder, name)), content, True)
    return earlier_files(folder, list(files))
