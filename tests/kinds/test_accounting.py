"""Kind accounting: parameters, FLOPs, memory and the KV cache of a decoder-only
Transformer, each against an oracle that is not attncalc's code.

* the published totals: GPT-2 small 124,439,808 (tied, learned positions), LLaMA-2-7B 6,738,415,616,
  Llama 3.1 8B 8,030,261,248 and Mistral 7B 7,241,732,096 (their model cards);
* PyTorch: the same configuration built from torch.nn modules (tests/accounting_oracle.py), counted by
  ``sum(p.numel())`` and, for FLOPs, by ``FlopCounterMode`` over its forward pass; AdamW's state by a
  real ``torch.optim.AdamW`` step; the KV cache as the tensors a cache holds;
* numbers worked by hand in the comments (the KV caches, the GiB, LoRA).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import solve_file, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch: CI does)")
nn = torch.nn
FlopCounterMode = pytest.importorskip("torch.utils.flop_counter").FlopCounterMode
from .. import accounting_oracle as oracle  # noqa: E402  (it builds the models in torch)

GPT2 = {"vocab": 50257, "context": 1024, "d_model": 768, "layers": 12, "heads": 12, "d_ff": 3072}
LLAMA2 = {
    "vocab": 32000,
    "context": 4096,
    "d_model": 4096,
    "layers": 32,
    "heads": 32,
    "d_ff": 11008,
    "ffn": "swiglu",
    "norm": "rms",
    "bias": False,
    "positions": "rope",
    "tie_embeddings": False,
}

# small configurations that exercise every key: GQA and MQA, a d_head other than d_model / heads, every
# FFN, both norms, biases or none, every position type, tied or not, a batch
SMALL: list[dict[str, Any]] = [
    {"vocab": 1000, "context": 64, "d_model": 96, "layers": 3, "heads": 6, "kv_heads": 2, "d_head": 20,
     "d_ff": 200, "ffn": "swiglu", "norm": "layer", "bias": True, "positions": "rope", "tokens": 40, "batch": 3},
    {"vocab": 500, "context": 32, "d_model": 64, "layers": 2, "heads": 4, "kv_heads": 1, "ffn": "relu",
     "norm": "rms", "bias": False, "positions": "learned", "tie_embeddings": False, "tokens": 17},
    {"vocab": 300, "context": 16, "d_model": 48, "layers": 4, "heads": 3, "d_ff": 100, "ffn": "gelu",
     "norm": "rms", "bias": True, "positions": "sinusoidal", "tie_embeddings": True, "batch": 2},
    {"vocab": 257, "context": 20, "d_model": 40, "layers": 1, "heads": 8, "kv_heads": 4, "d_head": 8,
     "ffn": "swiglu", "norm": "layer", "bias": False, "positions": "alibi", "tie_embeddings": False},
]  # fmt: skip


def solve_given(given: dict[str, Any], **top: Any) -> Any:
    return solve_raw({"kind": "accounting", "given": given, **top})


# ------------------------------------------------------------------ the published totals


@pytest.mark.parametrize(
    ("name", "total"),
    [
        ("gpt2-small-accounting.toml", 124_439_808),
        ("llama2-7b-accounting.toml", 6_738_415_616),
        ("gqa-kv-cache.toml", 8_030_261_248),
        ("mistral-window-cache.toml", 7_241_732_096),
        ("cs336-gpt2-xl-accounting.toml", 2_127_057_600),
    ],
)
def test_the_examples_have_their_published_parameter_counts(name: str, total: int) -> None:
    d = solve_file(name)
    assert d["parameters"] == total
    assert type(d["parameters"]) is int  # an exact integer, not a float


# ------------------------------------------------------------------ PyTorch: parameters and FLOPs


@pytest.mark.parametrize("given", [GPT2, LLAMA2, *SMALL], ids=["gpt2", "llama2", *map(str, range(len(SMALL)))])
def test_parameters_and_forward_flops_agree_with_torch(given: dict[str, Any]) -> None:
    d = solve_given(given)
    assert d["parameters"] == oracle.parameters(given)
    fwd = oracle.forward_flops(given)
    assert d["flops.forward"] == fwd
    assert d["flops.training"] == 3 * fwd


@pytest.mark.parametrize("given", [GPT2, *SMALL], ids=["gpt2", *map(str, range(len(SMALL)))])
def test_each_part_agrees_with_the_torch_modules(given: dict[str, Any]) -> None:
    """Every parameter step is the numel of its modules; every FLOPs step is FlopCounterMode's count
    for its modules (the scores and weighted sums: the block's products outside its Linear layers)."""
    c = oracle.config(given)
    m = oracle.model(given)
    blk = m.blocks[0]

    def numel(*mods: nn.Module | None) -> int:
        return sum(p.numel() for mod in mods if mod is not None for p in mod.parameters())

    d = solve_given(given)
    assert d["embedding"] == m.emb.weight.numel()
    assert d["positions"] == numel(m.pos)
    assert d["layer.attention"] == numel(blk.q, blk.k, blk.v, blk.o)
    assert d["layer.ffn"] == numel(blk.w1, blk.w2, blk.w3)
    assert d["layer.norms"] == numel(blk.n1, blk.n2)
    assert d["layer"] == numel(blk)
    assert d["layers"] == numel(m.blocks)
    assert d["final_norm"] == numel(m.norm)
    assert d["lm_head"] == (0 if c["tie_embeddings"] else m.head.weight.numel())
    assert d["non_embedding"] == d["parameters"] - m.emb.weight.numel() - numel(m.pos)

    ids = torch.zeros(c["batch"], c["tokens"], dtype=torch.long, device="meta")
    with FlopCounterMode(display=False) as counter:
        m(ids)
    counts = counter.get_flop_counts()

    def flops(name: str) -> int:
        return int(sum(counts.get(name, {}).values()))

    b0 = "Decoder.blocks.0"
    assert d["flops.attention"] == sum(flops(f"{b0}.{x}") for x in "qkvo")
    assert d["flops.ffn"] == sum(flops(f"{b0}.{x}") for x in ("w1", "w2", "w3"))
    assert d["flops.lm_head"] == flops("Decoder.head")
    # the block's own products, outside its Linear layers: Q Kᵀ and A V (bmm), equal here
    inside = flops(b0) - d["flops.attention"] - d["flops.ffn"]
    assert d["flops.scores"] + d["flops.weighted_sum"] == inside
    assert d["flops.scores"] == d["flops.weighted_sum"]


def test_the_six_n_rule_differs_by_the_attention_terms() -> None:
    """F_train − 6·N·T = 3·L·(F_scores + F_AV) − 6·T·(parameters no product multiplies), worked by hand
    for GPT-2 small: 3·12·2·(12·2·1024·64·1024) = 115,964,116,992 and 6·1024·907,776 = 5,577,375,744
    (907,776 = 786,432 positions + 12·(4·768 + 3072 + 768) biases + 12·4·768 + 2·768 norms)."""
    d = solve_file("gpt2-small-accounting.toml")
    assert d["flops.rule"] == 6 * 124_439_808 * 1024
    assert 786_432 + 12 * (4 * 768 + 3072 + 768) + 12 * 4 * 768 + 2 * 768 == 907_776
    assert d["flops.difference"] == 115_964_116_992 - 5_577_375_744
    assert d["flops.training"] - d["flops.rule"] == d["flops.difference"]
    note = d.step("flops.difference").note
    assert "115,964,116,992" in note and "907,776" in note


# ------------------------------------------------------------------ memory


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16"])
def test_memory_in_the_dtypes_bytes_and_adamw_state_in_fp32(dtype: str) -> None:
    given = {**SMALL[1], "dtype": dtype}
    d = solve_given(given)
    n = oracle.parameters(given)
    size = oracle.element_bytes(dtype)
    assert d["memory.parameters"] == n * size
    assert d["memory.gradients"] == n * size
    assert d["memory.optimizer"] == 8 * n
    assert d["memory.training"] == n * (2 * size + 8)


def test_adamw_keeps_two_fp32_moments_per_parameter() -> None:
    """memory.optimizer against a real AdamW step: its state's tensors, in bytes."""
    given = {"vocab": 50, "context": 8, "d_model": 16, "layers": 2, "heads": 2, "ffn": "swiglu", "d_ff": 24}
    torch.manual_seed(0)
    model = oracle.Decoder(oracle.config(given))  # a real (CPU) model this time
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.zeros(1, 8, dtype=torch.long)).sum().backward()
    opt.step()
    state = sum(t.numel() * t.element_size() for s in opt.state.values() for k, t in s.items() if k != "step")
    assert solve_given(given)["memory.optimizer"] == state


def test_gib_is_an_exact_fraction_of_two_to_the_thirty() -> None:
    """GPT-2 small in fp32: 497,759,232 bytes = 486,093 · 1,024, so 486,093/2^20 GiB ≈ 0.464 GiB."""
    d = solve_file("gpt2-small-accounting.toml")
    assert d["memory.parameters"] == 497_759_232 == 486_093 * 1024
    data = d.to_json()
    step = next(s for s in data["steps"] if s["id"] == "memory.parameters")
    assert step["value"] == 497_759_232 and step["shown"] == "497759232"
    assert Fraction(step["gib"]["exact"]) == Fraction(486_093, 2**20)
    assert step["gib"]["decimal"] == "0.464"  # 0.46357… rounded to the problem's 3 decimals
    assert "486,093/1,048,576 GiB ≈ 0.464 GiB" in d.to_text()


# ------------------------------------------------------------------ the KV cache


def test_kv_caches_worked_by_hand() -> None:
    # LLaMA-2-7B, bf16, 4,096 tokens: 2 · 32 layers · 32 heads · 128 · 4,096 · 2 bytes = 2 GiB
    d = solve_file("llama2-7b-accounting.toml")
    assert d["kv_cache"] == 2 * 32 * 32 * 128 * 4096 * 2 == 2 * 2**30
    # Llama 3.1 8B at 32,768 tokens: 8 key/value heads, 128 KiB a token: 4 GiB; MHA 16 GiB; MQA 0.5 GiB
    g = solve_file("gqa-kv-cache.toml")
    assert g["kv_cache"] == g["kv_cache.gqa"] == 4 * 2**30
    assert g["kv_cache.mha"] == 16 * 2**30
    assert g["kv_cache.mqa"] == 2**29
    # Mistral 7B: the window keeps 4,096 of the 32,768 tokens: 2 · 32 · 8 · 128 · 4,096 · 2 = 0.5 GiB
    m = solve_file("mistral-window-cache.toml")
    assert m["kv_cache"] == m["kv_cache.window"] == 2**29
    assert m["kv_cache.gqa"] == 4 * 2**30


@pytest.mark.parametrize("given", SMALL, ids=map(str, range(len(SMALL))))
def test_kv_cache_is_the_tensors_a_cache_holds(given: dict[str, Any]) -> None:
    d = solve_given(given)
    c = oracle.config(given)
    assert d["kv_cache"] == oracle.kv_cache_bytes(given)
    assert d["kv_cache.mha"] == oracle.kv_cache_bytes(given, kv_heads=c["heads"])
    assert d["kv_cache.mqa"] == oracle.kv_cache_bytes(given, kv_heads=1)
    grouped = 1 < c["kv_heads"] < c["heads"]
    assert ("kv_cache.gqa" in d) == grouped


def test_a_window_and_a_latent_side_by_side() -> None:
    """A small model, 40 tokens, window 16, MLA latent 24, bf16, batch 3 (by hand):
    window 2 · 3 · 2 · 20 · 16 · 3 · 2 = 23,040; latent 3 · 24 · 16 · 3 · 2 = 6,912 (both: the latent
    of the 16 tokens the window keeps); MLA alone at 40 tokens 3 · 24 · 40 · 3 · 2 = 17,280."""
    given = {**SMALL[0], "dtype": "bf16", "window": 16}
    d = solve_given(given)
    assert d["kv_cache"] == d["kv_cache.window"] == 23_040 == oracle.kv_cache_bytes(given, tokens=16)
    d = solve_given({**given, "latent": 24})
    assert d["kv_cache"] == 6_912
    assert d["kv_cache.latent"] == 17_280
    assert d["kv_cache.window"] == 23_040


def test_lora_parameters_by_hand_and_as_modules() -> None:
    # GPT-2 small, r = 8 on W_Q and W_V: 12 layers · 2 · 8 · (768 + 768) = 294,912
    assert solve_file("gpt2-small-accounting.toml")["lora.parameters"] == 294_912
    given = {**SMALL[0], "lora_rank": 4, "lora_targets": ["W_K", "W_O", "W_3"]}
    c = oracle.config(given)
    blk = oracle.model(given).blocks[0]
    adapters = 0
    for lin in (blk.k, blk.o, blk.w3):  # A: fan_in → r, B: r → fan_out
        adapters += nn.Linear(lin.in_features, 4, bias=False, device="meta").weight.numel()
        adapters += nn.Linear(4, lin.out_features, bias=False, device="meta").weight.numel()
    assert solve_given(given)["lora.parameters"] == c["layers"] * adapters


# ------------------------------------------------------------------ the views


def test_json_gives_exact_integers_and_the_views_separators() -> None:
    d = solve_file("llama2-7b-accounting.toml")
    data = d.to_json()
    values = {s["id"]: s["value"] for s in data["steps"]}
    assert values["parameters"] == 6_738_415_616 and isinstance(values["parameters"], int)
    assert all(isinstance(v, int) for v in values.values())
    text = d.to_text()
    assert "6,738,415,616" in text
    assert "e+" not in text  # never scientific notation, however large
    md = d.to_markdown()
    # Markdown writes mathematics in TeX, where a comma between digits is {,} (no space after it)
    assert "6{,}738{,}415{,}616" in md and "188{,}763{,}812{,}659{,}200" in md


@pytest.mark.parametrize(
    "name",
    ["gpt2-small-accounting.toml", "llama2-7b-accounting.toml", "gqa-kv-cache.toml", "mistral-window-cache.toml"],
)
def test_the_text_view_fits_80_columns(name: str) -> None:
    import io

    from rich.console import Console

    from attncalc.render.text import TextRenderer

    buf = io.StringIO()
    TextRenderer(solve_file(name)).print(Console(width=80, color_system=None, file=buf))
    lines = buf.getvalue().splitlines()
    assert max(len(x) for x in lines) <= 80
    assert any(
        "8,030,261,248" in x or "124,439,808" in x or "6,738,415,616" in x or "7,241,732,096" in x for x in lines
    )


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"kv_heads": 5}, "given.kv_heads", "divisor of heads = 12"),
        ({"kv_heads": 24}, "given.kv_heads", "divisor"),
        ({"heads": 7}, "given.d_head", "not a multiple of heads = 7"),
        ({"tokens": 2048}, "given.tokens", "learned position table holds context = 1024"),
        ({"lora_targets": ["W_Q"]}, "given.lora_targets", "needs lora_rank"),
        ({"lora_rank": 4, "lora_targets": ["W_3"]}, "given.lora_targets", "gelu FFN has two matrices"),
        ({"batch": 10**15 + 1}, "given.batch", ""),
        ({"tokens": 10**15 + 1, "positions": "rope"}, "given.tokens", ""),
        ({"training_tokens": 0}, "given.training_tokens", ""),
        ({"mixed_precision": True}, "given.mixed_precision", 'dtype = "fp32"'),
        ({"zero": 2, "dtype": "bf16"}, "given.zero", "give devices"),
        ({"zero": 4, "devices": 8}, "given.zero", ""),
        ({"devices": 0}, "given.devices", ""),
        ({"ffn": "glu"}, "given.ffn", ""),
        ({"layers": 0}, "given.layers", ""),
        ({"bias": "yes"}, "given.bias", ""),
    ],
)
def test_bad_configurations_are_refused_naming_the_key(change: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        parse_problem({"kind": "accounting", "given": {**GPT2, **change}}, "bad.toml")
    assert e.value.key == key and words in str(e.value)


def test_a_missing_size_is_named() -> None:
    given = {k: v for k, v in GPT2.items() if k != "d_model"}
    with pytest.raises(ProblemError) as e:
        parse_problem({"kind": "accounting", "given": given}, "bad.toml")
    assert e.value.key == "given.d_model"


def test_a_d_ff_default_is_four_d_model() -> None:
    given = {k: v for k, v in GPT2.items() if k != "d_ff"}
    assert solve_given(given)["layer.ffn"] == 2 * 768 * 3072 + 3072 + 768
    assert math.prod((2, 768, 3072)) + 3840 == 4_722_432


def test_settings_decimals_are_the_gib_places() -> None:
    """GPT-2 small's AdamW training memory: 1,991,036,928 bytes = 486,093/262,144 GiB = 1.8542976379… GiB (486,093 / 262,144 by long division)."""
    assert Fraction(1_991_036_928, 2**30) == Fraction(486_093, 262_144)
    for decimals, shown in ((0, "2"), (1, "1.9"), (5, "1.85430")):
        raw = {"kind": "accounting", "given": GPT2, "settings": {"decimals": decimals}}
        d = solve_raw(raw)
        step = next(s for s in d.to_json()["steps"] if s["id"] == "memory.training")
        assert step["value"] == 1_991_036_928 and step["gib"]["decimal"] == shown
        assert f"≈ {shown} GiB" in d.to_text()
    # a setting other kinds take is refused, naming the kinds that take it
    with pytest.raises(ProblemError) as e:
        parse_problem({"kind": "accounting", "given": GPT2, "settings": {"temperature": 2}}, "t.toml")
    assert e.value.key == "settings.temperature"


def test_sheets_say_counts_are_whole_numbers() -> None:
    from attncalc.render.writers import render

    d = solve_file("gpt2-small-accounting.toml")
    question = render([d], "markdown", "question")
    assert "Give every value as a whole number, to the unit." in question and "decimals." not in question
    answers = render([d], "markdown", "answers")
    assert "| parameters | Parameters | 124,439,808 |" in answers
    assert (
        "| memory.parameters | Parameter memory | 497,759,232 (486,093/1,048,576 GiB ≈ 0.464 GiB ≈ 474.700 MiB) |"
        in answers
    )  # 497,759,232 / 2^20 = 474.7002
    assert "rounded to 3 decimals" not in d.to_text()


def test_cs336_gpt2_xl_as_the_assignment_counts_it() -> None:
    """CS336 assignment 1 (transformer_accounting), GPT-2 XL on the assignment's architecture: 2,127,057,600
    parameters (8,508,230,400 bytes in fp32) and 4,513,336,524,800 FLOPs for a forward pass over 1,024
    tokens, the figures worked solutions of the assignment give; and the same from torch.nn modules."""
    d = solve_file("cs336-gpt2-xl-accounting.toml")
    assert d["memory.parameters"] == 8_508_230_400
    assert d["flops.forward"] == 4_513_336_524_800
    given = {
        "vocab": 50257, "context": 1024, "d_model": 1600, "layers": 48, "heads": 25, "d_ff": 6400,
        "ffn": "swiglu", "norm": "rms", "bias": False, "positions": "rope", "tie_embeddings": False,
    }  # fmt: skip
    assert oracle.parameters(given) == 2_127_057_600
    assert oracle.forward_flops(given) == 4_513_336_524_800


def test_the_list_summary_names_what_the_kind_works(cli: Any) -> None:
    """`attncalc list` says what accounting works beyond parameters, FLOPs, memory and the KV cache: the
    training budget 6·N·D, mixed precision, ZeRO and a stated N."""
    import json

    result = cli("list", "--format", "json")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)["kinds"]["accounting"]
    for part in ("6·N·D", "mixed precision", "ZeRO", "stated N", "KV cache"):
        assert part in summary, (part, summary)
