"""KV-cache sizes derived by hand for every catalog model, dtype, sliding window and TP."""

import pytest

from apps.simulators.modeling import ModelInputError, kv_bytes_per_sequence, kv_cache, load_models

MODELS = load_models()



# BF16 bytes per token, all layers, TP = 1:
BF16_PER_TOKEN = {
    "llama-3.1-8b": 131_072,    # 2 · 32 layers · 8 KV heads · 128 · 2 B
    "llama-3.1-70b": 327_680,   # 2 · 80 · 8 · 128 · 2
    "llama-3.1-405b": 516_096,  # 2 · 126 · 8 · 128 · 2
    "llama-2-7b": 524_288,      # 2 · 32 · 32 · 128 · 2 (MHA) = 512 KiB
    "mistral-7b": 131_072,      # 2 · 32 · 8 · 128 · 2
    "mixtral-8x7b": 131_072,    # 2 · 32 · 8 · 128 · 2 (experts do not change KV)
    "qwen2.5-7b": 57_344,       # 2 · 28 · 4 · 128 · 2
    "qwen2.5-72b": 327_680,     # 2 · 80 · 8 · 128 · 2
    "qwen3-32b": 262_144,       # 2 · 64 · 8 · 128 · 2 (head_dim 128, not 5120/64 = 80)
    "gemma-2-9b": 344_064,      # 2 · 42 · 8 · 256 · 2
    "deepseek-v3": 70_272,      # MLA: 61 · (512 + 64) · 2
    "gpt-oss-120b": 73_728,     # 2 · 36 · 8 · 64 · 2
}
# Other dtypes scale by bytes per element / 2: fp32 ×2, fp8 ×½, int4 ×¼, mxfp4 ×0.265625.
DTYPE_SCALE = {"fp32": 2.0, "fp16": 1.0, "fp8": 0.5, "int8": 0.5, "int4": 0.25, "mxfp4": 0.265625}


@pytest.mark.parametrize("slug", sorted(BF16_PER_TOKEN))
def test_bf16_bytes_per_token(slug):
    assert kv_cache(MODELS[slug], context_tokens=1).bytes_per_token == BF16_PER_TOKEN[slug]


@pytest.mark.parametrize("dtype", sorted(DTYPE_SCALE))
@pytest.mark.parametrize("slug", sorted(BF16_PER_TOKEN))
def test_every_dtype_scales_the_bf16_value(slug, dtype):
    got = kv_cache(MODELS[slug], context_tokens=1, kv_dtype=dtype).bytes_per_token
    assert got == BF16_PER_TOKEN[slug] * DTYPE_SCALE[dtype]


def test_deepseek_fp8_is_35136_bytes():
    # 61 · 576 · 1 B
    assert kv_cache(MODELS["deepseek-v3"], context_tokens=1, kv_dtype="fp8").bytes_per_token == 35_136


def test_mla_is_not_sharded_by_tp():
    r = kv_cache(MODELS["deepseek-v3"], context_tokens=1000, tp=8)
    assert r.bytes_per_token_per_gpu == 70_272 and not r.sharded_by_tp
    assert r.total_bytes_all_gpus == 8 * 70_272_000


def test_gqa_shards_heads_and_never_goes_below_one():
    m = MODELS["llama-3.1-70b"]
    # TP 4: ceil(8/4) = 2 heads → 2 · 80 · 2 · 128 · 2 = 81,920; TP 8 → 1 head = 40,960; TP 16 still 1 head
    assert kv_cache(m, context_tokens=1, tp=4).bytes_per_token_per_gpu == 81_920
    assert kv_cache(m, context_tokens=1, tp=8).bytes_per_token_per_gpu == 40_960
    assert kv_cache(m, context_tokens=1, tp=16).bytes_per_token_per_gpu == 40_960
    # Qwen2.5-7B has 4 KV heads; TP 8 replicates: ceil(4/8) = 1 → 2 · 28 · 1 · 128 · 2 = 14,336
    assert kv_cache(MODELS["qwen2.5-7b"], context_tokens=1, tp=8).bytes_per_token_per_gpu == 14_336


def test_mistral_sliding_window_caps_every_layer_at_4096_tokens():
    m = MODELS["mistral-7b"]
    # 8,192 tokens: every layer holds min(8192, 4096) = 4096 tokens · 131,072 B = 536,870,912
    assert kv_bytes_per_sequence(m, 8192) == 536_870_912
    assert kv_bytes_per_sequence(m, 2000) == 2000 * 131_072


def test_gemma2_alternating_window():
    # per layer 2 · 8 · 256 · 2 = 8,192 B/token; 21 global layers · 8,192 tokens + 21 local · 4,096
    assert kv_bytes_per_sequence(MODELS["gemma-2-9b"], 8192) == 8192 * (21 * 8192 + 21 * 4096)


def test_gpt_oss_alternating_128_token_window():
    # per layer 2 · 8 · 64 · 2 = 2,048 B/token; 18 full layers · 10,000 + 18 sliding · 128
    assert kv_bytes_per_sequence(MODELS["gpt-oss-120b"], 10_000) == 2048 * (18 * 10_000 + 18 * 128)


def test_batch_multiplies_and_vectorizes():
    r = kv_cache(MODELS["llama-3.1-8b"], context_tokens=[1000, 2000], batch=4)
    assert list(r.total_bytes_per_gpu) == [4 * 1000 * 131_072, 4 * 2000 * 131_072]
    assert "131,072 B/token" in r.derivation


@pytest.mark.parametrize("field,kwargs", [
    ("context_tokens", {"context_tokens": 0}),
    ("context_tokens", {"context_tokens": 10_000_001}),
    ("context_tokens", {"context_tokens": float("nan")}),
    ("batch", {"context_tokens": 10, "batch": 1_000_001}),
    ("kv_dtype", {"context_tokens": 10, "kv_dtype": "fp4x"}),
    ("tp", {"context_tokens": 10, "tp": 0}),
])
def test_bad_input_names_the_field(field, kwargs):
    with pytest.raises(ModelInputError) as err:
        kv_cache(MODELS["llama-3.1-8b"], **kwargs)
    assert err.value.field == field
