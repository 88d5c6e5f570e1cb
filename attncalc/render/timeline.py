"""Format-neutral overviews of a recurrent derivation: the timeline and the per-step gate tables.

The timeline has one row per time step (encoder, then decoder): the token, the state, and where
there is an output layer the prediction and the loss. A gate table gathers one time step's gates,
one row per gate and one column per entry, eliding the middle columns of a wide state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Derivation, Step
from .fmt import elide

WIDE = 8  # state entries shown in full; wider states keep the first three and the last
GATE_ROWS = (
    ("hx", "[h; x]"),
    ("f", "f  forget"),
    ("i", "i  input"),
    ("c_tilde", "c̃  candidate"),
    ("retained", "f ⊙ c_prev"),
    ("new", "i ⊙ c̃"),
    ("c", "c  cell"),
    ("o", "o  output"),
    ("tanh_c", "tanh(c)"),
    ("r", "r  reset"),
    ("z", "z  update"),
    ("h_tilde", "h̃  candidate"),
    ("h", "h  hidden"),
)


def applies(d: Derivation) -> bool:
    return d.problem.kind in ("rnn", "lstm", "gru", "seq2seq")


@dataclass(frozen=True)
class Block:
    """One time step of one cell: the id prefix ("3.", "encoder.2.", "decoder.1.") and a title."""

    prefix: str
    title: str


class Timeline:
    def __init__(self, d: Derivation) -> None:
        self.d = d
        self.by_id: dict[str, Step] = {s.id: s for s in d.steps}
        self.blocks: list[Block] = []
        self.table_after: dict[str, Block] = {}
        self.section_starts: dict[str, str] = {}
        seen: set[str] = set()
        last_of: dict[str, str] = {}
        for s in d.steps:
            parts = s.id.split(".")
            digits = [k for k, p in enumerate(parts) if p.isdigit()]
            if not digits:
                continue
            prefix = ".".join(parts[: digits[0] + 1]) + "."
            rest = ".".join(parts[digits[0] + 1 :])
            if rest in dict(GATE_ROWS) or rest.endswith("_pre"):
                last_of[prefix] = s.id
            if prefix not in seen:
                seen.add(prefix)
                self.blocks.append(Block(prefix, _block_title(prefix)))
        for b in self.blocks:
            if b.prefix in last_of and self._rows_of(b):
                self.table_after[last_of[b.prefix]] = b
        if d.problem.kind == "seq2seq":
            for s in d.steps:
                head = s.id.split(".")[0]
                label = {"encoder": "Encoder", "decoder": "Decoder"}.get(head, "Loss, gradient and update")
                if label not in self.section_starts.values():
                    self.section_starts[s.id] = label
        self.title = "Timeline"

    # -- the timeline ----------------------------------------------------------------
    @property
    def header(self) -> list[str]:
        h = ["step", "token"]
        if any(self._get(b.prefix + "c") is not None for b in self.blocks):
            h.append("c_t")
        h.append("h_t")
        if any(self._get(b.prefix + "weights") is not None for b in self.blocks):
            h.append("attends most to")
        if any(self._get(b.prefix + "prediction") is not None for b in self.blocks):
            h += ["ŷ", "target", "p(target)", "L_t"]
        return h

    def rows(self, n: Callable[[Any], str]) -> list[list[str]]:
        out = []
        header = self.header
        p = self.d.problem
        for b in self.blocks:
            if b.prefix.startswith("encoder.") and b.prefix.count(".") == 3 and self._get(b.prefix + "h") is None:
                continue
            row = {"step": b.title, "token": self._token(b)}
            c = self._get(b.prefix + "c")
            row["c_t"] = self.vec(c.shown, n) if c is not None else ""
            h = self._get(b.prefix + "h") or self._get(b.prefix + "state")
            row["h_t"] = self.vec(h.shown, n) if h is not None else ""
            w = self._get(b.prefix + "weights")
            if w is not None:
                k = int(np.argmax(np.asarray(w.shown, dtype=float)))
                labels = p.tokens or tuple(f"h_{i + 1}" for i in range(len(np.asarray(w.shown))))
                row["attends most to"] = f"{labels[k]} ({n(np.asarray(w.shown)[k])})"
            pred = self._get(b.prefix + "prediction")
            loss = self._get(b.prefix + "loss")
            if pred is not None:
                row["ŷ"] = str(pred.value)
                if loss is not None:
                    target = getattr(loss, "label", "")
                    row["target"] = target + ("  ✓" if target == pred.value else "  ✗")
                    row["p(target)"] = n(getattr(loss, "prob", float("nan")))
                    row["L_t"] = n(loss.shown)
            out.append([row.get(k, "") for k in header])
        return out

    def _token(self, b: Block) -> str:
        p = self.d.problem
        parts = b.prefix.rstrip(".").split(".")
        t = int(parts[-1])
        if parts[0] in ("encoder",) or p.kind != "seq2seq":
            if p.tokens is not None and t - 1 < len(p.tokens):
                return p.tokens[t - 1]
            return f"x_{t}"
        return f"y_{t - 1}"

    # -- gate tables -----------------------------------------------------------------
    def _rows_of(self, b: Block) -> list[tuple[str, Step]]:
        out = []
        for key, label in GATE_ROWS:
            s = self._get(b.prefix + key)
            if s is not None and key != "hx":
                out.append((label, s))
        return out if len(out) > 1 else []

    def gate_rows(self, b: Block, n: Callable[[Any], str]) -> tuple[list[str], list[list[str]], str]:
        rows = self._rows_of(b)
        width = len(np.asarray(rows[0][1].shown))
        cols = list(elide(list(range(width)), WIDE))
        header = ["", *("…" if j is None else str(j + 1) for j in cols)]
        body = []
        for label, s in rows:
            v = np.asarray(s.shown, dtype=float)
            cells = ["…" if j is None else n(v[j]) for j in cols]
            body.append([label + ("  (given)" if type(s).__name__ == "Stated" else ""), *cells])
        caption = f"{width} entries; the middle is elided" if width > WIDE else ""
        return header, body, caption

    @staticmethod
    def vec(v: Any, n: Callable[[Any], str]) -> str:
        a = np.asarray(v, dtype=float).ravel()
        items = [n(x) for x in a]
        return "[" + ", ".join(x if x is not None else "…" for x in elide(items, WIDE)) + "]"

    def _get(self, sid: str) -> Step | None:
        return self.by_id.get(sid)


def _block_title(prefix: str) -> str:
    parts = prefix.rstrip(".").split(".")
    t = parts[-1]
    if parts[0] == "encoder":
        side = {"fwd": " →", "bwd": " ←"}.get(parts[1], "") if len(parts) == 3 else ""
        return f"enc {t}{side}"
    if parts[0] == "decoder":
        return f"dec {t}"
    return f"step {t}"
