"""Size limits (docs/interface.md, "Limits"): small admitted files that took half a minute or
gigabytes are refused when the problem is read, in one line naming the file, the key and the limit,
before anything is computed (issue 17). The slow files themselves are replayed through the real CLI
by the fuzz corpus (tests/fuzz_corpus/cases.toml); these tests hold each limit at its edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import attncalc
from attncalc.errors import ProblemError

from .helpers import one_line_refusal


def test_generate_checks_count_before_the_output_folder(cli: Any, tmp_path: Path) -> None:
    """generate --count 1000000 listed a million file names for the folder's check (past 30 s) before
    refusing the count: the count is now checked first. A file where the folder should be would
    otherwise be named first."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    err = one_line_refusal(cli("generate", "--count", "1000000", "--out", str(afile)), "generate", "--count")
    assert "choose 1 to 1000 variants" in err
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=10**6, out=afile)
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=0, out=afile)
    assert afile.read_text() == "x"
