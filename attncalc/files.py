"""Writing output files: whole (a temporary file renamed into place), with the mode a plain open()
would give (0666 less the umask), and never over an existing file unless asked to."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import AttncalcError


def write_atomic(path: str, text: str | bytes, force: bool) -> None:
    """Write text to path through a temporary file and a rename; never overwrite without force.

    The file gets 0666 less the umask (0644 under umask 022, 0640 under 027), not mkstemp's
    private 0600, so a sheet written for students can be served as it is.
    """
    target = Path(path)
    if target.exists() and not force:
        raise AttncalcError(f"{path}: already exists; pass --force to overwrite it")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise AttncalcError(f"{path}: the folder {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
        if force:
            os.replace(tmp, target)
        else:
            _link_new(tmp, target, path)
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
    except OSError:  # no hard links on this file system: the check before writing is all there is
        os.replace(tmp, target)
