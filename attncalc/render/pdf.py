"""PDF through a real pdflatex: the LaTeX sheet compiled in a temporary folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import AttncalcError

INSTALL_HINT = (
    "pdflatex was not found. Install it, e.g. on Debian/Ubuntu: "
    "sudo apt-get install texlive-latex-base texlive-latex-recommended "
    "(or TeX Live / MacTeX elsewhere); --format latex writes the .tex without it"
)


class ToolError(AttncalcError):
    """A tool attncalc needs (pdflatex) is missing or failed."""


def compile_pdf(tex: str, timeout: float = 120.0, name: str = "the PDF") -> bytes:
    """Run pdflatex on a complete LaTeX document and return the PDF's bytes; ``name`` (the file
    being made) is what a refusal names."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise ToolError(INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="attncalc-") as tmp:
        src = Path(tmp) / "sheet.tex"
        src.write_text(tex, encoding="utf-8")
        cmd = [exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "sheet.tex"]
        try:
            # a fixed date and trailer id make the same sheet the same bytes (homework from one seed)
            env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"}
            for _ in range(3):  # again while longtable's column widths settle ("Rerun LaTeX")
                run = subprocess.run(
                    cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, check=False, env=env
                )
                if run.returncode != 0 or "Rerun LaTeX" not in run.stdout:
                    break
        except subprocess.TimeoutExpired:
            raise ToolError(f"{name}: pdflatex did not finish within {timeout:.0f} s") from None
        pdf = Path(tmp) / "sheet.pdf"
        if run.returncode != 0 or not pdf.exists():
            log_file = Path(tmp) / "sheet.log"
            log = log_file.read_text(errors="replace") if log_file.exists() else run.stdout
            raise ToolError(f"{name}: pdflatex could not set {what_failed(log)}")
        return pdf.read_bytes()


# what pdflatex's first error says, in words (its log lines quote the sheet's own text: a title
# "! Missing number" would read as the error)
_UNICODE = re.compile(r"^! (?:Package inputenc|LaTeX) Error: Unicode character .*?\(U\+([0-9A-F]+)\)", re.M)
_CAPACITY = re.compile(r"^! TeX capacity exceeded", re.M)
_TOO_LARGE = re.compile(r"^! Dimension too large", re.M)
_LINE = re.compile(r"^l\.(\d+) ", re.M)


def what_failed(log: str) -> str:
    """What in the sheet pdflatex could not set, from its log, in one phrase without its lines."""
    import unicodedata

    if m := _UNICODE.search(log):
        ch = chr(int(m.group(1), 16))
        return f"the character U+{m.group(1)} ({unicodedata.name(ch, 'unnamed')}): its fonts have no glyph for it"
    if _CAPACITY.search(log):
        return "the sheet: it needs more memory than TeX has (a smaller problem, or --format html)"
    if _TOO_LARGE.search(log):
        return "a table or formula larger than TeX can measure (a smaller problem, or --format html)"
    where = f" on line {m.group(1)} of its LaTeX source" if (m := _LINE.search(log)) else ""
    return f"the text{where} (--format latex writes that source)"
