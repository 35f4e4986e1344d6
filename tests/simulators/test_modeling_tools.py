"""Speculative decoding, collectives, paged KV, prefix cache, MoE load, capacity and serve config."""

import math

import numpy as np
import pytest
import yaml

from apps.simulators.modeling import (
    ModelInputError,
    block_hashes,
    blocks_needed,
    collective_time,
    distinct_experts,
    expected_tokens_per_step,
    expert_load,
    load_gpus,
    load_models,
    lru_hit_rate,
    paged_vs_contiguous,
    plan_capacity,
    speculative_speedup,
    synthetic_prompts,
    vllm_serve_config,
)
from apps.simulators.modeling.prefix_cache import CHAIN_MULTIPLIER, chain_hash, prompt_chains

MODELS = load_models()
GPUS = load_gpus()




def test_leviathan_expected_tokens_match_genz_checks():
    # (1 − 0.7^5)/(1 − 0.7) = 2.7731; (1 − 0.8^9)/(1 − 0.8) = 4.3289
    assert expected_tokens_per_step(0.7, 4) == pytest.approx(2.7731)
    assert expected_tokens_per_step(0.8, 8) == pytest.approx(4.32891136)
    assert expected_tokens_per_step(1.0, 4) == 5.0


def test_speedup_and_optimal_gamma():
    r = speculative_speedup(0.8, 4, 0.05)
    # E = 3.3616; speedup = 3.3616 / (4 · 0.05 + 1) = 2.8013
    assert r.speedup == pytest.approx(3.3616 / 1.2)
    grid = [(1 - 0.8 ** (g + 1)) / 0.2 / (g * 0.05 + 1) for g in range(1, 17)]
    assert r.optimal_gamma == int(np.argmax(grid)) + 1
    assert speculative_speedup(0.2, 4, 0.5).speedup < 1  # a poor draft slows decoding down


def test_ring_all_reduce_by_hand():
    r = collective_time("all_reduce", message_bytes=16e6, num_gpus=8, link_bandwidth_bytes_per_s=450e9)
    # 2·7/8 · 16e6 / 450e9 = 62.22 µs; 2·7 · 1 µs = 14 µs
    assert r.time_s == pytest.approx(2 * 7 / 8 * 16e6 / 450e9 + 14e-6)
    assert r.bus_bandwidth_bytes_per_s == pytest.approx(r.algorithm_bandwidth_bytes_per_s * 2 * 7 / 8)


def test_tree_wins_on_latency_for_small_messages_and_ring_on_bandwidth():
    kw = dict(num_gpus=64, link_bandwidth_bytes_per_s=50e9, latency_s=5e-6)
    small = [collective_time("all_reduce", message_bytes=1e3, algorithm=a, **kw).time_s for a in ("ring", "tree")]
    large = [collective_time("all_reduce", message_bytes=1e9, algorithm=a, **kw).time_s for a in ("ring", "tree")]
    assert small[1] < small[0] and large[0] < large[1]


def test_all_gather_and_single_gpu():
    r = collective_time("all_gather", message_bytes=8e6, num_gpus=4, link_bandwidth_bytes_per_s=100e9, latency_s=0)
    assert r.time_s == pytest.approx(3 / 4 * 8e6 / 100e9)
    assert collective_time("all_to_all", message_bytes=1e6, num_gpus=1, link_bandwidth_bytes_per_s=1e9).time_s == 0


def test_paged_vs_contiguous_by_hand():
    r = paged_vs_contiguous([100, 500, 2000], max_model_len=4096, block_size=16)
    # blocks 7 + 32 + 125 = 164 → 2,624 slots for 2,600 tokens; contiguous 3 · 4,096 = 12,288
    assert r.total_blocks == 164 and r.paged_reserved_tokens == 2624
    assert r.contiguous_waste_fraction == pytest.approx(1 - 2600 / 12288)
    assert r.paged_waste_fraction == pytest.approx(24 / 2624)
    assert blocks_needed(17, 16) == 2


def _splitmix64(z: int) -> int:
    mask = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _reference_chain(tokens: list[int], block_size: int) -> list[int]:
    """The documented hash in plain Python ints: key = parent·A + splitmix64(Σ (token_j + 1)·K_j) mod 2^64."""
    mask = (1 << 64) - 1
    k = [_splitmix64((j * 0x9E3779B97F4A7C15) & mask) | 1 for j in range(1, block_size + 1)]
    keys, parent = [], 0
    for start in range(0, len(tokens) - block_size + 1, block_size):
        own = _splitmix64(sum((t + 1) * kj for t, kj in zip(tokens[start:start + block_size], k, strict=True)) & mask)
        parent = (parent * CHAIN_MULTIPLIER + own) & mask
        keys.append(parent)
    return keys


def test_prefix_cache_hash_chain_counts_full_blocks_only():
    tokens = list(range(40))
    chain = block_hashes(tokens, 16)
    assert len(chain) == 2 and chain[1] == chain_hash(chain[0], range(16, 32))
    assert chain == _reference_chain(tokens, 16)
    assert block_hashes([*list(range(16)), 99], 16)[0] == chain[0]


def test_changed_token_changes_its_block_and_every_later_key():
    tokens = list(range(64))
    changed = [*tokens[:20], 7, *tokens[21:]]          # token 20 sits in block 1
    a, b = block_hashes(tokens, 16), block_hashes(changed, 16)
    assert a[0] == b[0] and all(x != y for x, y in zip(a[1:], b[1:], strict=True))
    assert block_hashes(tokens[:16] * 4, 16)[0] == a[0] and len(set(block_hashes([0] * 64, 16))) == 4


def test_batched_chains_match_one_prompt_at_a_time():
    prompts = [list(range(50)), [], list(range(3)), [5] * 33, list(range(10, 90))]
    chains = prompt_chains(prompts, 8)
    assert [c.tolist() for c in chains] == [_reference_chain(p, 8) for p in prompts]
    assert [len(c) for c in chains] == [6, 0, 0, 4, 10]
    matrix = np.arange(60).reshape(3, 20) % 7             # equal-length prompts as one matrix: same keys, no copy
    assert [c.tolist() for c in prompt_chains(matrix, 8)] == [_reference_chain(p, 8) for p in matrix.tolist()]


def test_lru_hit_rate_by_hand():
    a, b = list(range(32)), list(range(100, 132))
    r = lru_hit_rate([a, a, b, a], block_size=16, capacity_blocks=4)
    # lookups 8 blocks; hits: 0, 2, 0, 2 → 4/8
    assert r.hits_per_request == [0, 2, 0, 2] and r.hit_rate == 0.5
    evicting = lru_hit_rate([a, b, a], block_size=16, capacity_blocks=2)
    assert evicting.hits_per_request == [0, 0, 0] and evicting.evictions > 0


def test_lru_capacity_of_exactly_the_distinct_blocks_never_evicts():
    a, b = list(range(32)), list(range(100, 132))     # 2 blocks each, 4 distinct keys
    fits = lru_hit_rate([a, b, a], block_size=16, capacity_blocks=4)
    assert fits.hits_per_request == [0, 0, 2] and fits.evictions == 0
    # one block short: b evicts a's first block, so a misses at once; re-touching a evicts b's first block
    short = lru_hit_rate([a, b, a], block_size=16, capacity_blocks=3)
    assert short.hits_per_request == [0, 0, 0] and short.evictions == 2


def test_lru_evicts_least_recently_used_block():
    # capacity 2, one token per block: after [1],[2] the hit on [1] makes [2] the oldest, so [3] evicts it;
    # then [2] evicts [1] and [1] evicts [3] — 3 evictions and only the third request hits
    r = lru_hit_rate([[1], [2], [1], [3], [2], [1]], block_size=1, capacity_blocks=2)
    assert r.hits_per_request == [0, 0, 1, 0, 0, 0] and r.evictions == 3


def test_lru_touches_a_chain_in_order_even_when_its_parent_was_evicted():
    # keys p=[1], c=[1,2], f=[5]. [5] evicts p; re-reading [1,2] misses p (child c is cached but unusable),
    # then touches p before c, so the next [5] evicts p again and the final [1] misses: 4 evictions, no hits
    r = lru_hit_rate([[1, 2], [5], [1, 2], [5], [1]], block_size=1, capacity_blocks=2)
    assert r.hits_per_request == [0, 0, 0, 0, 0] and r.evictions == 4


def test_shared_system_prompts_give_high_hit_rate():
    prompts = synthetic_prompts(num_requests=100, num_system_prompts=3, system_tokens=512, user_tokens=64,
                                rng=np.random.default_rng(7))
    assert lru_hit_rate(prompts, capacity_blocks=10_000).hit_rate > 0.8


def test_uniform_moe_load_is_balanced():
    r = expert_load(num_experts=8, top_k=2, tokens=1000)
    assert r.imbalance == pytest.approx(1.0) and r.dropped_fraction == 0
    assert r.distinct_experts == pytest.approx(8.0)
    # uniform distinct experts: 8 · (1 − (6/8)^1) = 2
    assert distinct_experts(8, 2, 1) == pytest.approx(2.0)


def test_zipf_skew_raises_imbalance_and_drops():
    r = expert_load(num_experts=64, top_k=2, tokens=4096, zipf_exponent=1.2, capacity_factor=1.25, hidden_size=4096)
    assert r.imbalance > 5 and r.dropped_fraction > 0.1
    assert r.selection_probability.sum() == pytest.approx(2.0) and r.selection_probability.max() <= 1.0
    assert r.all_to_all_bytes_per_layer == 2 * 4096 * 2 * 4096 * 2


def test_capacity_plan_cost_formula():
    r = plan_capacity(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], requests_per_s=20, prompt_tokens=1000,
                      output_tokens=200, ttft_p99_s=1.0, tpot_s=0.05)
    assert r.feasible and r.gpus == r.replicas * r.tp
    assert r.dollars_per_hour == pytest.approx(r.gpus * 2.99)
    # 10^6 · $/h / (3600 · 20 · 1,200 tokens/s)
    assert r.dollars_per_million_tokens == pytest.approx(1e6 * r.dollars_per_hour / (3600 * 24_000))
    assert r.gpus_range[0] <= r.gpus <= r.gpus_range[1]
    assert r.tpot_s <= 0.05 and r.ttft_s <= 1.0


def test_capacity_scales_with_load():
    kw = dict(prompt_tokens=1000, output_tokens=200, ttft_p99_s=2.0, tpot_s=0.05)
    one = plan_capacity(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], requests_per_s=5, **kw)
    many = plan_capacity(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], requests_per_s=500, **kw)
    assert many.gpus > one.gpus


def test_capacity_reports_infeasible_tpot():
    r = plan_capacity(MODELS["llama-3.1-70b"], GPUS["l40s"], requests_per_s=1, prompt_tokens=500,
                      output_tokens=100, ttft_p99_s=10, tpot_s=0.001)
    assert not r.feasible and r.limiting_factor == "tpot_slo"


def test_serve_config_flags_and_yaml():
    r = vllm_serve_config(MODELS["llama-3.1-70b"], GPUS["h100-sxm"], tp=4, weight_dtype="fp8", kv_dtype="fp8")
    assert r.command.startswith("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4")
    assert "--kv-cache-dtype fp8" in r.command and "--quantization fp8" in r.command
    assert all(f["why"] for f in r.flags)
    doc, service, hpa = yaml.safe_load_all(r.kubernetes_yaml)
    assert (doc["kind"], service["kind"], hpa["kind"]) == ("Deployment", "Service", "HorizontalPodAutoscaler")
    container = doc["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == container["resources"]["requests"]["nvidia.com/gpu"] == "4"
    assert all(isinstance(a, str) for a in container["args"])


def test_serve_config_rejects_tp_that_does_not_divide_heads():
    with pytest.raises(ModelInputError) as err:
        vllm_serve_config(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], tp=3)
    assert err.value.field == "tp"


def test_amd_gets_amd_resource():
    r = vllm_serve_config(MODELS["llama-3.1-8b"], GPUS["mi300x"])
    assert "amd.com/gpu" in r.kubernetes_yaml and math.isfinite(len(r.command))
