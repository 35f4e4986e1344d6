"""FP4: NVFP4 weights and activations on GPUs with FP4 tensor cores (B200), MXFP4 for gpt-oss's experts, and a 400
naming weight_dtype where the GPU has no FP4 unit. Hand-derived."""

import pytest
from api_helpers import load_real_catalog, post

from apps.simulators.modeling import DTYPE_BYTES, ModelInputError, fit, load_gpus, load_models, step_time, weight_bytes

MODELS, GPUS = load_models(), load_gpus()
LLAMA_70B = MODELS["llama-3.1-70b"]
# Llama-3.1-70B: 70,553,706,496 params; embedding and LM head 128,256 · 8,192 = 1,050,673,152 each (kept 16-bit);
# the linear layers 70,553,706,496 − 2,101,346,304 = 68,452,360,192.
LINEAR, TABLE = 68_452_360_192, 1_050_673_152


def test_nvfp4_is_four_and_a_half_bits():
    # E2M1 elements + one E4M3 scale per 16: (16 · 4 + 8) / 16 = 4.5 bits; MXFP4: (32 · 4 + 8) / 32 = 4.25 bits
    assert DTYPE_BYTES["fp4"] == 0.5625 and DTYPE_BYTES["mxfp4"] == 0.53125
    # 68,452,360,192 · 0.5625 + 2,101,346,304 · 2 = 38,504,452,608 + 4,202,692,608
    assert weight_bytes(LLAMA_70B, "fp4") == 42_707_145_216


def test_b200_has_dense_fp4_and_the_others_do_not():
    # HGX B200: 144 PFLOPS FP4 per 8 GPUs with sparsity → 18 per GPU → 9e15 dense
    assert GPUS["b200"].fp4_dense_flops == 9e15 and GPUS["b200"].peak_flops("fp4") == 9e15
    assert all(GPUS[slug].fp4_dense_flops is None for slug in GPUS if slug != "b200")


def test_fp4_prefill_on_b200_by_hand():
    # TensorRT-LLM's NVFP4 layout: FP4 weights, FP8 KV cache
    r = step_time(LLAMA_70B, GPUS["b200"], batch=1, context_tokens=0, new_tokens=4096, weight_dtype="fp4",
                  kv_dtype="fp8")
    # FLOPs = 2 · 68,452,360,192 · 4,096 + 2 · 1,050,673,152 (logits for the last token)
    #       + attention 2 · 64 heads · (128 + 128) · 4,096 · 80 layers · ctx_eff (4,096 + 1)/2 = 2,048.5
    linear = 2 * LINEAR * 4096 + 2 * TABLE
    attention = 2 * 64 * 256 * 4096 * 80 * 2048.5
    assert attention == 21_995_601_264_640
    assert r.flops_per_gpu == linear + attention == 582_759_437_303_808
    # compute-bound at Blackwell's prefill MFU 0.4281 (roofline.BLACKWELL_PRIORS): the linear layers at the dense FP4
    # peak 9e15, attention at the FP8 peak 4.5e15 (its operands are the FP8 cache's; nothing attends in FP4), i.e.
    # counted twice at the FP4 peak: (560,763,836,039,168 + 2 · 21,995,601,264,640) / (9e15 · 0.4281) = 156.96 ms,
    # + 150 µs step + 4 µs request overhead (the GEMMs and attention are each compute-bound, so their sum is this)
    assert r.bound == "compute" and r.compute_time_s == pytest.approx((linear + 2 * attention) / (9e15 * 0.4281))
    assert r.step_time_s == pytest.approx(r.compute_time_s + 154e-6)
    assert "run at 4,500.0 TFLOP/s, not 9,000.0" in r.derivation
    # A BF16 cache attends at the BF16 peak 2.25e15: four times the FLOPs at the FP4 peak, 168.38 ms
    bf16_cache = step_time(LLAMA_70B, GPUS["b200"], batch=1, context_tokens=0, new_tokens=4096, weight_dtype="fp4")
    assert bf16_cache.compute_time_s == pytest.approx((linear + 4 * attention) / (9e15 * 0.4281))
    fp8 = step_time(LLAMA_70B, GPUS["b200"], batch=1, context_tokens=0, new_tokens=4096, weight_dtype="fp8",
                    kv_dtype="fp8")
    # FP8 on B200 has no fitted rows: it borrows Hopper FP8's fit (prefill MFU 0.5428) on B200's own FP8 peak 4.5e15,
    # where attention runs too: 582.76e12 / (4.5e15 · 0.5428) = 238.58 ms, not the 2× the NVFP4 fit's MFU would give.
    assert fp8.compute_time_s == pytest.approx(582_759_437_303_808 / (4.5e15 * 0.5428))
    assert "Attention's matmuls" not in fp8.derivation
    assert fp8.priors["basis"]["compute_dtype"] == "fp8" and fp8.priors["basis"]["fitted"] is False
    assert r.priors["basis"] == {"family": "blackwell", "compute_dtype": "fp4", "fitted": True,
                                 "reason": "fitted on blackwell fp4 rows"}


def test_fp4_decode_on_b200_by_hand():
    r = step_time(LLAMA_70B, GPUS["b200"], batch=1, context_tokens=0, new_tokens=1, weight_dtype="fp4")
    # bytes = weights 42,707,145,216 − the embedding table 2,101,346,304 (a lookup) + KV write 80 · 2 · 8 · 128 · 2
    #       + activations 2 · 80 · 8,192 · 2 = 40,605,798,912 + 327,680 + 2,621,440 = 40,608,748,032 B
    assert r.bytes_per_gpu == 40_608_748_032
    # memory-bound at Blackwell's weight-read MBU 0.60 and KV-read efficiency 0.522 (roofline.BLACKWELL_PRIORS):
    # (40,605,798,912 + 2,621,440) / (7.7e12 · 0.60) = 8.78970 ms + 327,680 / (7.7e12 · 0.522) = 0.082 µs
    assert r.bound == "memory" and r.memory_time_s == pytest.approx(8.78978e-3, rel=1e-5)


def test_fp4_on_a_gpu_without_fp4_units_names_the_dtype():
    for call in (lambda: step_time(LLAMA_70B, GPUS["h100-sxm"], tp=2, weight_dtype="fp4"),
                 lambda: fit(LLAMA_70B, GPUS["mi300x"], context_tokens=1024, weight_dtype="fp4")):
        with pytest.raises(ModelInputError) as err:
            call()
        assert err.value.field == "weight_dtype" and "no FP4 tensor cores" in err.value.message


def test_mxfp4_covers_gpt_oss_experts_only():
    m = MODELS["gpt-oss-120b"]
    # 36 MoE layers · 128 experts · 3 · 2,880 · 2,880 = 114,661,785,600 expert params at 4.25 bits; the other
    # 116,789,048,640 − 114,661,785,600 = 2,127,263,040 (attention, router, embedding, head) stay BF16:
    # 114,661,785,600 · 0.53125 + 2,127,263,040 · 2 = 60,914,073,600 + 4,254,526,080 = 65,168,599,680 B (the
    # published checkpoint is about 65 GB, "fits on a single 80 GB GPU")
    assert weight_bytes(m, "mxfp4") == 65_168_599_680
    # on a dense model MXFP4 covers every linear layer
    assert weight_bytes(LLAMA_70B, "mxfp4") == LINEAR * 0.53125 + 2 * TABLE * 2


@pytest.mark.django_db
def test_api_fp4_on_b200_and_the_400_elsewhere(api_client):
    load_real_catalog()
    base = {"model": "llama-3.1-70b", "context_tokens": 4096, "phase": "prefill", "weight_dtype": "fp4"}
    d = post(api_client, "step-time", {**base, "gpu": "b200"})
    assert d["peak_flops_per_s"] == 9e15 and d["bound"] == "compute" and d["feasible"] is True
    for name, body in (("step-time", {**base, "gpu": "h100-sxm", "tensor_parallel": 2}),
                       ("fit", {"model": "llama-3.1-70b", "gpu": "h200", "context_tokens": 4096,
                                "weight_dtype": "fp4"})):
        bad = post(api_client, name, body, 400)
        assert "weight_dtype" in bad["fields"] and "no FP4 tensor cores" in str(bad)
    r = api_client.post("/api/v1/simulators/engine/", {
        "model": "llama-3.1-8b", "gpu": "l40s", "weight_dtype": "fp4",
        "workload": {"num_requests": 5, "prompt_tokens": 100, "output_tokens": 5}}, format="json")
    assert r.status_code == 400 and "weight_dtype" in r.json()["fields"]


@pytest.mark.django_db
def test_serve_config_for_fp4_reads_a_prequantized_checkpoint_and_needs_fp4_units(api_client):
    load_real_catalog()
    body = {"model": "llama-3.1-70b", "workload": {"prompt_tokens": 2000, "output_tokens": 500}, "weight_dtype": "fp4"}
    d = post(api_client, "serve-config", {**body, "gpu": "b200"})
    # 42.7e9 B of NVFP4 weights fit one B200: no --quantization flag, the NVFP4 checkpoint carries its config
    assert d["tensor_parallel"] == 1 and "--quantization" not in d["command"] and "NVFP4" in str(d["flags"])
    for extra in ({"gpu": "h200"}, {"gpu": "h200", "tensor_parallel": 1}):
        assert "weight_dtype" in post(api_client, "serve-config", {**body, **extra}, 400)["fields"]
