"""The ALiBi bias on the diagonal, b_ii = −m·|i − i| = 0, is said once: "b[1,1] = 0", not "= 0 = 0"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

RAW = """kind = "multi-head"
tokens = ["a", "b", "c"]
[given]
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
heads = 2
positions = "alibi"
W_Q = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]
W_K = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]
W_V = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]
W_O = [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]
"""


def test_the_diagonal_bias_is_said_once(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(RAW)
    text = cli("solve", str(path), "--width", "80").stdout
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("b[")]
    assert "b[1,1] = 0" in lines and "b[2,2] = 0" in lines, lines
    assert not any(ln.endswith("= 0 = 0") for ln in lines), lines
    # m_1 = 2^(−8/2) = 1/16 for two heads: b[1,2] = −0.0625·1, shown at 3 decimals
    assert any(ln.startswith("b[1,2] = −2^(−8/2)·|0 − 1| = ") and ln.endswith("0.063") for ln in lines), lines
    sheet = tmp_path / "s.md"
    assert cli("solve", str(path), "-f", "markdown", "-o", str(sheet)).exit_code == 0
    assert "= 0 = 0" not in sheet.read_text()
