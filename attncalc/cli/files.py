"""Which of `attncalc check`'s files is the problem and which are answers files: the first file read,
whether a file names its own problem, whether two paths are the same file; and what a class's files may be
read through (:func:`not_read`, the class rules of docs/interface.md's "Answers files")."""

from __future__ import annotations

import errno
import os
import stat
from typing import Any


def real(path: str) -> str:
    """``os.path.realpath``, and for a chain of symbolic links too long to resolve (Python 3.11 follows
    one by recursion, about 970 deep; no open() follows more than 40) an OSError, ELOOP, as open() says it:
    a student's archive may hold such a chain, which is refused in its row, never a traceback."""
    try:
        return os.path.realpath(path)
    except RecursionError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path) from None


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


# keys only a problem file has: a file with none of them (and no `problem`) is an answers file
PROBLEM_ONLY_KEYS = {
    "cache",
    "type",
    "memory_tokens",
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
    "grading",
}


def first_file(paths: list[str], limit: int | None) -> dict[str, Any] | None:
    """The first file read, or None when the files are all answers files and the first one is broken
    (cannot be read, or names no problem): it gets its row like any other, instead of costing the class
    its gradebook. Which it is, the later files say: one of them an answers file that names its problem
    (not only the second: two broken files sorted first must not cost the class its gradebook either)."""
    from ..errors import AttncalcError
    from ..parse import read_raw

    try:
        first: dict[str, Any] = read_raw(paths[0], limit)
    except AttncalcError:
        if not any(names_its_problem([p], limit) for p in paths[1:]):
            raise
        return None
    plain = "problem" not in first and not set(first) & PROBLEM_ONLY_KEYS
    if plain and any(names_its_problem([p], limit) for p in paths[1:]):
        return None
    return first


# the answers files a folder given to check holds (the suffixes problem and answers files are read from)
ANSWERS_SUFFIXES = (".toml", ".yaml", ".yml", ".json")


def answers_in_folders(paths: list[str]) -> tuple[list[str], set[str], int]:
    """``paths`` with each folder among them replaced by its entries named like answers files (ending in
    .toml, .yaml, .yml or .json in any case, sorted), the set of the paths found that way (a file found in
    a folder is a student's, never the problem graded against: :func:`key_given`), and how many folders
    held none. Every such entry is a submission and gets its row: one that is no regular file of the
    folder (a link out of it, a broken link, a FIFO, a folder) is refused in its row without being
    opened, as the same entry given by a glob is, so that no submission leaves the gradebook unsaid.
    A folder that holds none, or cannot be listed, is refused, alone; among other paths (a class:
    ``subs/*/``, one student's folder empty, holding only a PDF, or unpacked unreadable) it is one line on
    stderr, the others graded."""
    import sys

    from ..errors import AttncalcError, printable

    listed: list[str] = []
    found: set[str] = set()
    bad = 0
    for path in paths:
        # (a name an answers file has is one, in any case, as a folder's listing reads it: a student's link
        # named x.toml or X.TOML to a folder, matched by the TA's subs/*, is not a folder given, and is never
        # listed; it is refused as not a file)
        if not os.path.isdir(path) or os.path.normpath(path).lower().endswith(ANSWERS_SUFFIXES):  # (x.toml/.)
            listed.append(path)
            continue
        try:
            names = sorted(n for n in os.listdir(path) if n.lower().endswith(ANSWERS_SUFFIXES))
        except OSError as exc:  # (a student's folder unpacked with no read permission)
            names, unlisted = [], f"{path}: cannot list the folder ({exc.strerror or exc})"
        else:
            unlisted = f"{path}: a folder with no answers files (.toml, .yaml, .yml or .json) in it"
        if not names:
            if len(paths) == 1:
                raise AttncalcError(unlisted)
            sys.stderr.write(f"attncalc: error: {printable(unlisted)}\n")
            bad += 1
            continue
        entries = [os.path.join(path, n) for n in names]
        listed.extend(entries)
        found.update(entries)
    if not listed:
        raise AttncalcError("no answers files in the folders given (.toml, .yaml, .yml or .json)")
    return listed, found, bad


def key_given(paths: list[str], found: set[str], problems: list[str] | None, gradebook: bool) -> bool:
    """Whether the first path may be the PROBLEM graded against: never a file found in a folder (a
    class's submissions), and with --problems, when other files follow or in a gradebook, only one
    inside a --problems folder (``check --problems DIR subs/*.toml`` must not take a student's problem
    file sorted first for the key). A problem given alone, its own [answers] graded, grades no one else."""
    path = paths[0]
    if path in found:
        return False
    if not problems or (len(paths) == 1 and not gradebook):
        return True
    # directly in a --problems folder as given (a student's link in subs/ to one of the set's problems,
    # or a student folder that links to the set, lies in subs/, whatever it points at), and as it is
    if not directly_in(path, problems) or linked_below(path, problems) or dotdot_after_a_link(path):
        return False
    try:
        return in_problems(real(path), [real(f) for f in problems])
    except OSError:  # (a chain of links no open() follows)
        return False


def hard_linked(path: str) -> int:
    """How many names the file has, when more than one (a hard link: a student's archive may hold one to
    the TA's key, which Python's tarfile unpacks); else 0."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return 0
    return info.st_nlink if stat.S_ISREG(info.st_mode) and info.st_nlink > 1 else 0


def directly_in(path: str, problems: list[str]) -> bool:
    """Whether a path, as given or written, lies directly in a --problems folder: its folder, as written
    (no link followed), is one as the TA named it or the folder that one resolves to (``$PWD/hw3`` where
    the shell's folder is a link, ``cur -> hw3`` named with --problems); a student's folder ``subs/aaa ->
    ..``, ``subs/`` holding a student's link, or ``/proc/self/cwd/hw3`` is not."""
    folder = os.path.abspath(os.path.dirname(path) or ".")
    return folder in {os.path.abspath(p) for p in problems} | {real(p) for p in problems}


def linked_below(path: str, problems: list[str] | None) -> str | None:
    """The symbolic link on the way down to a class's file, if any: a folder that is a link below the
    current folder, or for a path outside it, below the folder the path shares with the current one (the
    root, for a path in another tree), such as a student's folder linked to the TA's keys or to a folder
    elsewhere. The folders a TA's paths share are no proof they are the TA's: one student's folder graded
    alone (``subs/mallory/``, a loop over ``subs/*/`` or ``../subs/*/*/``) is the folder its files share.
    The current folder is the TA's (a TA who ``cd``s into a student's folder has chosen it). A
    --problems folder as named is not looked above."""
    folder = os.path.abspath(os.path.dirname(path) or ".")
    try:
        here = os.getcwd()
    except OSError:  # (a current folder removed under the run: from the root down)
        here = os.sep
    # below the current folder, or for a path outside it, below the folder it shares with the current one
    # (the root, for a path in another tree): how deep the students' folders begin, nothing on the command
    # line says (a loop over subs/*/*/ by ../ or absolute paths shares subs/mallory/sub, below the link)
    top = os.path.commonpath([folder, here])
    named = {os.path.abspath(p) for p in problems or []}
    while folder != top and _inside(folder, top) and folder not in named:
        if os.path.islink(folder):
            return folder
        folder = os.path.dirname(folder)
    return None


def not_read(path: str, problems: list[str] | None, folders: list[str] | None = None) -> str | None:
    """Why a class's answers file is not read, or None: the one place a class's files are confined.
    A class (several answers files, a folder of them, a gradebook) is read only through real folders: the
    file is no symbolic link to a file outside its own folder, no folder on its way down from the current
    folder (for a path outside it, from the folder the two share) is a link (:func:`linked_below`),
    and a file that lies in a --problems folder is reached down from that folder as named (a student's
    entries may be links anywhere the submissions were unpacked: to the TA's keys, to files elsewhere).
    The link is named as the gradebook names files (``folders``: see :func:`shown_path`)."""
    try:
        return _not_read(path, problems, folders)
    except OSError as exc:  # (a chain of links too long to follow, in a student's archive: as open() says it)
        return f"cannot be read: {exc.strerror}"


def _not_read(path: str, problems: list[str] | None, folders: list[str] | None) -> str | None:
    if os.path.islink(path) and os.path.dirname(real(path)) != real(os.path.dirname(path) or "."):
        return "a symbolic link out of its folder: not read (give the file it links to, to grade it)"
    names = hard_linked(path)
    if names:
        return f"a file with {names} names (a hard link): not read (give a copy of it to grade it)"
    link = dotdot_after_a_link(path) or linked_below(path, problems) or linked_into_the_set(path, problems)
    if link is not None:
        # named as the file is: from the current folder for a path given relative (`../subs/hw3`, not `hw3`)
        named = os.path.relpath(link) if not os.path.isabs(path) and os.path.isabs(link) else link
        return (
            f"in a linked folder ({shown_path(named, folders or [])} is a symbolic link): not read (a class is "
            "read through real folders only; give the folder it links to, to grade its files)"
        )
    return None


def linked_into_the_set(path: str, problems: list[str] | None) -> str | None:
    """The link by which a class's answers file that lies, as it really is, in a --problems folder or below
    it (the set's problems, generate's answers/ keys) is reached, when it is not reached down from that
    folder as the TA named it through real folders: a student's folder or file linking into the set
    (``subs/s00 -> ../hw3/answers``), whatever folder the class's files share. None when it is not."""
    resolved = real(path)
    for folder in problems or []:
        if not _inside(resolved, real(folder)):
            continue
        spellings = {os.path.abspath(folder), real(folder)}  # (as named, or as it is)
        given = os.path.abspath(path)
        top = next((s for s in spellings if _inside(given, s) and given != s), os.sep)
        below = os.path.dirname(given)  # (the file itself: a link out of its folder is refused as one)
        while below != top and below != os.path.dirname(below):
            if os.path.islink(below):
                return below
            below = os.path.dirname(below)
        if top == os.sep:  # (not below the folder as named: through a link on the path as given, `x/..`)
            return _last_link(path) or os.path.dirname(given)
    return None


def dotdot_after_a_link(path: str) -> str | None:
    """The link a path as given goes back up from (``subs/ev/../mykey.toml``, ``ev`` a link: the `..` leaves
    the folder ``ev`` points to, not ``subs/``), where the path as written and as followed part; else None.
    (Folders are otherwise judged on the path written out, on which ``ev/..`` is nothing.)"""
    folder = os.path.dirname(path) or "."
    if ".." not in folder.split(os.sep):
        return None
    if real(folder) == real(os.path.abspath(folder)):
        return None
    return _last_link(path) or folder


def _last_link(path: str) -> str | None:
    """The last folder on a path as given, `..` kept (``subs/mallory/../answers/k.toml``), that is a
    symbolic link: the one a refusal names."""
    last, here = None, os.sep if os.path.isabs(path) else ""
    for part in path.split(os.sep)[:-1]:
        here = os.path.join(here, part) if part else here
        if part not in ("", ".", "..") and os.path.islink(here):
            last = here
    return last


def in_problems(real: str, roots: list[str]) -> bool:
    """Whether a real path is one a class may be graded against: a file directly in a --problems folder
    (``roots``), never in a folder below one. Students' files may be unpacked anywhere below it (each
    in a folder of theirs, a late batch, another section, docs/lms.md's subs/): a problem file a student
    wrote there, or one sorting first among the answers files, must not grade the class; a set's
    problems lie in the folder generate wrote (give each such folder with --problems)."""
    return os.path.dirname(real) in roots


def problem_shaped(raw: dict[str, Any]) -> bool:
    """An answers file's table that is a problem file's (it has ``kind``, which every problem file has)."""
    return "kind" in raw


def names_its_problem(paths: list[str], limit: int | None) -> bool:
    from ..errors import AttncalcError
    from ..parse import read_raw

    try:
        raw = read_raw(paths[0], limit) if paths else {}
    except AttncalcError:
        return False
    return "problem" in raw and not set(raw) & PROBLEM_ONLY_KEYS


# what a gradebook row says of a problem = that cannot be used: never what was found there (a student's
# file must not learn whether a path exists on the grader's machine, nor what a file holds)
UNUSABLE = (
    "the problem this answers file names could not be used: it must be a problem file inside the answers "
    "file's folder, or with --problems directly in a --problems folder (not in a folder below it), named by "
    "a relative path"
)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def problem_named(answers: str, written: str, folder: str | list[str] | None) -> str | None:
    """The file an answers file's ``problem = "..."`` names, read only inside the answers file's folder or
    a --problems folder: a relative path, looked up from the answers file's folder, then from each
    --problems folder, whose real path (symbolic links followed) is a regular file inside one of them.
    None when there is none (an absolute path, one leaving the folders, a missing file, a FIFO...)."""
    found = problem_found(answers, written, folder)
    return found[0] if found is not None else None


def problem_found(
    answers: str, written: str, folder: str | list[str] | None, beside_ok: bool = True
) -> tuple[str, str] | None:
    """:func:`problem_named`'s file: its real path, and the path it was found by (the folder it was
    looked up from, joined with what the file wrote), or None. ``beside_ok`` False: one answers file of
    a class (then only a file directly in a --problems folder, :func:`in_problems`)."""
    from pathlib import PureWindowsPath

    if not written or "\x00" in written or os.path.isabs(written) or PureWindowsPath(written).drive:
        return None
    try:  # (a lone surrogate, or a letter the file system's encoding has not: no such file)
        os.fsencode(written)
    except UnicodeError:
        return None
    given = [folder] if isinstance(folder, str) else list(folder or [])
    own = os.path.dirname(answers) or "."
    bases = [own, *given]
    roots = [real(b) for b in bases]
    # grading a class of files with --problems, the problem is a file directly in a --problems folder,
    # never one below it (a student may have written one anywhere the submissions were unpacked), so not
    # one beside the answers file either, unless that folder is a --problems folder
    strict = bool(given) and not beside_ok

    def usable(resolved: str, as_written: str) -> bool:
        if real(as_written) != resolved:  # (a `..` after a link: as written and as followed, two files)
            return False
        if not strict:
            return any(_inside(resolved, root) for root in roots)
        # directly in a --problems folder as written (no link of a student's on the way: subs/variant-01.toml
        # linking to another variant would regrade everyone whose file names variant-01.toml) and as it is
        return directly_in(as_written, given) and in_problems(resolved, roots[1:])

    for base in bases:
        joined = os.path.join(base, written)
        as_written = os.path.normpath(joined)
        try:  # (a chain of links no open() follows names no file)
            resolved = real(joined)
            if usable(resolved, as_written) and _opens_as(joined, resolved):
                return resolved, as_written
        except (OSError, ValueError):
            continue
    return None


def _opens_as(path: str, resolved: str) -> bool:
    """Whether ``path``, as open() follows it (every folder on it, `..` after each), is the regular file
    ``resolved``: realpath drops a missing folder before a `..` (``nosuch/../x.toml``, or from the
    --problems folder ``k/../x.toml`` where ``k`` is a link in the student's folder only), open() does not."""
    found, meant = os.stat(path), os.stat(resolved)
    return stat.S_ISREG(found.st_mode) and (found.st_dev, found.st_ino) == (meant.st_dev, meant.st_ino)


def shown_path(path: str, folders: list[str]) -> str:
    """A path as a gradebook or report shows it: as given when relative; an absolute one relative to the
    current folder or to one of ``folders`` (the answers files' common folder) when inside it, else its
    name alone: no absolute path of the grader's machine reaches a file handed back to students."""
    if not os.path.isabs(path):
        return path
    path = _tidy(path)
    for base in [os.getcwd(), *folders]:
        if base and os.path.dirname(base) != base and _inside(path, base) and path != base:  # not "/"
            return os.path.relpath(path, base)
    return os.path.basename(path) or path


def report_shown(report: Any, folders: list[str]) -> Any:
    """The report with its problem and answers files named as :func:`shown_path` names them."""
    import dataclasses

    return dataclasses.replace(
        report, problem=shown_path(report.problem, folders), answers=shown_path(report.answers, folders)
    )


def common_folder(paths: list[str]) -> list[str]:
    """The folder every absolute path of ``paths`` is in (none when there is no such path)."""
    absolute = [os.path.dirname(_tidy(p)) for p in paths if os.path.isabs(p)]
    try:
        return [os.path.commonpath(absolute)] if absolute else []
    except ValueError:
        return []


def _tidy(path: str) -> str:
    """An absolute path as it is shown: without a trailing slash (a folder `/x/w.toml/` is never "."), with
    one leading slash (POSIX keeps `//tmp/x` as written, abspath too, and it would lie in no folder of the
    current one's spelling: a gradebook would name its files by their names alone), and normalised
    (`$PWD/../lab/x` named from the same folder as its link is, `lab/x`)."""
    path = path.rstrip(os.sep) or path
    return os.path.normpath(os.sep + path.lstrip(os.sep) if path.startswith(os.sep * 2) else path)
