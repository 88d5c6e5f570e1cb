"""What a kind's homework drawer is, and the hand-friendly numbers every drawer draws from."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from ..derivation import Derivation
from ..errors import ProblemError
from .options import Options

VOCAB = ("A", "B", "C", "D", "E", "F")
TOKENS = ("the", "cat", "sat", "on", "a", "mat", "and", "slept", "all", "day", "long", "today")

# Numbers by --values: attention's (unchanged since the first generator: the same seed draws the same
# variants) and the recurrent cells' narrower ones, which keep σ and tanh away from saturation.
PALETTES: dict[str, dict[str, tuple[int | float, ...]]] = {
    "attention": {
        "int": (-2, -1, 0, 1, 1, 2),
        "decimal": tuple(x / 10 for x in (-10, -8, -5, -4, -2, 0, 2, 3, 4, 5, 6, 8, 10)),
    },
    "cell": {
        "int": (-1, 0, 1),
        "decimal": tuple(x / 10 for x in (-8, -5, -4, -2, -1, 0, 1, 2, 4, 5, 8)),
    },
}


class Draw:
    """Random hand-friendly numbers, vectors and matrices from one generator."""

    def __init__(self, rng: random.Random, values: str, palette: str = "attention") -> None:
        self.rng = rng
        self.values = values
        self.palette = PALETTES[palette]

    def number(self) -> int | float:
        style = self.values if self.values != "mixed" else self.rng.choice(("int", "decimal"))
        return self.rng.choice(self.palette[style])

    def vector(self, n: int) -> list[int | float]:
        return [self.number() for _ in range(n)]

    def nonzero_vector(self, n: int) -> list[int | float]:
        """A vector with at least one non-zero entry (an input row, an embedding)."""
        while True:
            v = self.vector(n)
            if any(x != 0 for x in v):
                return v

    def matrix(self, rows: int, cols: int) -> list[list[int | float]]:
        return [self.vector(cols) for _ in range(rows)]

    def inputs(self, rows: int, cols: int) -> list[list[int | float]]:
        """Input rows (one per token) with a non-zero entry each, and columns that are neither all
        zeros nor, with two or more rows, the same for every token (a feature that never varies is a
        dead unit: :mod:`attncalc.homework.dead`)."""
        while True:
            M = [self.nonzero_vector(cols) for _ in range(rows)]
            columns = list(zip(*M, strict=True))
            if all(any(x != 0 for x in c) and (rows == 1 or len(set(c)) > 1) for c in columns):
                return M


@dataclass(frozen=True)
class Drawer:
    """A kind's homework: its options check, one draw, and why a variant is unfit (None: fit).

    ``reject`` looks at the drawn table before it is parsed (a row of zeros that would make a cosine
    undefined); ``degeneracy`` at its float derivation and again at the one the sheets show.
    """

    subject: str  # the sheets' title: "LSTM homework"
    check: Callable[[Options], None]
    draw: Callable[[Options, random.Random, int], dict[str, Any]]
    degeneracy: Callable[[Options, dict[str, Any], Derivation], str | None]
    reject: Callable[[Options, dict[str, Any]], str | None] = lambda o, raw: None
    min_tokens: int = 2
    max_tokens: int = len(TOKENS)
    default_dim: int = 2  # --dim when it is not given
    # the shared options (SHARED_OPTIONS) the kind's draw reads, of those a user tunes: tokens, dim,
    # values, allow_ties, decimals (or a function of the options giving them, where one is read only
    # with another option: softmax's --dim with a training step); None: all of them. Another one given
    # (not at its default: --dim's is ``default_dim``) is refused
    reads: frozenset[str] | Callable[[Options], frozenset[str]] | None = None
    # the fewest decimals the kind asks for (its numbers are written to max(--decimals, this)): a
    # --decimals at or below it changes nothing, and is refused as an option not read
    min_decimals: int = 0

    def reads_of(self, o: Options) -> frozenset[str]:
        """The shared options this kind's draw reads with the options ``o``."""
        if self.reads is None:
            return frozenset(TUNED)
        return self.reads(o) if callable(self.reads) else self.reads

    def __call__(self, o: Options, rng: random.Random, number: int) -> dict[str, Any]:
        return self.draw(o, rng, number)


def refuse(option: str, message: str) -> ProblemError:
    return ProblemError("generate", option, message)


# the options every kind takes; any other option concerns some kinds only, and `only` refuses it for the rest
SHARED_OPTIONS = frozenset(
    {
        "kind",
        "tokens",
        "dim",
        "count",
        "seed",
        "values",
        "allow_ties",
        "decimals",
        "one_shape",
        "slip_share",
        "carried_share",
    }
)


def only(o: Options, allowed: set[str], kind_words: str) -> None:
    """Refuse the options that do not concern this kind (a default is never refused)."""
    defaults = Options()
    for f in fields(Options):
        name = f.name
        if name in SHARED_OPTIONS:
            continue
        if name not in allowed and getattr(o, name) != getattr(defaults, name):
            flag = name.replace("_", "-")
            raise refuse(f"--{flag}", f"--{flag} does not apply to {kind_words}")


TUNED = ("tokens", "dim", "values", "allow_ties", "decimals")  # the shared options a drawer may not read


def refuse_unread(o: Options, draw: Drawer) -> None:
    """Refuse a shared option the kind's draw does not read (a default is never refused)."""
    reads = draw.reads_of(o)
    defaults = Options(dim=draw.default_dim)
    for name in TUNED:
        if name not in reads and getattr(o, name) != getattr(defaults, name):
            flag = name.replace("_", "-")
            raise refuse(f"--{flag}", f"--{flag} does not apply to {o.kind}")
    if draw.min_decimals and defaults.decimals != o.decimals <= draw.min_decimals:
        raise refuse(
            "--decimals",
            f"--decimals {o.decimals} does not apply to {o.kind}: its numbers are asked to at least "
            f"{draw.min_decimals} decimals (choose more, or leave --decimals out)",
        )


def draws_advice(o: Options, draw: Drawer, shapes: int) -> str:
    """What to try when a variant finds no fit draw: only what helps this kind. In a quiz format,
    when draws were of another shape than variant 1 (``shapes`` of them), another --seed (another
    variant 1) or a smaller --count; never an option the kind does not read."""
    reads = draw.reads_of(o)
    if o.one_shape and shapes:
        return "try another --seed (another variant 1: a quiz's variants all have its shape) or a smaller --count"
    if draw.reads is None:
        return "try other options (more tokens, another --values, --allow-ties)"
    tips = ["another --seed"] + (["other --tokens"] if "tokens" in reads else [])
    tips += ["another --values"] if "values" in reads else []
    tips += ["--allow-ties"] if "allow_ties" in reads else []
    return "try " + (", ".join(tips[:-1]) + " or " + tips[-1] if len(tips) > 1 else tips[0])


def check_window(o: Options) -> None:
    """A sliding window narrower than the sequence (a wider one is the plain causal mask), with a causal mask."""
    if o.window is None:
        return
    if o.window >= o.tokens:
        raise refuse("--window", f"--window {o.window} sees every key of --tokens {o.tokens}: it must be below it")
    if o.mask not in (None, "causal"):
        raise refuse("--window", "a sliding window slides with the causal mask")


def choose(o: Options, name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise refuse(f"--{name}", f"unknown {name} {value!r}; choose {', '.join(choices[:-1])} or {choices[-1]}")
