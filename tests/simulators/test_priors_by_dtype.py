"""Efficiency priors are keyed by GPU family and compute dtype: a fit on NVFP4 rows is not applied to FP8, a
family/dtype without rows borrows a fitted set and the answer says so (priors.basis), and GPU ratios then come from
the GPUs' peaks and bandwidths rather than from a fitted factor."""

import pytest
from api_helpers import load_real_catalog, post

pytestmark = pytest.mark.django_db
# Llama 3.1 8B decode at batch 1, context 2,048 (tests/simulators/test_api_time.py). FP8 quantises the linear layers;
# the embedding table and LM head (128,256 · 4,096 = 525,336,576 parameters each) stay BF16 and the table is a
# lookup: (8,030,261,248 − 2 · 525,336,576) · 1 B + 525,336,576 · 2 B = 8,030,261,248 B a step. Activations
# 2 · 32 · 4,096 · 2 = 524,288 B; KV read 2,048 tokens and write one in FP8: 32 layers · 2 · 8 heads · 128 · 1 B
# = 65,536 B a token · 2,049 = 134,283,264 B.
STEP_WEIGHTS = (8_030_261_248 - 2 * 128256 * 4096) + 128256 * 4096 * 2
FP8_WEIGHTS_AND_ACTS = STEP_WEIGHTS + 2 * 32 * 4096 * 2
FP8_KV = 65_536 * 2049


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def decode(client, gpu: str, dtype: str = "fp8") -> dict:
    return post(client, "step-time", {"model": "llama-3.1-8b", "gpu": gpu, "phase": "decode", "batch_size": 1,
                                      "context_tokens": 2048, "weight_dtype": dtype, "kv_dtype": "fp8"})


def test_b200_fp8_decode_uses_hopper_fp8_fitted_factors_with_the_reason(api_client):
    b200 = decode(api_client, "b200")
    basis = b200["priors"]["basis"]
    assert basis["family"] == "blackwell" and basis["compute_dtype"] == "fp8" and basis["fitted"] is False
    assert "no blackwell FP8 rows" in basis["reason"] and "Hopper FP8" in basis["reason"]
    # Hopper FP8's fit: weight-read MBU 0.60, KV-read efficiency 0.8607 (not the NVFP4 fit's 0.522), on B200's
    # 7.7e12 B/s: 8,030,785,536 / (7.7e12 · 0.60) + 134,283,264 / (7.7e12 · 0.8607) = 1.73826 + 0.02026 ms.
    assert b200["weight_bytes"] == STEP_WEIGHTS == 8_030_261_248
    expected = FP8_WEIGHTS_AND_ACTS / (7.7e12 * 0.60) + FP8_KV / (7.7e12 * 0.8607)
    assert b200["memory_seconds"] == pytest.approx(expected, rel=1e-6)
    assert b200["priors"]["kv_read_efficiency"]["expected"] == 0.8607


def test_b200_over_h200_in_fp8_is_the_bandwidth_ratio_for_memory_bound_decode(api_client):
    b200, h200 = decode(api_client, "b200"), decode(api_client, "h200")
    assert h200["priors"]["basis"] == {"family": "hopper", "compute_dtype": "fp8", "fitted": True,
                                       "reason": "fitted on hopper fp8 rows"}
    # The same factors on both: memory time scales with 1 / bandwidth, 7.7 / 4.8 = 1.604 (not the 1.50-1.60 the
    # NVFP4-fitted factors gave B200 in FP8).
    assert h200["memory_seconds"] / b200["memory_seconds"] == pytest.approx(7.7 / 4.8, rel=1e-9)


def test_fp4_keeps_its_own_fit_and_bf16_on_hopper_says_it_borrows(api_client):
    fp4 = decode(api_client, "b200", "fp4")
    assert fp4["priors"]["basis"]["fitted"] is True and fp4["priors"]["kv_read_efficiency"]["expected"] == 0.522
    bf16 = decode(api_client, "h100-sxm", "bf16")
    assert bf16["priors"]["basis"]["compute_dtype"] == "bf16" and not bf16["priors"]["basis"]["fitted"]
    amd = decode(api_client, "mi300x", "fp8")
    assert amd["priors"]["basis"] == {"family": "cdna3", "compute_dtype": "fp8", "fitted": True,
                                      "reason": "fitted on cdna3 fp8 rows"}
    # CDNA3's rows do not identify the KV-read efficiency (none moves 0.25 per unit log change): the hand-set 0.75
    assert amd["priors"]["kv_read_efficiency"]["expected"] == 0.75
    assert "not identified" in amd["priors"]["kv_read_efficiency"]["source"]
    ada = decode(api_client, "l40s", "fp8")
    assert ada["priors"]["basis"]["family"] == "" and "hand-set" in ada["priors"]["basis"]["reason"]


def test_a100_in_bf16_uses_the_ampere_fit_and_int8_borrows_it(api_client):
    a100 = post(api_client, "step-time", {"model": "llama-3.1-8b", "gpu": "a100-80gb", "phase": "decode",
                                          "batch_size": 1, "context_tokens": 2048, "weight_dtype": "bf16",
                                          "kv_dtype": "bf16"})
    assert a100["priors"]["basis"] == {"family": "ampere", "compute_dtype": "bf16", "fitted": True,
                                       "reason": "fitted on ampere bf16 rows"}
    # BF16: (8,030,261,248 − 525,336,576 table) · 2 B = 15,009,849,344 B of weights + 524,288 B of activations at
    # the Ampere fit's MBU 0.60; KV 2 · 8 heads · 128 · 2 B · 32 layers = 131,072 B a token · 2,049 at its KV-read
    # efficiency 0.7886, on 2.039e12 B/s (A100 SXM4 80GB datasheet): 12.2694 + 0.1670 ms.
    expected = (15_009_849_344 + 524_288) / (2.039e12 * 0.60) + 131_072 * 2049 / (2.039e12 * 0.7886)
    assert a100["memory_seconds"] == pytest.approx(expected, rel=1e-6)
    int8 = post(api_client, "step-time", {"model": "llama-3.1-8b", "gpu": "a100-80gb", "phase": "decode",
                                          "batch_size": 1, "context_tokens": 2048, "weight_dtype": "int8",
                                          "kv_dtype": "bf16"})
    basis = int8["priors"]["basis"]
    assert basis["family"] == "ampere" and basis["compute_dtype"] == "fp8" and basis["fitted"] is False
    assert "Ampere BF16" in basis["reason"] and int8["priors"]["kv_read_efficiency"]["expected"] == 0.7886
