"""Kind accounting at the scale of a training run: the budget 6 · N · D beside the forward pass's FLOPs
per token times D, and one device's share of the training memory under ZeRO (Rajbhandari et al. 2020,
"ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", section 5 and Figure 1).

ZeRO counts, for Ψ parameters trained in mixed precision with Adam, 2Ψ bytes of fp16 parameters, 2Ψ of
fp16 gradients and KΨ of optimizer states, K = 12: the fp32 master copy (4) and the two moments (4 + 4).
Over N_d data-parallel devices stage 1 partitions the optimizer states, stage 2 the gradients too and
stage 3 the parameters too; a partition holds ⌈Ψ / N_d⌉ parameters' worth (Ψ / N_d when it divides, as in
the paper's example: Ψ = 7.5B, N_d = 64 gives 120 GB, 31.4 GB, 16.6 GB and 1.9 GB)."""

from __future__ import annotations

from ..parse import Problem
from ..parse.accounting import Accounting
from .accounting_book import Book, Num, c

PARTITIONED = {
    0: "nothing partitioned",
    1: "the optimizer states partitioned",
    2: "the optimizer states and the gradients partitioned",
    3: "the optimizer states, the gradients and the parameters partitioned",
}


def budget(a: Accounting, b: Book, total: Num, forward: Num | None) -> None:
    """flops.training_total = 6 · N · D and flops.training_from_forward = 3 · (F_fwd / (B·T)) · D (not
    with N stated: ``forward`` None, no architecture to count a forward pass from)."""
    if a.training_tokens is None:
        return
    D, n = a.training_tokens, a.batch * a.tokens
    F = "FLOPs"
    six = 2 if b.slip("training_forward_only") else 6  # the slip: the forward pass's 2 FLOPs only
    b.count(
        "flops.training_total", "Training budget", "C", "C = 6 · N · D",
        f"{six} · {c(total)} · {c(D)}", six * total * D, F,
        explain="The rule of thumb over the whole run: 6 FLOPs per parameter per training token "
        "(2 forward, 4 backward), N the parameters, D the training tokens (Kaplan et al. 2020; Hoffmann et al. 2022).",
    )  # fmt: skip
    if forward is None:
        return
    rows = "(B·T)" if a.batch > 1 else "T"
    three = 1 if b.slip("training_forward_only") else 3
    whole = isinstance(forward, int) and (three * forward * D) % n == 0  # (F_fwd is B·T times a per-token count)
    value: Num = three * forward * D // n if whole else three * forward * D / n
    b.count(
        "flops.training_from_forward", "Training FLOPs from the forward pass", "C_fwd",
        f"C_fwd = 3 · (F_fwd / {rows}) · D",  # the forward FLOPs per token, times 3, times the tokens
        f"{three} · ({c(forward)} / {c(n)}) · {c(D)}", value, F,
        explain="The exact forward count per token, times 3 for the backward pass, times the training tokens: "
        "unlike 6 · N · D it counts the attention's own products (which grow with T) and leaves out the "
        "parameters no product uses.",
    )  # fmt: skip


def master(a: Accounting, b: Book, total: Num) -> Num:
    """memory.master: the fp32 copy of the weights mixed precision keeps (0 under master_forgotten)."""
    forgot = b.slip("master_forgotten", a.mixed_precision)
    return b.count(
        "memory.master", "fp32 master weights", "M_master", "M_master = N · 4",
        f"{c(total)} · {0 if forgot else 4}", 0 if forgot else total * 4, "bytes",
        explain=f"Mixed precision: the optimizer updates an fp32 copy of the weights, from which the {a.dtype} "
        "weights are cast; with AdamW's two fp32 moments that makes 12 bytes of optimizer state a parameter, "
        f"{2 * a.bytes + 12} bytes in all, as ZeRO counts it.",
    )  # fmt: skip


def _shard(total: Num, devices: int) -> Num:
    """⌈Ψ / N_d⌉: the parameters whose state one device keeps when a tensor is partitioned."""
    if isinstance(total, int):
        return -(-total // devices)
    return total / devices


def stage_bytes(a: Accounting, total: Num, stage: int, k: int) -> tuple[str, str, Num]:
    """One device's bytes at a ZeRO stage: (formula, numbers put in, value), K optimizer bytes a parameter."""
    p = g = a.bytes
    nd = a.devices or 1
    s = _shard(total, nd)
    ps, ss = c(total), c(s)
    if stage == 0:
        return "M_dev = (P + G + K) · Ψ", f"({p} + {g} + {k}) · {ps}", (p + g + k) * total
    if stage == 1:
        return (
            "M_dev = P·Ψ + G·Ψ + K·⌈Ψ/N_d⌉",
            f"{p} · {ps} + {g} · {ps} + {k} · {ss}",
            p * total + g * total + k * s,
        )
    if stage == 2:
        return "M_dev = P·Ψ + (G + K)·⌈Ψ/N_d⌉", f"{p} · {ps} + ({g} + {k}) · {ss}", p * total + (g + k) * s
    return "M_dev = (P + G + K)·⌈Ψ/N_d⌉", f"({p} + {g} + {k}) · {ss}", (p + g + k) * s


def per_device(a: Accounting, b: Book, total: Num, has_master: bool) -> None:
    """memory.per_device: with devices given, one device's parameters, gradients and optimizer states."""
    if a.devices is None:
        return
    stage = a.zero or 0
    if b.slip("zero_stage_confused", a.devices > 1):
        arg = b.chain.mistake_arg
        stage = arg if isinstance(arg, int) else (stage + 1 if stage < 3 else 2)
    k = 8 + (4 if has_master else 0)
    formula, written, value = stage_bytes(a, total, stage, k)
    where = f"P = G = {a.bytes} ({a.dtype}), K = {k}" + (" (fp32 master 4 + Adam 8)" if has_master else " (Adam 8)")
    opt = "fp32 master 4 + Adam's two fp32 moments 4 + 4" if has_master else "Adam's two moments, 4 + 4"
    defines = (
        "Ψ = N, the model's parameters",
        f"P = G = {a.bytes} bytes a parameter ({a.dtype} weights and gradients)",
        f"K = {k} bytes a parameter of optimizer state ({opt})",
    )
    b.count(
        "memory.per_device", "Training memory per device", "M_dev", formula, written, value, "bytes",
        defines=defines,
        explain=f"ZeRO stage {a.zero or 0}, {PARTITIONED[a.zero or 0]}, over N_d = {a.devices:,} devices (Rajbhandari et al. 2020): "
        f"{where}; a partition holds ⌈Ψ/N_d⌉ = ⌈{c(total)}/{a.devices:,}⌉ parameters' worth. "
        "Activations and buffers are not counted.",
    )  # fmt: skip


# gib_for_gb's arguments: 2·k + direction, k the power of 1,024 (and of 1,000): 3 is GiB and GB, tried
# first, then TiB/TB, MiB/MB and KiB/KB; direction 0 a decimal number written with the binary name
# (153.0 GB written "153.0 GiB"), 1 a binary number with the decimal name (142.5 GiB written "142.5 GB")
PREFIX = {1: "K", 2: "M", 3: "G", 4: "T"}
UNIT_ARGS = [2 * k + direction for k in (3, 4, 2, 1) for direction in (0, 1)]


def slip_args(problem: Problem, name: str) -> list[int | None]:
    """The arguments check tries a slip with: the other ZeRO stages; both directions of GiB for GB."""
    a = problem.payload(Accounting)
    if name == "zero_stage_confused":
        return [s for s in range(4) if s != (a.zero or 0)] if a.devices is not None and a.devices > 1 else []
    return list(UNIT_ARGS)


def slip_words(problem: Problem, name: str, arg: int | None) -> str | None:
    """A slip's note in this problem's terms (None: the table's words)."""
    a = problem.payload(Accounting)
    if name == "zero_stage_confused" and arg is not None:
        asked = a.zero or 0
        return (
            f"the formula of ZeRO stage {arg} ({PARTITIONED[arg]}) was used, but this problem asks for "
            f"stage {asked} ({PARTITIONED[asked]})"
        )
    if name == "gib_for_gb" and arg is not None:
        k, direction = divmod(arg, 2)
        binary, decimal = f"{PREFIX[k]}iB (2^{10 * k} bytes)", f"{PREFIX[k]}B (10^{3 * k} bytes)"
        used, named = (decimal, binary) if direction == 0 else (binary, decimal)
        ratio = 2 ** (10 * k) / 10 ** (3 * k)
        return f"the number of {used} was written as {named}: 1 {PREFIX[k]}iB = {ratio:.4f} {PREFIX[k]}B"
    return None
