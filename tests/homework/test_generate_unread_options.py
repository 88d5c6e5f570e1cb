"""`generate`: an option a kind's drawer does not read is bad input unless left at its default
(docs/interface.md, "Homework: generate"), for every kind and every shared option (--tokens, --dim,
--values, --allow-ties, --decimals); an option a kind does read changes what is drawn. And a number
option that is not finite (--clip-norm inf) is refused at the option, not in a variant file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, default_dim, drawer, generate

from ..helpers import one_line_refusal

# What each kind's draw does not read, from docs/interface.md's options by kind and the drawers' tables
# (a kind whose numbers are fixed by its drawer has no --values; a kind with no weights to tie, no
# --allow-ties; a kind without vectors, no --dim)
NOT_READ: dict[str, set[str]] = {
    "softmax": {"dim"},  # the logits are drawn; --dim is the hidden's width only with a training step
    "sequence": {"dim", "allow_ties"},
    "rnn": {"allow_ties"},
    "lstm": {"allow_ties"},
    "gru": {"allow_ties"},
    "similarity": {"allow_ties"},
    "positional-encoding": {"allow_ties"},
    "bleu": {"dim", "values", "allow_ties"},
    "decode": {"dim", "values", "allow_ties"},
    "bpe": {"dim", "values", "allow_ties", "decimals"},
    "lr-schedule": {"dim", "values", "allow_ties", "decimals"},  # rates asked to 6 decimals, --decimals' most
    "accounting": {"tokens", "dim", "values", "allow_ties"},
    "quantization": {"values", "allow_ties"},
    "dpo": {"dim", "values", "allow_ties"},
    "grpo": {"dim", "values", "allow_ties"},
    "speculative": {"values", "allow_ties"},
    "moe": {"values"},
}
SHARED = ("tokens", "dim", "values", "allow_ties", "decimals")


def _other(kind: str, name: str) -> Any:
    """A value of the option other than its default that the kind can draw with."""
    draw = drawer(kind)
    if name == "tokens":  # (bleu reads at least 4)
        return next(n for n in (5, 2, 4, 1) if draw.min_tokens <= n <= draw.max_tokens and n != 3)
    if name == "dim":  # even, and splitting into 2 heads
        return default_dim(kind) + 2
    return {"values": "decimal", "allow_ties": True, "decimals": 6}[name]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def test_the_table_names_only_kinds_with_a_drawer() -> None:
    assert set(NOT_READ) <= set(kinds.with_drawer())


@pytest.mark.parametrize("kind", kinds.with_drawer())
def test_every_shared_option_is_read_or_refused(kind: str) -> None:
    base = Options(kind=kind, dim=default_dim(kind), count=2)
    first = generate(base)
    for name in SHARED:
        changed = dataclasses.replace(base, **{name: _other(kind, name)})
        if name in NOT_READ.get(kind, set()):
            with pytest.raises(ProblemError) as err:
                generate(changed)
            assert err.value.key == _flag(name) and f"does not apply to {kind}" in err.value.message
        else:
            try:
                got = generate(changed)
            except ProblemError as exc:  # no fit draw with it (said at --seed): read, not ignored
                assert exc.key != _flag(name), exc
                continue
            if name == "allow_ties" and not any("tie" in why and "prediction" not in why for why in first.rejected):
                continue  # nothing redrawn for a tie --allow-ties keeps (a tied prediction never is)
            # what was drawn, or what was redrawn (--allow-ties keeps a draw the default redraws for a tie)
            assert (got.problems, got.rejected) != (first.problems, first.rejected), (
                f"{kind}: {_flag(name)} changed nothing"
            )


@pytest.mark.parametrize(
    ("kind", "args"),
    [
        ("accounting", ["--tokens", "1000000"]),
        ("accounting", ["--dim", "5"]),
        ("softmax", ["--dim", "5"]),
        ("bleu", ["--dim", "5"]),
        ("decode", ["--values", "decimal"]),
    ],
)
def test_the_command_line_refuses_an_option_the_kind_does_not_read(
    cli: Any, tmp_path: Path, kind: str, args: list[str]
) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), "--kind", kind, *args)
    line = one_line_refusal(result, "generate", args[0])
    assert f"{args[0]} does not apply to {kind}" in line
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(("kind", "least"), [("dpo", 4), ("grpo", 4), ("quantization", 4), ("lr-schedule", 6)])
def test_decimals_below_what_a_kind_asks_for_are_refused(kind: str, least: int) -> None:
    # these kinds write their numbers to max(--decimals, least) decimals: 2 would change nothing
    with pytest.raises(ProblemError) as err:
        generate(Options(kind=kind, dim=default_dim(kind), decimals=2))
    assert err.value.key == "--decimals" and f"at least {least} decimals" in err.value.message
    if least < 6:
        assert generate(Options(kind=kind, dim=default_dim(kind), decimals=least + 1)).problems


def test_defaults_and_read_options_still_draw(cli: Any, tmp_path: Path) -> None:
    # the kind's own default --dim (4) given explicitly, and softmax's --dim with a training step
    for n, args in enumerate(
        (["--kind", "quantization", "--dim", "4"], ["--kind", "softmax", "--optimizer", "sgd", "--dim", "3"])
    ):
        result = cli("generate", "--out", str(tmp_path / f"hw{n}"), *args)
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
@pytest.mark.parametrize(
    "args",
    [
        ["--kind", "softmax", "--optimizer", "sgd", "--clip-norm"],
        ["--kind", "softmax", "--label-smoothing"],
        ["--kind", "rnn", "--head", "--clip-norm"],
        ["--kind", "attention", "--slip-share"],
    ],
)
def test_a_number_option_that_is_not_finite_is_refused_at_the_option(
    cli: Any, tmp_path: Path, args: list[str], value: str
) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), *args, value)
    line = one_line_refusal(result, "generate", args[-1])
    assert "variant-" not in line and "not a finite number" in line
    assert not out.exists() or not any(out.iterdir())


def test_a_blank_measure_between_commas_is_refused(cli: Any, tmp_path: Path) -> None:
    result = cli("generate", "--kind", "similarity", "--measure", "dot,,cosine", "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and "--measure" in result.stderr, result.stderr
