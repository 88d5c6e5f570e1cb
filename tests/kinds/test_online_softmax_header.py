"""The header line says how the keys are split: 5 keys in blocks of 2 are 3 blocks, the last of 1 key."""

from __future__ import annotations

from attncalc.mechanisms.online_softmax import header
from attncalc.parse import parse_problem


def _header(scores: list[float], block: int) -> list[str]:
    raw = {"kind": "online-softmax", "given": {"scores": scores, "block": block}}
    return header(parse_problem(raw, "t.toml"))


def test_a_shorter_last_block_is_said() -> None:
    assert _header([1, 3, 2, 5, 0], 2)[1] == "3 blocks of 2 keys, the last of 1"
    assert _header([1, 3, 2, 5], 2)[1] == "2 blocks of 2 keys"
    assert _header([1, 3, 2], 1)[1] == "3 blocks of 1 key"
    assert _header([1, 3], 4)[1] == "one block"
