"""PDF through a real pdflatex: the LaTeX sheet compiled in a temporary folder."""

from __future__ import annotations

import os
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


def compile_pdf(tex: str, timeout: float = 120.0) -> bytes:
    """Run pdflatex on a complete LaTeX document and return the PDF's bytes."""
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
            raise ToolError(f"pdflatex did not finish within {timeout:.0f} s") from None
        pdf = Path(tmp) / "sheet.pdf"
        if run.returncode != 0 or not pdf.exists():
            log = (
                (Path(tmp) / "sheet.log").read_text(errors="replace")
                if (Path(tmp) / "sheet.log").exists()
                else run.stdout
            )
            errors = [line for line in log.splitlines() if line.startswith("!")][:3]
            raise ToolError("pdflatex failed: " + (" | ".join(errors) or run.stdout[-300:]))
        return pdf.read_bytes()
