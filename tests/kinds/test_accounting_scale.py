"""Kind accounting at the scale of a training run: counts of any size, the budget 6 · N · D, the fp32
master copy of mixed precision and ZeRO's memory per device, each against an oracle that is not
attncalc's code:

* Hugging Face transformers' LlamaForCausalLM built on the meta device from LLaMA-2-70B's config
  (hidden 8192, intermediate 28672, 80 layers, 64 heads, 8 key/value heads, vocab 32000): its
  ``sum(p.numel())``, 68,976,648,192, and its modules' own counts;
* tests/accounting_oracle.py's torch model for the forward FLOPs (``FlopCounterMode``) and the KV cache
  as tensors;
* published totals: Chinchilla's 6 · N · D = 6 · 70e9 · 1.4e12 = 5.88e23 (Hoffmann et al. 2022) and
  LLaMA-2's 2.0e12 pretraining tokens (Touvron et al. 2023);
* ZeRO's stage formulas written here from Rajbhandari et al. 2020 (section 5.1, Figure 1: Ψ = 7.5B,
  N_d = 64, K = 12 give 120 GB, 31.4 GB, 16.6 GB and 1.9 GB).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS, solve_file, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch: CI does)")
pytest.importorskip("torch.utils.flop_counter")
from .. import accounting_oracle as oracle  # noqa: E402  (it builds the models in torch)

EXAMPLE = "accounting-llama2-70b.toml"
LLAMA2_70B = {
    "vocab": 32000, "context": 4096, "d_model": 8192, "layers": 80, "heads": 64, "kv_heads": 8, "d_ff": 28672,
    "ffn": "swiglu", "norm": "rms", "bias": False, "positions": "rope", "tie_embeddings": False, "tokens": 4096,
    "dtype": "bf16",
}  # fmt: skip
PUBLISHED_70B = 68_976_648_192  # LLaMA-2-70B's parameters (its model card: 70B; config.json's shapes)
TOKENS_70B = 2 * 10**12  # Touvron et al. 2023, Table 1: 2.0T tokens

# Chinchilla's scale: a configuration with exactly N = 70,000,000,000 parameters (by hand: V·d + L·(4·d² +
# 2·d·d_ff + 2·d) + d = 139,859·10,000 + 70·(4·10^8 + 2·10^4·29,000 + 2·10^4) + 10^4 = 1,398,590,000 +
# 68,601,400,000 + 10,000), trained on D = 1.4e12 tokens: 6 · N · D = 5.88e23, Hoffmann et al.'s budget
CHINCHILLA_SCALE = {
    "vocab": 139_859, "context": 2048, "d_model": 10_000, "layers": 70, "heads": 100, "d_ff": 29_000,
    "ffn": "relu", "norm": "rms", "bias": False, "positions": "rope", "tie_embeddings": True,
    "training_tokens": 1_400_000_000_000,
}  # fmt: skip


def llama2_70b_meta() -> Any:
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(
        hidden_size=8192,
        intermediate_size=28672,
        num_hidden_layers=80,
        num_attention_heads=64,
        num_key_value_heads=8,
        vocab_size=32000,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
    )
    with torch.device("meta"):
        return transformers.LlamaForCausalLM(cfg)


def numel(module: Any) -> int:
    return sum(p.numel() for p in module.parameters())


# ------------------------------------------------------------------ the worked example, every number


def test_the_llama2_70b_example_every_number_from_transformers_torch_and_the_papers() -> None:
    m = llama2_70b_meta()
    n = numel(m)
    assert n == PUBLISHED_70B
    block = m.model.layers[0]
    T, d, L, V, H, Hkv, dh, ff = 4096, 8192, 80, 32000, 64, 8, 128, 28672
    fwd = oracle.forward_flops(LLAMA2_70B)  # FlopCounterMode over the torch model's forward pass
    psi, nd, k = n, 64, 12  # ZeRO stage 2 (Rajbhandari et al. 2020): 2Ψ + (2 + K)Ψ / N_d
    assert psi % nd == 0
    expected = {
        "embedding": numel(m.model.embed_tokens),
        "positions": 0,  # RoPE
        "layer.attention": numel(block.self_attn),
        "layer.ffn": numel(block.mlp),
        "layer.norms": numel(block.input_layernorm) + numel(block.post_attention_layernorm),
        "layer": numel(block),
        "layers": numel(m.model.layers),
        "final_norm": numel(m.model.norm),
        "lm_head": numel(m.lm_head),
        "parameters": n,
        "non_embedding": n - numel(m.model.embed_tokens),
        # Kaplan et al.'s 2·m·n·p for each product, over T tokens
        "flops.attention": 2 * T * d * (H * dh) + 2 * 2 * T * d * (Hkv * dh) + 2 * T * (H * dh) * d,
        "flops.scores": H * 2 * T * dh * T,
        "flops.weighted_sum": H * 2 * T * T * dh,
        "flops.ffn": 3 * 2 * T * d * ff,
        "flops.lm_head": 2 * T * d * V,
        "flops.forward": fwd,
        "flops.training": 3 * fwd,
        "flops.rule": 6 * n * T,
        "flops.difference": 3 * fwd - 6 * n * T,
        "flops.training_total": 6 * n * TOKENS_70B,
        "flops.training_from_forward": 3 * fwd * TOKENS_70B // T,
        "memory.parameters": 2 * n,  # bf16
        "memory.gradients": 2 * n,
        "memory.master": 4 * n,  # the fp32 copy
        "memory.optimizer": 8 * n,  # AdamW's two fp32 moments
        "memory.training": 16 * n,  # 16 bytes a parameter, as ZeRO counts mixed-precision Adam
        "memory.per_device": 2 * psi + (2 + k) * psi // nd,
        "kv_cache": oracle.kv_cache_bytes(LLAMA2_70B),
        "kv_cache.mha": oracle.kv_cache_bytes(LLAMA2_70B, kv_heads=H),
        "kv_cache.gqa": oracle.kv_cache_bytes(LLAMA2_70B),
        "kv_cache.mqa": oracle.kv_cache_bytes(LLAMA2_70B, kv_heads=1),
    }
    assert 3 * fwd * TOKENS_70B % T == 0
    per_block = sum(expected[f"flops.{k}"] for k in ("attention", "scores", "weighted_sum", "ffn"))
    assert fwd == L * per_block + expected["flops.lm_head"]  # the counter's total is the products written out
    d_ = solve_file(EXAMPLE)
    assert set(d_.step_ids) == set(expected)
    for step_id, value in expected.items():
        assert d_[step_id] == value, step_id
        assert isinstance(d_[step_id], int), step_id


def test_the_example_states_what_it_is_built_from() -> None:
    raw = load_problem(Path(PROBLEMS, EXAMPLE)).data
    assert (raw.training_tokens, raw.mixed_precision, raw.devices, raw.zero) == (TOKENS_70B, True, 64, 2)
    assert (raw.vocab, raw.d_model, raw.layers, raw.heads, raw.kv_heads, raw.d_ff, raw.tie) == (
        32000, 8192, 80, 64, 8, 28672, False,
    )  # fmt: skip


# ------------------------------------------------------------------ counts of any size


def test_chinchillas_budget_is_an_exact_integer_in_every_view(cli: Any, tmp_path: Path) -> None:
    given = {k: v for k, v in CHINCHILLA_SCALE.items() if k != "training_tokens"}
    assert oracle.parameters(given) == 70_000_000_000  # the torch model agrees with the sum by hand
    d = solve_raw({"kind": "accounting", "given": CHINCHILLA_SCALE})
    assert d["parameters"] == 70 * 10**9
    budget = 6 * 70 * 10**9 * 1_400_000_000_000
    assert budget == 588 * 10**21  # Hoffmann et al.: 5.88e23
    assert d["flops.training_total"] == budget
    assert "588,000,000,000,000,000,000,000" in d.to_text()
    assert "Exact forms skipped" not in d.to_text()  # (a count is exact whatever its size)
    path = tmp_path / "chinchilla.toml"
    lines = ['kind = "accounting"', 'title = "Chinchilla scale"', "[given]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in CHINCHILLA_SCALE.items()]
    path.write_text("\n".join(lines) + "\n")
    out = cli("solve", str(path), "--format", "json")
    assert out.exit_code == 0, out.output
    steps = {s["id"]: s for s in json.loads(out.stdout)["steps"]}
    assert steps["flops.training_total"]["value"] == budget  # a JSON integer, every digit
    assert isinstance(steps["flops.training_total"]["value"], int)
    assert steps["flops.training_total"]["shown"] == str(budget)


def test_tokens_and_batch_up_to_ten_to_the_fifteen() -> None:
    given = {"vocab": 100, "context": 8, "d_model": 8, "layers": 1, "heads": 2, "positions": "rope"}
    d = solve_raw({"kind": "accounting", "given": {**given, "tokens": 10**15, "batch": 10**15}})
    n = d["parameters"]
    assert d["flops.rule"] == 6 * n * 10**30  # 6 · N · B · T, exactly
    # the cache: 2 · L · H_kv · d_head · T · B · 4 bytes = 2 · 1 · 2 · 4 · 10^30 · 4
    assert d["kv_cache"] == 2 * 1 * 2 * 4 * 10**30 * 4


# ------------------------------------------------------------------ the training run's keys


def test_training_from_forward_is_three_forwards_per_token_times_d() -> None:
    for given in oracle_configs():
        d = solve_raw({"kind": "accounting", "given": {**given, "training_tokens": 10**12}})
        c = oracle.config(given)
        fwd = oracle.forward_flops(given)
        assert d["flops.training_from_forward"] == 3 * fwd * 10**12 // (c["batch"] * c["tokens"])
        assert d["flops.training_total"] == 6 * oracle.parameters(given) * 10**12


def oracle_configs() -> list[dict[str, Any]]:
    return [
        {"vocab": 1000, "context": 64, "d_model": 96, "layers": 3, "heads": 6, "kv_heads": 2, "d_head": 20,
         "d_ff": 200, "ffn": "swiglu", "norm": "layer", "bias": True, "positions": "rope", "tokens": 40, "batch": 3},
        {"vocab": 500, "context": 32, "d_model": 64, "layers": 2, "heads": 4, "kv_heads": 1, "ffn": "relu",
         "norm": "rms", "bias": False, "positions": "learned", "tie_embeddings": False, "tokens": 17},
    ]  # fmt: skip


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_mixed_precision_counts_the_fp32_master_copy(dtype: str) -> None:
    given = {**oracle_configs()[0], "dtype": dtype}
    n = oracle.parameters(given)
    size = oracle.element_bytes(dtype)
    master = torch.empty((), dtype=torch.float32).element_size()
    without = solve_raw({"kind": "accounting", "given": given})
    assert "memory.master" not in without.step_ids
    assert without["memory.training"] == n * (2 * size + 8)  # 12 bytes a parameter
    assert "No fp32 master copy is counted" in without.to_text()
    mixed = solve_raw({"kind": "accounting", "given": {**given, "mixed_precision": True}})
    assert mixed["memory.master"] == n * master
    assert mixed["memory.training"] == n * (2 * size + master + 8) == 16 * n


def zero_bytes(psi: int, nd: int, stage: int, k: int = 12) -> int:
    """Rajbhandari et al. 2020, section 5.1: per device, fp16 parameters 2Ψ, gradients 2Ψ, optimizer
    states KΨ; stage 1 divides the optimizer states by N_d, stage 2 the gradients too, stage 3 the
    parameters too (a partition of ⌈Ψ / N_d⌉ parameters where N_d does not divide Ψ)."""
    part = -(-psi // nd)
    return [
        (2 + 2 + k) * psi,
        2 * psi + 2 * psi + k * part,
        2 * psi + (2 + k) * part,
        (2 + 2 + k) * part,
    ][stage]


def test_zero_reproduces_figure_1_of_the_paper() -> None:
    from attncalc.mechanisms.accounting_training import stage_bytes

    psi, nd = 7_500_000_000, 64  # Figure 1: Ψ = 7.5B, N_d = 64, K = 12
    data = load_problem(Path(PROBLEMS, EXAMPLE)).data  # bf16, 64 devices
    gb = []
    for stage in range(4):
        _formula, _written, value = stage_bytes(data, psi, stage, 12)
        assert value == zero_bytes(psi, nd, stage)
        gb.append(round(value / 10**9, 1))
    assert gb == [120.0, 31.4, 16.6, 1.9]


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
@pytest.mark.parametrize("devices", [64, 7])
def test_memory_per_device_at_every_stage(stage: int, devices: int) -> None:
    d = solve_raw({"kind": "accounting", "given": {**LLAMA2_70B, "mixed_precision": True, "devices": devices,
                                                   "zero": stage}})  # fmt: skip
    assert d["memory.per_device"] == zero_bytes(PUBLISHED_70B, devices, stage)
    # without mixed precision K = 8 (Adam's moments alone)
    d = solve_raw({"kind": "accounting", "given": {**LLAMA2_70B, "devices": devices, "zero": stage}})
    assert d["memory.per_device"] == zero_bytes(PUBLISHED_70B, devices, stage, k=8)


def test_devices_without_zero_is_stage_0() -> None:
    d = solve_raw({"kind": "accounting", "given": {**LLAMA2_70B, "mixed_precision": True, "devices": 8}})
    assert d["memory.per_device"] == 16 * PUBLISHED_70B == d["memory.training"]


def test_keys_of_the_training_run_are_refused_where_they_cannot_apply() -> None:
    from attncalc.errors import ProblemError

    with pytest.raises(ProblemError, match=r"given\.mixed_precision") as e:
        parse_problem({"kind": "accounting", "given": {**LLAMA2_70B, "dtype": "fp32", "mixed_precision": True}}, "p")
    assert 'dtype = "fp32"' in str(e.value)
    with pytest.raises(ProblemError, match=r"given\.zero.*give devices"):
        parse_problem({"kind": "accounting", "given": {**LLAMA2_70B, "zero": 3}}, "p")


# ------------------------------------------------------------------ sizes shown in a unit that shows them


def test_a_per_token_cache_is_also_shown_in_kib() -> None:
    d = solve_raw({"kind": "accounting", "given": {**LLAMA2_70B, "tokens": 1}})
    # 2 · 80 · 8 · 128 · 1 · 2 bytes = 327,680 bytes = 320 KiB
    assert d["kv_cache"] == 327_680
    text = d.to_text()
    assert "= 327,680 bytes" in text and "= 320 KiB" in text
