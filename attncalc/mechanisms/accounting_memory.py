"""Kind accounting, the memory: the parameters, gradients and AdamW state in bytes, the KV cache and
what MHA, GQA, MQA, a sliding window and an MLA latent would cache side by side, and LoRA's parameters."""

from __future__ import annotations

from ..parse.accounting import Accounting, Lora
from .accounting_book import Book, Num, c
from .accounting_training import master, per_device

# ------------------------------------------------------------------------------ memory


def _bytes(a: Accounting, b: Book) -> int:
    return (2 if a.bytes == 4 else 4) if b.slip("wrong_dtype_bytes") else a.bytes


def memory(a: Accounting, b: Book, total: Num) -> None:
    by = _bytes(a, b)
    M = "bytes"
    params = b.count(
        "memory.parameters", "Parameter memory", "M_params", f"M_params = N · {a.bytes}",
        f"{c(total)} · {by}", total * by, M, explain=f"{a.dtype}: {a.bytes} bytes a number.",
    )  # fmt: skip
    grads = b.count(
        "memory.gradients", "Gradient memory", "M_grads", f"M_grads = N · {a.bytes}",
        f"{c(total)} · {by}", total * by, M, explain=f"One gradient a parameter, in {a.dtype}.",
    )  # fmt: skip
    fp32 = master(a, b, total) if a.mixed_precision else None
    opt = b.count(
        "memory.optimizer", "AdamW state", "M_opt", "M_opt = N · 2 · 4",
        f"{c(total)} · 8", total * 8, M,
        explain="AdamW keeps two moving averages per parameter, the first and second moments, in fp32.",
    )  # fmt: skip
    if fp32 is None:
        formula, written = "M_train = M_params + M_grads + M_opt", f"{c(params)} + {c(grads)} + {c(opt)}"
        why = "Activations are not counted: they depend on the batch and on what is recomputed."
        if a.bytes == 2:
            why += (
                " No fp32 master copy is counted (mixed_precision is not set): with one, as mixed-precision "
                "training keeps, add 4 bytes a parameter."
            )
    else:
        formula = "M_train = M_params + M_grads + M_master + M_opt"
        written = f"{c(params)} + {c(grads)} + {c(fp32)} + {c(opt)}"
        why = "Activations are not counted: they depend on the batch and on what is recomputed."
    b.count(
        "memory.training", "Training memory", "M_train", formula, written,
        params + grads + (fp32 or 0) + opt, M, explain=why,
    )  # fmt: skip
    per_device(a, b, total, a.mixed_precision and fp32 != 0)


# ------------------------------------------------------------------------------ the KV cache


def cache(a: Accounting, b: Book) -> None:
    L, T, B, dh = a.layers, a.tokens, a.batch, a.d_head
    by = _bytes(a, b)
    M = "bytes"
    gqa = 1 < a.kv_heads < a.heads
    wrong_heads = b.slip("heads_for_kv_heads", a.kv_heads < a.heads)
    one = b.slip("kv_not_doubled")
    k2 = 1 if one else 2
    kvh = a.heads if wrong_heads else a.kv_heads
    kept = min(T, a.window) if a.window is not None else T
    bb = f" · {c(B)}" if B > 1 else ""
    Bf = " · B" if B > 1 else ""

    def kv(n_heads: Num, tokens: int, heads_name: str, tokens_name: str) -> tuple[str, str, Num]:
        formula = f"2 · L · {heads_name} · d_head · {tokens_name}{Bf} · bytes"
        written = f"{k2} · {c(L)} · {c(n_heads)} · {c(dh)} · {c(tokens)}{bb} · {by}"
        return formula, written, k2 * L * n_heads * dh * tokens * B * by

    if a.latent is not None:
        formula = f"M_KV = L · d_c · {'min(T, window)' if a.window is not None else 'T'}{Bf} · bytes"
        written = f"{c(L)} · {c(a.latent)} · {c(kept)}{bb} · {by}"
        value: Num = L * a.latent * kept * B * by
    else:
        f, written, value = kv(kvh, kept, "H_kv", "min(T, window)" if a.window is not None else "T")
        formula = "M_KV = " + f
    b.count(
        "kv_cache", "KV cache", "M_KV", formula, written, value, M,
        explain="Each layer keeps every cached token's key and value so that the next token need not recompute them.",
    )  # fmt: skip
    f, w, v = kv(a.heads, T, "H", "T")
    b.count("kv_cache.mha", "KV cache with MHA", "M_MHA", "M_MHA = " + f, w, v, M)
    if gqa:
        f, w, v = kv(kvh, T, "H_kv", "T")
        b.count("kv_cache.gqa", "KV cache with GQA", "M_GQA", "M_GQA = " + f, w, v, M)
    f, w, v = kv(1, T, "1", "T")
    b.count("kv_cache.mqa", "KV cache with MQA", "M_MQA", "M_MQA = " + f, w, v, M)
    if a.window is not None:
        f, w, v = kv(kvh, kept, "H_kv", "min(T, window)")
        b.count("kv_cache.window", "KV cache with a sliding window", "M_win", "M_win = " + f, w, v, M)
    if a.latent is not None:
        b.count(
            "kv_cache.latent", "KV cache with an MLA latent", "M_MLA", f"M_MLA = L · d_c · T{Bf} · bytes",
            f"{c(L)} · {c(a.latent)} · {c(T)}{bb} · {by}", L * a.latent * T * B * by, M,
            explain="Multi-head latent attention caches one compressed vector per token and layer, from which K and V are rebuilt.",
        )  # fmt: skip


# ------------------------------------------------------------------------------ LoRA


# each matrix's (fan_in, fan_out) in the givens' names, as Accounting.fan computes them
FAN_NAMES = {
    "W_Q": "d_model and H·d_head",
    "W_K": "d_model and H_kv·d_head",
    "W_V": "d_model and H_kv·d_head",
    "W_O": "H·d_head and d_model",
    "W_1": "d_model and d_ff",
    "W_3": "d_model and d_ff",
    "W_2": "d_ff and d_model",
}


def lora(a: Accounting, adapters: Lora, b: Book) -> None:
    r = adapters.rank
    fans = [(m, *a.fan(m)) for m in adapters.targets]
    per = sum(r * (i + o) for _, i, o in fans)
    terms = " + ".join(f"{c(r)}·({c(i)} + {c(o)})" for _, i, o in fans)
    names = ", ".join(m for m, _, _ in fans)
    b.count(
        "lora.parameters", "LoRA parameters", "N_LoRA",
        "N_LoRA = L · Σ r·(fan_in + fan_out)", f"{c(a.layers)} · ({terms})", a.layers * per,
        "parameters",
        defines=(f"Σ over the adapted matrices {names} of a block, fan_in and fan_out a matrix's input and output "
                 "widths as it multiplies a row vector x W (" + "; ".join(f"{m}: {FAN_NAMES[m]}" for m, _, _ in fans) + ")",),
        explain=f"Each adapted matrix ({names}) gains B A with A (r × fan_in) and B (fan_out × r); W itself is frozen.",
    )  # fmt: skip
