"""speculative, collectives, paged-kv, prefix-cache, moe and serve-config endpoints."""

import pytest
from api_helpers import load_real_catalog, post

from apps.simulators.modeling import block_hashes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def test_speculative_expected_tokens_and_speedup(api_client):
    d = post(api_client, "speculative", {"acceptance_rate": 0.8, "draft_tokens": 4, "draft_cost": 0.1})
    expected = (1 - 0.8**5) / (1 - 0.8)  # 3.3616
    assert d["expected_tokens_per_step"] == pytest.approx(expected)
    assert d["speedup"] == pytest.approx(expected / (4 * 0.1 + 1))
    best = max(d["curve"], key=lambda p: p["speedup"])
    assert d["optimal_draft_tokens"] == best["draft_tokens"] and d["optimal_speedup"] == pytest.approx(best["speedup"])


def test_speculative_perfect_acceptance_gives_gamma_plus_one(api_client):
    d = post(api_client, "speculative", {"acceptance_rate": 1.0, "draft_tokens": 5, "draft_cost": 0})
    assert d["expected_tokens_per_step"] == 6 and d["speedup"] == 6


@pytest.mark.parametrize("body, field", [
    ({"acceptance_rate": 1.2, "draft_tokens": 4, "draft_cost": 0.1}, "acceptance_rate"),
    ({"acceptance_rate": 0.5, "draft_tokens": 65, "draft_cost": 0.1}, "draft_tokens"),
    ({"acceptance_rate": 0.5, "draft_tokens": 4, "draft_cost": -1}, "draft_cost"),
    ({"acceptance_rate": 0.5, "draft_tokens": 4}, "draft_cost"),
])
def test_speculative_bad_input(api_client, body, field):
    assert field in post(api_client, "speculative", body, 400)["fields"]


def test_ring_all_reduce_alpha_beta(api_client):
    d = post(api_client, "collectives", {"op": "all_reduce", "message_bytes": 1e9, "num_gpus": 8,
                                         "link_bandwidth_bytes_per_s": 450e9, "latency_s": 1e-6})
    assert d["bandwidth_term_seconds"] == pytest.approx(2 * 7 / 8 * 1e9 / 450e9)
    assert d["latency_term_seconds"] == pytest.approx(2 * 7 * 1e-6)
    assert d["bound"] == "bandwidth" and {c["algorithm"] for c in d["curves"]} == {"ring", "tree", "one_shot"}


def test_collectives_take_one_direction_of_the_gpu_link(api_client):
    d = post(api_client, "collectives", {"op": "all_gather", "message_bytes": 1e3, "num_gpus": 8, "gpu": "h100-sxm"})
    assert d["link_bandwidth_bytes_per_s"] == 450e9 and d["bound"] == "latency"


@pytest.mark.parametrize("body, field", [
    ({"op": "broadcast"}, "op"), ({"algorithm": "tree", "op": "all_gather"}, "algorithm"),
    ({"message_bytes": 0}, "message_bytes"), ({"num_gpus": 0}, "num_gpus"),
    ({"link_bandwidth_bytes_per_s": None}, "link_bandwidth_bytes_per_s"), ({"gpu": "nope", "link_bandwidth_bytes_per_s": None}, "gpu"),
])
def test_collectives_bad_input(api_client, body, field):
    base = {"op": "all_reduce", "message_bytes": 1e6, "num_gpus": 8, "link_bandwidth_bytes_per_s": 1e11}
    assert field in post(api_client, "collectives", {**base, **body}, 400)["fields"]


def test_paged_kv_waste(api_client):
    d = post(api_client, "paged-kv", {"sequence_lengths": [10, 100, 1000], "max_model_len": 2048, "block_size": 16,
                                      "model": "llama-3.1-8b"})
    assert [s["blocks"] for s in d["sequences"]] == [1, 7, 63] and d["total_blocks"] == 71
    assert [s["last_block_tokens"] for s in d["sequences"]] == [10, 4, 8]
    assert d["contiguous_waste_fraction"] == pytest.approx(1 - 1110 / (3 * 2048))
    assert d["paged_waste_fraction"] == pytest.approx(1 - 1110 / (71 * 16))
    assert d["paged_bytes"] == 71 * 16 * 131_072


@pytest.mark.parametrize("body, field", [
    ({"sequence_lengths": [3000]}, "sequence_lengths"), ({"sequence_lengths": []}, "sequence_lengths"),
    ({"sequence_lengths": [1] * 10_001}, "sequence_lengths"), ({"block_size": 0}, "block_size"),
    ({"sequence_lengths": [0]}, "sequence_lengths.0"), ({"model": "nope"}, "model"),
])
def test_paged_kv_bad_input(api_client, body, field):
    base = {"sequence_lengths": [10], "max_model_len": 2048}
    assert field in post(api_client, "paged-kv", {**base, **body}, 400)["fields"]


def test_prefix_cache_hash_chain_and_hits(api_client):
    shared = list(range(32))
    d = post(api_client, "prefix-cache", {"prompts": [shared, [*shared, *range(100, 116)], list(range(500, 532))],
                                          "block_size": 16, "capacity_blocks": 100})
    first, second, third = d["prompts"]
    assert second["hashes"][:2] == first["hashes"] and len(second["hashes"]) == 3
    assert third["hashes"][0] != first["hashes"][0]
    assert [p["hit_blocks"] for p in d["prompts"]] == [0, 2, 0]
    assert d["hit_rate"] == pytest.approx(2 / 7) and all(len(h) == 12 for h in first["hashes"])
    assert first["hashes"] == [f"{h:016x}"[:12] for h in block_hashes(shared, 16)]


def test_prefix_cache_of_zero_blocks_never_hits(api_client):
    d = post(api_client, "prefix-cache", {"prompts": [list(range(32))] * 3, "capacity_blocks": 0})
    assert d["hit_blocks"] == 0 and d["evictions"] == 6


def test_prefix_cache_texts_share_a_system_prompt(api_client):
    system = "You are a careful assistant who answers questions about GPUs. " * 4
    d = post(api_client, "prefix-cache", {"texts": [system + "What is HBM?", system + "What is NVLink?"],
                                          "capacity_blocks": 1000, "block_size": 4})
    assert d["tokenizer"] == "approximate" and d["prompts"][1]["hit_blocks"] > 0


def test_prefix_cache_synthetic_workload(api_client):
    body = {"synthetic": {"num_requests": 50, "num_system_prompts": 2, "system_tokens": 64, "user_tokens": 16},
            "capacity_blocks": 1000}
    first = post(api_client, "prefix-cache", body)
    assert first["hit_rate"] > 0.5 and first["lookup_blocks"] == 50 * 5
    assert post(api_client, "prefix-cache", body) == first  # same seed → same prompts, keys and hits
    # the first 4 blocks (64 system tokens) of two requests sharing a system prompt have the same keys
    shared = [p["hashes"][:4] for p in first["prompts"]]
    assert any(shared.count(h) > 1 for h in shared) and all(len(p["hashes"]) == 5 for p in first["prompts"])


@pytest.mark.parametrize("body, field", [
    ({}, "prompts"), ({"prompts": [[1]], "texts": ["a"]}, "prompts"), ({"prompts": [[-1]]}, "prompts.0.0"),
    ({"prompts": [[1]], "capacity_blocks": -1}, "capacity_blocks"), ({"prompts": [[1]], "block_size": 0}, "block_size"),
])
def test_prefix_cache_bad_input(api_client, body, field):
    assert field in post(api_client, "prefix-cache", {"capacity_blocks": 10, **body}, 400)["fields"]


def test_moe_uniform_routing(api_client):
    d = post(api_client, "moe", {"num_experts": 8, "top_k": 2, "tokens": 4, "zipf_exponent": 0})
    assert d["expected_load_tokens"] == pytest.approx([1.0] * 8) and d["imbalance"] == pytest.approx(1.0)
    assert d["expected_distinct_experts_uniform"] == pytest.approx(8 * (1 - (6 / 8) ** 4))  # 5.46875
    assert d["dropped_tokens"] == 0


def test_moe_skew_drops_tokens(api_client):
    d = post(api_client, "moe", {"num_experts": 64, "top_k": 2, "tokens": 4096, "zipf_exponent": 1.2,
                                 "capacity_factor": 1.0})
    assert d["imbalance"] > 5 and d["dropped_tokens"] > 0
    assert d["dropped_tokens"] == pytest.approx(d["dropped_fraction"] * 4096 * 2)


@pytest.mark.parametrize("body, field", [
    ({"top_k": 9}, "top_k"), ({"num_experts": 0}, "num_experts"), ({"tokens": 0}, "tokens"),
    ({"zipf_exponent": -1}, "zipf_exponent"), ({"capacity_factor": 0}, "capacity_factor"),
])
def test_moe_bad_input(api_client, body, field):
    assert field in post(api_client, "moe", {"num_experts": 8, "top_k": 2, "tokens": 4, **body}, 400)["fields"]


def serve(client, status=200, **body):
    base = {"model": "llama-3.1-70b", "gpu": "h100-sxm", "workload": {"prompt_tokens": 2000, "output_tokens": 500}}
    return post(client, "serve-config", {**base, **body}, status)


def test_serve_config_picks_the_smallest_tp_that_fits(api_client):
    d = serve(api_client, kv_dtype="fp8")
    # TP 2: 70.55e9 B of BF16 weights per GPU + activations 1.156e9 + 1.5e9 + 2,500 · 81,920 B of FP8 KV = 73.41e9
    # ≤ ceil(0.92 × 84,975,927,951) = 78,177,853,715 (vLLM's default share of the total CUDA reports for an
    # "80 GB" H100)
    assert d["tensor_parallel"] == 2 and d["max_model_len"] == 2500
    assert d["command"].startswith("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 2")
    assert "--kv-cache-dtype fp8" in d["command"]
    assert 'nvidia.com/gpu: "2"' in d["kubernetes_yaml"] and "kind: Deployment" in d["kubernetes_yaml"]
    assert all(flag["why"] for flag in d["flags"])


def test_serve_config_clips_max_model_len_and_warns(api_client):
    d = serve(api_client, model="mistral-7b", workload={"prompt_tokens": 40_000, "output_tokens": 100})
    assert d["max_model_len"] == 32768 and d["warnings"]


@pytest.mark.parametrize("body, field", [
    ({"tensor_parallel": 3}, "tensor_parallel"), ({"workload": None}, "workload"),
    ({"kv_dtype": "int4"}, "kv_dtype"), ({"model": "llama-3.1-405b", "gpu": "rtx-4090"}, "model"),
])
def test_serve_config_bad_input(api_client, body, field):
    assert field in serve(api_client, status=400, **body)["fields"]
