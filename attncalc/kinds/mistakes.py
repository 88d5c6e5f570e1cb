"""The named slips ``check`` can say, each in the words a note uses: what the student did.

A slip is named only when recomputing the step with it gives the student's answer (attncalc.derivation.arith's
``Chain`` applies the slips of its kind; attncalc.check.slips tries them). Kept apart from the
arithmetic so that the table grows by kind without growing the chain: each kind appends its own block.
"""

from __future__ import annotations

MISTAKES: dict[str, str] = {
    "no_scale": "the 1/√d_k scale was left out",
    # before dk_not_sqrt: with d_k = 2 and d_model = 4 the two slips give the same numbers
    "sqrt_d_model": "the scores were divided by √d_model instead of √d_k, the width of one head",
    "dk_not_sqrt": "the scores were divided by d_k instead of √d_k",
    "softmax_wrong_axis": "the softmax was taken down each column instead of along each row",
    "qk_transposed": "the scores were computed as K Qᵀ instead of Q Kᵀ (the score matrix is transposed)",
    "w_transposed": "Wᵀ was used instead of W: the row and column conventions were mixed up",
    "not_normalised": "the exponentials were not divided by their sum",
    "no_tanh": "tanh was left out",
    "keys_not_values": "the weights were applied to the keys instead of the values",
    "concat_swapped": "the two halves of the concatenation were swapped",
    "sgd_for_adam": "a plain SGD step (θ − lr·g) was taken where Adam was asked for",
    # the recurrent cells (and seq2seq): check's note says them with the problem's own symbols
    "sigmoid_for_tanh": "σ was used where the candidate needs tanh (c̃ and h̃ are squashed into (−1, 1) by tanh)",
    "tanh_for_sigmoid": "tanh was used for a gate, which needs σ (a gate lies in (0, 1))",
    "hx_swapped": "[x_t; h_(t−1)] was used for [h_(t−1); x_t]: the weights' first columns belong to h",
    "xh_swapped": "[h_(t−1); x_t] was used for [x_t; h_(t−1)]: in this problem's order the weights' first columns belong to x",
    "no_bias": "the bias was left out of the pre-activation",
    "forget_not_applied": "the forget gate was not applied: c_t = c_(t−1) + i_t ⊙ c̃_t instead of f_t ⊙ c_(t−1) + i_t ⊙ c̃_t",
    "no_tanh_c": "h_t = o_t ⊙ c_t was used instead of o_t ⊙ tanh(c_t)",
    "gru_update_swapped": "the update gate was used the other way round (z and 1 − z swapped)",
    "reset_swapped": "the reset gate was applied at the other place (before the product instead of after, or after instead of before)",
    "bahdanau_current_state": "the attention was scored with s_t (the cell run first, on [y_(t−1); c_(t−1)]) instead of s_(t−1)",
    "luong_logits_from_h": "the logits were computed from h_t instead of the attentional state h̃_t = tanh(W_att [c_t; h_t])",
    "wrong_vocab_row": "the probability (and the one-hot row) of another vocabulary entry was used instead of the target's",
    "norm_squared": "the square root was left out: ‖a‖² = Σ a_k² was used as the length ‖a‖",
    "cosine_one_norm": "the dot product was divided by ‖a_i‖ only, not by ‖a_i‖ ‖b_j‖",
    "distance_squared": "the square root was left out: the squared distance Σ (a_k − b_k)² was given",
    "one_head": "the heads were not split: one big head over all d_model columns",
    "heads_reversed": "the heads were concatenated in the wrong order",
    "no_W_O": "W_O was left out: the output is the concatenation itself",
    "mask_after_softmax": "the mask was applied after the softmax (masked weights set to 0, rows not renormalised)",
    "sin_cos_swapped": "sin and cos were swapped: cos in the even columns, sin in the odd ones",
    "freq_no_two": "the frequency used 10000^(i/d) instead of 10000^(2i/d)",
    "rope_reversed": "the rotation went the wrong way (by −θ instead of θ)",
    # kind bleu
    "bleu_no_bp": "the brevity penalty was left out: BLEU = exp(Σ w_n ln p_n) for a candidate shorter than r",
    # kind transformer-layer
    "unbiased_variance": "LayerNorm's variance was divided by d_model − 1 (the unbiased variance) instead of d_model",
    "norm_wrong_axis": "LayerNorm's mean and variance were taken down each column (over the tokens) instead of along each row",
    "residual_left_out": "the residual was left out: the sublayer's output alone went into the norm, not x + sublayer(x)",
    "norm_swapped": "the norms were placed the other way: pre-norm (LayerNorm before each sublayer) and post-norm swapped",
    "relu_for_gelu": "ReLU was used where the feed-forward network asks for GELU",
    # kind decode
    "top_p_early": "the top-p cut came one token early: the token whose probability reaches p was dropped",
    "top_p_late": "the top-p cut came one token late: a token was kept after the running sum had reached p",
    "beam_multiplied": "the beam score was multiplied by the log-probability; log-probabilities add (s_b + log p)",
    "bleu_no_clip": "the n-gram counts were not clipped: a candidate n-gram found in a reference counted every time it occurs",
    # kind bpe
    "bpe_unweighted": "each distinct word's pairs were counted once, not weighted by how often the word occurs",
    "bpe_across_words": "pairs were counted across words too: the last symbol of a word with the first of the next",
    "bpe_tie_other": "the other tie rule was used for pairs with equal counts",
    "bpe_greedy_longest": "the word was cut greedily, the longest known token first (WordPiece's way), instead of "
    "applying the merges in the order learned",
    # issue 30, [training] (every kind with it): AdamW and clipping
    "adam_l2": "the weight decay went through the gradient (g + λθ before the Adam step: Adam with an L2 penalty), "
    "not decoupled as AdamW does it (θ − lr·λ·θ, then the Adam step)",
    "decay_no_lr": "the weight decay was not multiplied by the learning rate: λ·θ instead of lr·λ·θ",
    "clip_each": "each gradient was clipped by its own norm instead of by the norm of all of them together",
    "clip_weights_only": "the biases' gradients were left out of the norm: clipping takes the norm of every "
    "gradient updated, the biases' too",
    # kind lr-schedule
    "warmup_exponent": "the warmup term was t · warmup^(−0.5) instead of t · warmup^(−1.5)",
    "step_from_zero": "the step was counted from 0: the rate of step t − 1 was given for step t",
    # kind softmax, label smoothing
    "smoothing_k_minus_1": "the smoothing gave the target 1 − ε and the other classes ε/(K − 1) (the Annotated "
    "Transformer's convention) instead of (1 − ε)·y + ε/K (PyTorch's)",
    # kind sequence
    "perplexity_base_2": "the perplexity was taken in base 2, 2^(mean loss), but the loss is in nats: exp(mean loss)",
    "mean_of_perplexities": "the per-step perplexities 1/p_t were averaged instead of taking exp of the mean loss",
    # kind accounting
    "tied_counted_twice": "the tied LM head was counted as a matrix of its own: tied, it is the token embedding, counted once",
    "lm_head_left_out": "the LM head was left out: untied, it is a V × d_model matrix of its own",
    "biases_forgotten": "the biases were left out of the blocks' linear layers",
    "norms_forgotten": "the norms' parameters (γ, and β for LayerNorm) were left out",
    "swiglu_4d_ff": "d_ff = 4·d_model was used, but this SwiGLU FFN's d_ff is given otherwise",
    "flops_no_two": "the factor 2 of 2·m·n·p was left out: a multiply and an add are two FLOPs",
    "heads_for_kv_heads": "the query heads H were used for the key/value heads H_kv in the cache",
    "kv_not_doubled": "the cache was not doubled for K and V: every cached token keeps a key and a value",
    "wrong_dtype_bytes": "the bytes per number of the other dtype were used (fp32 is 4 bytes a number, bf16 and fp16 2)",
    "master_forgotten": "the fp32 master copy of the weights was left out: mixed-precision training keeps one, "
    "4 bytes a parameter (16 bytes a parameter with AdamW, not 12)",
    "training_forward_only": "the backward pass was left out: 2·N·D counts the forward pass only (2 FLOPs a parameter "
    "a token); training takes 6·N·D, the backward pass 4 more (3·F_fwd for the forward count)",
    "zero_stage_confused": "another ZeRO stage's formula was used (stage 1 partitions the optimizer states, stage 2 "
    "the gradients too, stage 3 the parameters too)",
    "gib_for_gb": "GiB and GB were confused: a number of one unit was written with the other's name "
    "(1 GiB = 2^30 bytes, 1 GB = 10^9 bytes)",
    # kind attention-backward
    "jacobian_diagonal_only": "the softmax Jacobian's off-diagonal terms were dropped: dS' = A ∘ dA instead of A ∘ (dA − D)",
    "grad_V_no_transpose": "the values' gradient was taken as A dO instead of Aᵀ dO (the weights not transposed)",
    "grad_K_no_transpose": "the keys' gradient was taken as dS Q instead of dSᵀ Q (the score gradient not transposed)",
    "grad_no_scale": "the 1/√d_k was left out of the backward pass: dS = dS' instead of dS' / √d_k",
    "grad_scale_twice": "the 1/√d_k was applied twice on the way back: dS' / d_k instead of dS' / √d_k",
    "grad_X_query_path_only": "dX was taken from the query path only (dQ W_Qᵀ); X also makes the keys and the values, and their paths add",
    "masked_given_gradient": "the masked entries were given gradient (dA passed back through the mask) where they get 0",
    # kind online-softmax
    "online_sum_not_rescaled": "the old sum was not rescaled: l_b = l_(b−1) + Σ P_b instead of l_(b−1) · exp(m_(b−1) − m_b) + Σ P_b",
    "online_output_not_rescaled": "the old output was not rescaled: O_b = O_(b−1) + P_b V_b instead of O_(b−1) · exp(m_(b−1) − m_b) + P_b V_b",
    "online_rescale_flipped": "the rescale was exp(m_b − m_(b−1)), the sign flipped: it must be exp(m_(b−1) − m_b), at most 1",
    "logsumexp_no_max": "the maximum was left out of the logsumexp: L = ln l instead of m + ln l",
    "online_output_not_divided": "the running output was not divided by the sum l at the end: O = O_last instead of O_last / l",
    # kind contrastive (its wrong axis is softmax_wrong_axis: the softmax down each column for a row's)
    "contrastive_no_temperature": "the temperature was left out: the logits were the similarities S, not S / τ",
    "contrastive_temperature_multiplied": "the similarities were multiplied by the temperature (S · τ) instead of divided (S / τ)",
    "contrastive_rows_not_normalised": "the rows were not normalised: q_i (or k_j) was used where q_i / ‖q_i‖ is asked",
    "contrastive_sum_for_mean": "the losses were summed where their mean is asked (divide the sum by N, or by 2 for the two directions)",
    # kind moe
    "moe_softmax_over_tokens": "the router's softmax was taken down each expert's column (over the tokens) instead of along each token's row",
    "moe_gates_not_renormalised": "the gates were the chosen probabilities themselves: renormalize divides them by their sum (Mixtral)",
    "moe_gates_renormalised": "the gates were divided by their sum: with renormalize = false (Switch) the gate is the probability itself",
    "moe_loss_without_e": "the load-balancing loss was left without the factor E: aux_coef · Σ f_e P_e instead of aux_coef · E · Σ f_e P_e",
    "moe_fraction_from_probabilities": "the mean probability was used for the fraction: f_e counts the choices of expert e over n, P_e is the mean probability",
    # the modern layer (issue 30): RMSNorm, SwiGLU, sliding windows, top-k with top-p
    "rms_mean_subtracted": "RMSNorm was computed as LayerNorm: the mean was subtracted and the variance used for the mean square",
    "rms_eps_outside": "ε was added outside the root: x / (√ms + ε) instead of x / √(ms + ε)",
    "swiglu_swapped": "W_1 and W_3 were swapped: the gate is x W_1 (through SiLU), the up projection x W_3",
    "silu_wrong_branch": "SiLU was applied to the up projection x W_3 instead of the gate x W_1",
    "window_too_wide": "the window was one key too wide: w + 1 keys (i − w ≤ k ≤ i) instead of w (i − w < k ≤ i)",
    "window_too_narrow": "the window was one key too narrow: w − 1 keys (i − w + 1 < k ≤ i) instead of w (i − w < k ≤ i)",
    "top_p_before_top_k": "top-p was applied before top-k: the running sum over the whole distribution, not over the top k renormalised",
    # kind quantization (issue 40)
    "absmax_power_of_two": "the absmax scale divided by 2^(b−1) instead of 2^(b−1) − 1: the grid is symmetric, "
    "[−(2^(b−1) − 1), 2^(b−1) − 1]",
    "zero_point_sign": "the zero point's sign was flipped: round(min / s) instead of round(−min / s)",
    "no_clamp": "the clamp to the integer range was forgotten",
    "per_tensor_for_row": "one scale was taken for the whole tensor where one per row (or group) was asked",
    "round_half_away": "halves were rounded away from zero; rounding is half to even (torch.round): 2.5 → 2, 3.5 → 4",
    # kind dpo (issue 40)
    "dpo_beta_left_out": "β was left out: log σ(h) instead of log σ(β h) (and the rewards r instead of β · r)",
    "dpo_reference_not_subtracted": "the reference was not subtracted: log π_θ(y) instead of log π_θ(y) − log π_ref(y)",
    "dpo_chosen_rejected_swapped": "chosen and rejected were swapped: h = r_l − r_w instead of r_w − r_l",
    "dpo_sigma_for_log_sigma": "σ was taken for log σ: −σ(β h) instead of −log σ(β h)",
    # kind speculative (issue 40)
    "speculative_ratio_inverted": "the ratio was inverted: q_i(x_i) / p_i(x_i) instead of p_i(x_i) / q_i(x_i)",
    "speculative_residual_not_normalised": "the residual was not normalised: max(0, p − q) was not divided by its sum",
    "speculative_residual_no_max": "the max was left out: p − q (negative entries kept) instead of max(0, p − q), over the same sum",
    "speculative_continued_after_rejection": "the tests went on after a rejection: a later drafted token was accepted, but the run stops at the first rejection",
    "speculative_next_from_target": "the next token was drawn from p_j itself instead of the residual max(0, p_j − q_j) normalised",
    # kind grpo (issue 40)
    "grpo_std_divisor": "the group's std took the other divisor: n (population) for n − 1 (unbiased), or n − 1 for n",
    "grpo_advantages_not_normalised": "the advantages were not normalised: r − mean instead of (r − mean) / (std + eps)",
    "grpo_clip_on_advantage": "the clip was put on the advantage: ρ · clip(A, 1 − ε, 1 + ε) instead of clip(ρ) · A",
    "grpo_max_for_min": "max was taken for min: max(ρ · A, clip(ρ) · A) instead of the pessimistic min",
    "grpo_kl_sign": "β · KL was added with the wrong sign: −(s + β · KL) instead of −(s − β · KL)",
    "grpo_normalization_swapped": "the other normalisation: the mean over all tokens for the mean of the completions' "
    "means (or back)",
}


def every_mistake() -> dict[str, str]:
    """:data:`MISTAKES` and then the slips the registry's kinds declare (``KindEntry.mistakes``: a
    plugin kind's own), in that order; a built-in slip's words are never replaced."""
    from . import declared

    out = dict(MISTAKES)
    for name, words in declared("mistakes").items():
        out.setdefault(name, words)
    return out
