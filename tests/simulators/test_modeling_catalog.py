"""Catalog values against the published config.json / datasheet figures, and parameter counts."""

import pytest

from apps.simulators.modeling import (
    DTYPE_BYTES,
    ModelInputError,
    count_params,
    dtype_bytes,
    load_catalog,
    load_gpus,
    load_models,
)

MODELS = load_models()
GPUS = load_gpus()



# (slug, num_layers, hidden, heads, kv_heads, head_dim, intermediate, vocab) from each config.json
PUBLISHED_CONFIGS = [
    ("llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 128256),
    ("llama-3.1-70b", 80, 8192, 64, 8, 128, 28672, 128256),
    ("llama-3.1-405b", 126, 16384, 128, 8, 128, 53248, 128256),
    ("llama-2-7b", 32, 4096, 32, 32, 128, 11008, 32000),
    ("mistral-7b", 32, 4096, 32, 8, 128, 14336, 32000),
    ("mixtral-8x7b", 32, 4096, 32, 8, 128, 14336, 32000),
    ("qwen2.5-7b", 28, 3584, 28, 4, 128, 18944, 152064),
    ("qwen2.5-72b", 80, 8192, 64, 8, 128, 29568, 152064),
    ("qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936),
    ("gemma-2-9b", 42, 3584, 16, 8, 256, 14336, 256000),
    ("deepseek-v3", 61, 7168, 128, 128, 192, 18432, 129280),
    ("gpt-oss-120b", 36, 2880, 64, 8, 64, 2880, 201088),
    ("opt-13b", 40, 5120, 40, 40, 128, 20480, 50272),  # ffn_dim 20480; MHA, so num_kv_heads = heads
    ("qwen3-8b", 36, 4096, 32, 8, 128, 12288, 151936),  # Qwen/Qwen3-8B config.json (head_dim given: 128)
    ("llama-2-70b", 80, 8192, 64, 8, 128, 28672, 32000),  # meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)
]


def test_catalog_has_exactly_the_required_slugs():
    assert set(MODELS) == {row[0] for row in PUBLISHED_CONFIGS}
    assert set(GPUS) == {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "l40s",
                         "rtx-4090", "mi300x", "h100-nvl"}


@pytest.mark.parametrize("slug,layers,hidden,heads,kv,head_dim,ffn,vocab", PUBLISHED_CONFIGS)
def test_model_matches_published_config(slug, layers, hidden, heads, kv, head_dim, ffn, vocab):
    m = MODELS[slug]
    assert (m.num_layers, m.hidden_size, m.num_attention_heads, m.num_kv_heads, m.head_dim,
            m.intermediate_size, m.vocab_size) == (layers, hidden, heads, kv, head_dim, ffn, vocab)


def test_architecture_specific_fields():
    ds = MODELS["deepseek-v3"]
    assert (ds.attention, ds.kv_lora_rank, ds.q_lora_rank, ds.qk_rope_head_dim, ds.qk_nope_head_dim,
            ds.v_head_dim) == ("mla", 512, 1536, 64, 128, 128)
    assert (ds.num_experts, ds.num_shared_experts, ds.experts_per_token, ds.first_k_dense_replace,
            ds.moe_intermediate_size, ds.max_position_embeddings) == (256, 1, 8, 3, 2048, 163840)
    oss = MODELS["gpt-oss-120b"]
    assert (oss.num_experts, oss.experts_per_token, oss.sliding_window, oss.num_sliding_layers) == (128, 4, 128, 18)
    assert (MODELS["mixtral-8x7b"].num_experts, MODELS["mixtral-8x7b"].experts_per_token) == (8, 2)
    assert (MODELS["mistral-7b"].sliding_window, MODELS["mistral-7b"].num_sliding_layers) == (4096, 32)
    assert (MODELS["gemma-2-9b"].sliding_window, MODELS["gemma-2-9b"].num_sliding_layers) == (4096, 21)
    assert MODELS["gemma-2-9b"].tie_word_embeddings and not MODELS["llama-3.1-8b"].tie_word_embeddings
    assert MODELS["llama-2-7b"].attention == "mha" and MODELS["qwen3-32b"].max_position_embeddings == 40960


@pytest.mark.parametrize("slug", sorted(MODELS))
def test_parameter_count_reproduces_published_total_within_one_percent(slug):
    m = MODELS[slug]
    assert count_params(m).total == pytest.approx(m.total_params, rel=0.01)


@pytest.mark.parametrize("slug", ["mixtral-8x7b", "deepseek-v3", "gpt-oss-120b"])
def test_moe_active_parameters_match_published_within_two_percent(slug):
    m = MODELS[slug]
    assert count_params(m).active == pytest.approx(m.active_params, rel=0.02)


def test_opt_13b_config_fields():
    # facebook/opt-13b config.json: max_position_embeddings 2048, activation_function relu (fc1/fc2, no gate),
    # enable_bias (default true), word_embed_proj_dim = hidden_size (no projection), tied LM head;
    # OPTLearnedPositionalEmbedding(max_position_embeddings + offset 2) = 2050 rows
    opt = MODELS["opt-13b"]
    assert (opt.max_position_embeddings, opt.mlp, opt.bias, opt.learned_position_embeddings,
            opt.tie_word_embeddings, opt.attention) == (2048, "plain", True, 2050, True, "mha")
    assert (MODELS["llama-3.1-8b"].mlp, MODELS["llama-3.1-8b"].bias) == ("gated", False)


def test_opt_13b_parameter_count_by_hand():
    # h = 5120, F = 20480, V = 50272, L = 40
    # token embedding V·h = 50,272 · 5,120 = 257,392,640 (tied: the LM head adds nothing)
    # learned positions 2,050 · 5,120 = 10,496,000
    # per layer: q, k, v, out 4·h² = 104,857,600 + 4 biases of h = 20,480 → 104,878,080
    #            fc1 h·F + fc2 F·h = 209,715,200 + biases F + h = 25,600 → 209,740,800
    #            2 LayerNorms × (γ + β) = 4·h = 20,480
    #            = 314,639,360; × 40 = 12,585,574,400
    # final LayerNorm 2·h = 10,240
    # total = 257,392,640 + 10,496,000 + 12,585,574,400 + 10,240 = 12,853,473,280 ≈ 12.85 B
    # (a gated 3·h·F count without biases or positions would give 12.85 B + 40·h·F = 17.04 B)
    p = count_params(MODELS["opt-13b"])
    assert p.total == 12_853_473_280
    assert round(p.total / 1e9, 2) == 12.85
    assert p.position_embedding == 10_496_000 and p.lm_head == 0
    assert p.dense_mlp == 40 * 209_740_800 and p.attention == 40 * 104_878_080
    assert p.norms == 40 * 20_480 + 10_240
    # biases: 40 · (4h + F + h) + LayerNorm β (half the norms) = 40 · 46,080 + 414,720 = 2,257,920
    assert p.biases == 40 * (4 * 5120 + 20480 + 5120) + (40 * 2 * 5120 + 5120)
    # active: everything multiplied per token; lookups (token embedding, positions) out, the tied LM head in
    assert p.active == p.total - 10_496_000


def test_plain_mlp_counts_two_matrices_and_gated_three():
    from dataclasses import replace

    llama = MODELS["llama-3.1-8b"]
    gated, plain = count_params(llama), count_params(replace(llama, mlp="plain"))
    assert gated.dense_mlp - plain.dense_mlp == 32 * 4096 * 14336  # one h·F matrix per layer fewer
    with pytest.raises(ModelInputError) as exc:
        replace(llama, mlp="swiglu")
    assert exc.value.field == "mlp"


def test_llama_8b_parameter_count_by_hand():
    # embed 128,256·4,096 = 525,336,576 (×2, untied) = 1,050,673,152
    # per layer: attention 2·4096·4096 + 2·4096·1024 = 41,943,040; MLP 3·4096·14336 = 176,160,768
    # 32 layers = 6,979,321,856; norms 32·2·4096 + 4096 = 266,240 → 8,030,261,248
    assert count_params(MODELS["llama-3.1-8b"]).total == 8_030_261_248


def test_deepseek_mla_attention_parameters_by_hand():
    # q_a 7168·1536 + q_b 1536·128·192 + kv_a 7168·576 + kv_b 512·128·256 + o 128·128·7168
    per_layer = 11_010_048 + 37_748_736 + 4_128_768 + 16_777_216 + 117_440_512
    assert count_params(MODELS["deepseek-v3"]).attention == 61 * per_layer


# memory: the total the driver reports to CUDA (vLLM's budget base; each GPU's source says "memory: cuda-reported"
# and where the figure comes from); marketing: the datasheet's rounded figure.
GIB = 2**30


@pytest.mark.parametrize("slug,memory,marketing,bandwidth,bf16,fp8", [
    ("a100-40gb", round(39.50 * GIB), 40e9, 1.555e12, 312e12, None),        # vLLM log 39.50 GiB
    ("a100-80gb", round(79.15 * GIB), 80e9, 2.039e12, 312e12, None),       # vLLM log 79.15 GiB
    ("h100-sxm", round(79.14 * GIB), 80e9, 3.35e12, 989.4e12, 1978.9e12),  # vLLM log 79.14 GiB
    ("h100-pcie", round(79.14 * GIB), 80e9, 2.0e12, 756.5e12, 1513e12),   # datasheet: 1,513 BF16 sparse / 2
    ("h200", round(139.81 * GIB), 141e9, 4.8e12, 989.4e12, 1978.9e12),     # vLLM log 139.81 GiB
    ("b200", round(178.35 * GIB), 180e9, 7.7e12, 2250e12, 4500e12),        # CUDA totalGlobalMem 178.35 GiB
    ("l40s", round(44.31 * GIB), 48e9, 864e9, 362.05e12, 733e12),          # vLLM log 44.31 GiB
    ("rtx-4090", round(23.64 * GIB), 24e9, 1.008e12, 165.2e12, 330.3e12),  # PyTorch total capacity 23.64 GiB
    ("mi300x", 206_141_652_992, 192e9, 5.3e12, 1307.4e12, 2614.9e12),      # rocm-smi bytes
])
def test_gpu_matches_datasheet_dense_figures(slug, memory, marketing, bandwidth, bf16, fp8):
    g = GPUS[slug]
    assert (g.memory_bytes, g.marketing_memory_bytes, g.hbm_bandwidth_bytes_per_s, g.bf16_dense_flops,
            g.fp8_dense_flops) == (memory, marketing, bandwidth, bf16, fp8)
    assert g.memory_bytes > g.marketing_memory_bytes or slug == "l40s"  # L40S: 44.31 GiB = 47.58e9 < "48 GB"
    assert g.price_per_hour_usd > 0 and g.price_note


def test_a100_without_fp8_falls_back_to_bf16_math():
    assert GPUS["a100-80gb"].peak_flops("fp8") == 312e12
    assert GPUS["h100-sxm"].peak_flops("fp8") == 1978.9e12
    assert GPUS["h100-sxm"].peak_flops("int4") == 989.4e12


@pytest.mark.parametrize("dtype,size", [("fp32", 4), ("bf16", 2), ("fp16", 2), ("fp8", 1), ("int8", 1),
                                        ("int4", 0.5), ("mxfp4", 0.53125)])
def test_dtype_bytes(dtype, size):
    # MXFP4: 32 four-bit elements + one 8-bit scale = 136 bits / 32 = 4.25 bits = 0.53125 B
    assert dtype_bytes(dtype) == size == DTYPE_BYTES[dtype]


def test_unknown_dtype_names_the_field():
    with pytest.raises(ModelInputError) as err:
        dtype_bytes("fp6", "kv_dtype")
    assert err.value.field == "kv_dtype"


def test_load_catalog_rejects_unknown_fields(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("- slug: x\n  name: X\n  bogus: 1\n")
    with pytest.raises(ModelInputError):
        load_catalog(path)
