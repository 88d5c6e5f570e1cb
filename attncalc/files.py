"""Reading input files and writing output files.

Input: only regular files (not a directory, a FIFO that would wait forever, or a device such as
/dev/zero that never ends), and at most a given number of bytes. Output: whole (a temporary file
renamed into place), with the mode a plain open() would give (0666 less the umask), and never over
an existing file (or a symbolic link, even a dangling one) unless asked to.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from pathlib import Path

from .errors import AttncalcError, ProblemError, printable

MAX_INPUT_BYTES = 1 << 20  # 1M: a problem file is a few kilobytes; --max-file-size raises it


def read_input(path: str | Path, max_bytes: int = MAX_INPUT_BYTES, pipe: bool = False) -> bytes:
    """The bytes of a problem or answers file; ProblemError (naming it) for anything else. With
    ``pipe``, also a pipe the shell hands over as ``/dev/fd/N`` (``--roster <(...)``): read until it
    ends, at most ``max_bytes`` + 1 bytes (a FIFO by any other name is still refused: it may never
    have a writer)."""
    file = str(path)
    if "\0" in file:
        raise ProblemError(file, "", "the path contains a NUL character")
    _not_special(file, pipe)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)  # non-blocking: opening a FIFO must not wait for a writer
    except FileNotFoundError:
        raise ProblemError(file, "", "no such file") from None
    except IsADirectoryError:
        raise ProblemError(file, "", "is a directory, not a regular file") from None
    except OSError as exc:
        raise ProblemError(file, "", f"cannot be read: {exc.strerror}") from None
    except UnicodeEncodeError:  # a lone surrogate (from the API: the command line's arguments encode back)
        raise ProblemError(file, "", "no such file (the path holds a character no file name can)") from None
    try:
        info = os.fstat(fd)
        _refuse_special(file, info.st_mode, pipe)  # (again, as opened: it may have changed since stat)
        if stat.S_ISFIFO(info.st_mode):  # the shell's pipe has its writer: wait for what it writes
            os.set_blocking(fd, True)
        if info.st_size > max_bytes:
            raise _too_large(file, info.st_size, max_bytes)
        chunks, got = [], 0
        while got <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > max_bytes:  # it grew while being read
            raise _too_large(file, got, max_bytes)
        return b"".join(chunks)
    except OSError as exc:
        raise ProblemError(file, "", f"cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)


def _not_special(file: str, pipe: bool) -> None:
    """Refuse a folder, FIFO, socket or device before opening it (opening a device a student's archive
    holds may do something: a tape rewinds); what stat cannot tell, open() and fstat say after."""
    try:
        mode = os.stat(file).st_mode
    except (OSError, ValueError):
        return
    _refuse_special(file, mode, pipe)


def _refuse_special(file: str, mode: int, pipe: bool) -> None:
    """Anything but a regular file is refused: a folder, a device, a FIFO (with ``pipe``, but for the
    shell's own pipe handed over as ``/dev/fd/N``)."""
    if stat.S_ISDIR(mode):
        raise ProblemError(file, "", "is a directory, not a regular file")
    if not stat.S_ISREG(mode) and not (pipe and stat.S_ISFIFO(mode) and _handed_over(file)):
        raise ProblemError(file, "", f"is {_kind(mode)}, not a regular file")


def _handed_over(file: str) -> bool:
    """Whether ``file`` names an open file of this process (``/dev/fd/N``, as bash and zsh write a
    process substitution ``<(...)``), not a FIFO someone made in the file system."""
    return re.fullmatch(r"/(dev|proc/self)/fd/\d+", file) is not None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _too_large(file: str, size: int, limit: int) -> ProblemError:
    return ProblemError(
        file, "", f"is larger than the {format_size(limit)} limit for input files; --max-file-size raises it"
    )


def format_size(n: int) -> str:
    """1048576 -> "1M", 1536 -> "1.5K", 100 -> "100 bytes"."""
    for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= size:
            return f"{n / size:.4g}{unit}"
    return f"{n} bytes"


def parse_size(text: str) -> int:
    """ "4M", "512K", "1G" (powers of 1024) or a number of bytes; ValueError otherwise."""
    m = re.fullmatch(r"\s*(\d{1,15})\s*([KMG]?)(?:I?B)?\s*", text, re.IGNORECASE)
    if not m or int(m.group(1)) == 0:
        raise ValueError(text)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]


def check_output(path: str, force: bool) -> None:
    """:func:`_check_output`, with any error of the operating system (a name too long) one line."""
    try:
        _check_output(path, force)
    except OSError as exc:
        raise AttncalcError(f"{path}: {exc.strerror or exc}") from None


def _check_output(path: str, force: bool) -> None:
    """Refuse, before any work is done, an output path that cannot or may not be written.

    A folder (``-o .``), a missing or non-folder parent, an unwritable folder, and without force any
    existing name, a symbolic link included (even one pointing nowhere) are each one line.
    """
    if "\0" in path:
        raise AttncalcError(f"{printable(path)}: the path contains a NUL character")
    target = Path(path)
    if target.is_dir():
        raise AttncalcError(f"{path}: is a folder; name a file to write")
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        # --force replaces a file by renaming over it: it must never replace /dev/null or a FIFO
        raise AttncalcError(
            f"{path}: is {_kind(mode)}, not a file; attncalc writes files only (use -o - for standard output)"
        )
    if mode is not None and stat.S_ISLNK(mode):
        try:
            pointed = os.stat(target).st_mode  # what the link points at
        except OSError:
            pointed = None  # a link pointing nowhere: --force replaces the link itself
        if pointed is not None and not stat.S_ISREG(pointed):
            # --force renames over the link: /dev/stdout (a link to /proc/self/fd/1) would be replaced
            raise AttncalcError(
                f"{path}: is a symbolic link to {_kind(pointed) if not stat.S_ISDIR(pointed) else 'a folder'}, "
                "not a file; attncalc writes files only (use -o - for standard output)"
            )
    if os.path.lexists(target) and not force:
        what = "is a symbolic link" if target.is_symlink() else "already exists"
        raise AttncalcError(f"{path}: {what}; pass --force to overwrite it")
    directory = target.parent
    if not directory.exists():
        raise AttncalcError(f"{path}: the folder {directory} does not exist")
    if not directory.is_dir():
        raise AttncalcError(f"{path}: {directory} is not a folder")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise AttncalcError(f"{path}: cannot write into the folder {directory}")
    name_max = _name_max(directory)
    if len(os.fsencode(target.name)) > name_max:
        raise AttncalcError(f"{path}: the file name is longer than {name_max} bytes")


def _name_max(directory: Path) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_folder(folder: Path, names: list[str], force: bool) -> None:
    """:func:`_check_folder`, with any error of the operating system (a name too long) one line."""
    try:
        _check_folder(folder, names, force)
    except OSError as exc:
        raise AttncalcError(f"{folder}: {exc.strerror or exc}") from None


def _check_folder(folder: Path, names: list[str], force: bool) -> None:
    """Refuse, before any work, an output folder whose files cannot or may not be written.

    The folder (and any missing parent) is created later; here whatever stands in the way is named:
    a file or a broken link where a folder is needed, a folder where a file will go, and without
    force any file that would be overwritten.
    """
    if "\0" in str(folder):
        raise AttncalcError(f"{printable(str(folder))}: the path contains a NUL character")
    for p in (folder, *folder.parents):  # the nearest existing one must be a folder
        if os.path.lexists(p):
            if not p.is_dir():
                what = "a broken symbolic link" if p.is_symlink() else "a file"
                raise AttncalcError(f"{p}: is {what}, not a folder")
            break
    clash = []
    for name in names:
        target = folder / name
        for sub in reversed(target.relative_to(folder).parents[:-1]):  # answers/ for answers/x.toml
            _not_a_link(folder, folder / sub)
            if os.path.lexists(folder / sub) and not (folder / sub).is_dir():
                raise AttncalcError(f"{folder / sub}: is a file, not a folder")
        if target.is_dir():
            raise AttncalcError(f"{target}: is a folder where a file is to be written")
        if os.path.lexists(target):
            clash.append(target)
    if clash and not force:
        raise AttncalcError(f"{clash[0]}: already exists ({len(clash)} files would be overwritten); pass --force")


def out_folder(out: str | Path) -> Path:
    """The folder ``--out`` names; an empty name is bad input (it would be the current folder)."""
    if not str(out).strip():
        raise AttncalcError("--out: the folder's name is empty; name the folder to write into (--out . for this one)")
    try:
        os.fsencode(out)  # a lone surrogate ("\ud800") from Python is no name the file system takes
    except UnicodeEncodeError:
        raise AttncalcError(f"--out: {ascii(str(out))[:80]}: not a name this file system can hold") from None
    return Path(out)


def _not_a_link(folder: Path, path: Path) -> None:
    """A symbolic link inside the output folder (answers/ pointing elsewhere) would carry files out of
    it, and with --force over what is there: refused, whatever --force says."""
    if path.is_symlink():
        raise AttncalcError(
            f"{path}: is a symbolic link; attncalc writes only inside {folder} (remove the link or choose another --out)"
        )


def check_inside(folder: Path, name: str) -> Path:
    """The path of ``name`` under ``folder``, checked just before writing it: no symbolic link between
    the two, and (resolving every link) the file's folder is the one asked for."""
    target = folder / name
    for sub in reversed(Path(name).parents[:-1]):
        _not_a_link(folder, folder / sub)
    want = Path(os.path.realpath(folder)) / Path(name).parent
    if Path(os.path.realpath(target.parent)) != want:
        raise AttncalcError(f"{target}: would be written outside {folder}; refused")
    return target


def write_atomic(path: str, text: str | bytes, force: bool) -> None:
    """Write text to path through a temporary file and a rename; never overwrite without force.

    The file gets 0666 less the umask (0644 under umask 022, 0640 under 027), not mkstemp's
    private 0600, so a sheet written for students can be served as it is. Text is UTF-8; a
    character UTF-8 cannot hold (a lone surrogate from a JSON file) is written as "?".
    """
    check_output(path, force)
    target = Path(path)
    try:
        # the temporary name is short: a name near the file system's limit leaves no room for affixes
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".attncalc-", suffix=".tmp")
    except OSError as exc:  # /proc, /sys, a read-only mount: one line, not a traceback
        raise AttncalcError(f"{path}: cannot write here ({exc.strerror or exc})") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
                f.write(text)
        if force:
            os.replace(tmp, target)
        else:
            _link_new(tmp, target, path)
    except OSError as exc:
        raise AttncalcError(f"{path}: cannot write it ({exc.strerror or exc})") from None
    finally:
        Path(tmp).unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read the umask is to set it: put it back at once
    os.umask(mask)
    return mask


def _link_new(tmp: str, target: Path, path: str) -> None:
    """Give tmp the name target unless that name appeared meanwhile (a hard link fails if it exists)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise AttncalcError(f"{path}: already exists; pass --force to overwrite it") from None
    except OSError:  # no hard links on this file system: check again just before the rename
        if os.path.lexists(target):
            raise AttncalcError(f"{path}: already exists; pass --force to overwrite it") from None
        os.replace(tmp, target)


def folder_files(folder: Path, suffixes: tuple[str, ...]) -> tuple[list[Path], list[str]]:
    """The regular files of ``folder`` whose name ends with one of ``suffixes`` (symbolic links to
    regular files included), sorted; and the other entries so named (a folder, a FIFO, a device, a
    broken link), each as "name (what it is)", for one note: they are skipped, never opened. (A class's
    submissions are listed otherwise: every entry is one, with its row; attncalc.cli.files.)"""
    files: list[Path] = []
    skipped: list[str] = []
    for p in sorted(folder.iterdir()):
        if not p.name.lower().endswith(suffixes):
            continue
        try:
            mode = p.stat().st_mode
        except OSError as exc:  # (a link to nothing, or a loop of links, as a file given says it)
            skipped.append(f"{p.name} ({'a link loop' if exc.errno == errno.ELOOP else 'a broken link'})")
            continue
        if stat.S_ISREG(mode):
            files.append(p)
        else:
            skipped.append(f"{p.name} ({'a folder' if stat.S_ISDIR(mode) else _kind(mode)})")
    return files, skipped
