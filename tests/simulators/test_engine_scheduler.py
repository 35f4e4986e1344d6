"""The engine simulator on hand-checkable scenarios (no database)."""

import numpy as np
import pytest

from apps.simulators.engine.cluster import Router, run_replicas
from apps.simulators.engine.costs import roofline_step_cost
from apps.simulators.engine.engine import Engine, SimulationError
from apps.simulators.engine.metrics import SLO, engine_stats
from apps.simulators.engine.scheduler import SchedulerConfig
from apps.simulators.engine.simulate import Disaggregation, ServingSetup, simulate
from apps.simulators.engine.workload import LengthDist, Workload, WorkloadSpec, from_trace, generate
from apps.simulators.modeling import load_gpus, load_models, step_time

MODELS, GPUS = load_models(), load_gpus()


def tokens_cost(n, ctx):
    """0.1 s per step plus 0.01 s per new token."""
    return 0.1 + 0.01 * float(n.sum())


def unit_cost(n, ctx):
    return 1.0


def two_requests(prompt=(4, 6), output=(3, 3)):
    return Workload(np.zeros(2), np.array(prompt), np.array(output), np.full(2, -1), np.zeros(2, np.int64))


def run(workload, cost=tokens_cost, **cfg):
    e = Engine(workload, SchedulerConfig(**{"num_blocks": 1000, "block_size": 4, **cfg}), cost)
    e.assign_all()
    e.advance()
    return e


def test_two_requests_fit_one_step_share_ttft():
    e = run(two_requests())
    # Step 1 prefills 10 tokens (0.2 s); two decode steps of 2 tokens (0.12 s each).
    assert e.first_t.tolist() == pytest.approx([0.2, 0.2])
    assert e.finish_t.tolist() == pytest.approx([0.44, 0.44])


def test_chunked_prefill_budget_splits_second_prompt():
    e = run(two_requests(), max_num_batched_tokens=5)
    # Step 1: A 4 + B 1 tokens (0.15 s). Step 2: A decode + B 4 (0.15). Step 3: A decode + B last token (0.12).
    assert e.first_t.tolist() == pytest.approx([0.15, 0.42])
    assert e.finish_t.tolist() == pytest.approx([0.42, 0.64])


def test_without_chunked_prefill_a_prompt_waits_for_a_step_with_room():
    e = run(two_requests(), max_num_batched_tokens=6, chunked_prefill=False)
    # Step 1: A's 4 tokens (B's 6 exceed the 2 left) = 0.14 s. Steps 2-3: A decodes (0.11 s each) and B's
    # 6 tokens never fit the 5 left beside it. Step 4: B's 6 tokens alone = 0.16 s.
    assert e.first_t.tolist() == pytest.approx([0.14, 0.52])


def test_max_num_seqs_one_serialises_requests():
    e = run(two_requests(), cost=unit_cost, max_num_seqs=1)
    assert e.first_t.tolist() == [1.0, 4.0]
    assert e.finish_t.tolist() == [3.0, 6.0]


def test_small_kv_pool_preempts_last_admitted_exactly_once():
    w = two_requests(prompt=(4, 4), output=(6, 6))
    e = run(w, cost=unit_cost, num_blocks=4)
    # Both hold 2 blocks after step 2; at 8 tokens A needs a third block: B (last admitted) is preempted.
    assert e.preempted.tolist() == [0, 1]
    assert e.finish_t[0] == 6.0
    assert e.finish_t[1] == 7.0  # recomputes its 4 + 5 tokens in one step once A is done
    stats = engine_stats(e)
    assert stats["tokens_computed"] == stats["tokens_expected"] == (4 + 5) * 2 + 8
    assert (e.generated == 6).all()


def test_request_larger_than_pool_is_rejected():
    with pytest.raises(SimulationError):
        run(two_requests(prompt=(40, 4)), num_blocks=4)


def test_prefix_cache_reuses_shared_blocks():
    arrival = np.array([0.0, 10.0])
    w = Workload(arrival, np.array([20, 20]), np.array([2, 2]), np.array([7, 7]), np.array([16, 16]))
    e = run(w, prefix_caching=True)
    assert e.hit_tokens == 16  # the second request finds 4 cached blocks of 4 tokens
    assert e.lookup_tokens == 40
    # First request prefills 20 tokens (0.3 s); the second only 4 (0.14 s).
    assert e.first_t[0] == pytest.approx(0.3)
    assert e.first_t[1] - 10.0 == pytest.approx(0.14)


def test_static_batching_waits_for_the_whole_batch():
    e = run(two_requests(output=(2, 5)), cost=unit_cost, static_batching=True)
    assert e.first_t.tolist() == [1.0, 1.0]
    assert e.finish_t.tolist() == [5.0, 5.0]  # the short request returns with the long one


def setup_8b(**kw):
    return ServingSetup(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], **kw)


def mixed_workload(seed=1, n=300, rate=40.0):
    spec = WorkloadSpec(num_requests=n, arrival_rate_per_s=rate, prompt=LengthDist("uniform", low=100, high=800),
                        output=LengthDist("empirical", values=(8, 16, 400, 600)))
    return generate(spec, np.random.default_rng(seed))


def test_continuous_batching_beats_static_on_mixed_output_lengths():
    w = mixed_workload()
    cont = simulate(setup_8b(), w, slo=SLO())
    stat = simulate(setup_8b(static_batching=True), w, slo=SLO())
    assert cont["e2e_s"]["mean"] < 0.5 * stat["e2e_s"]["mean"]
    assert cont["throughput"]["output_tokens_per_s"] > stat["throughput"]["output_tokens_per_s"]
    assert stat["invariants"]["tokens_conserved"]


def test_invariants_hold_on_a_realistic_run():
    r = simulate(setup_8b(), mixed_workload(), slo=SLO())
    inv = r["invariants"]
    assert inv["tokens_conserved"] and inv["all_finished"]
    assert inv["littles_law"]["ok"], inv["littles_law"]
    assert len(r["series"]["t_s"]) <= 500
    assert r["completed"] == 300


def test_same_seed_same_result_other_seed_differs():
    a = simulate(setup_8b(), mixed_workload(seed=5), slo=SLO())
    b = simulate(setup_8b(), mixed_workload(seed=5), slo=SLO())
    c = simulate(setup_8b(), mixed_workload(seed=6), slo=SLO())
    assert a == b
    assert a["ttft_s"] != c["ttft_s"]


def test_tight_kv_budget_preempts_and_still_conserves_tokens():
    w = mixed_workload(rate=200.0)
    r = simulate(setup_8b(gpu_memory_utilization=0.32), w, slo=SLO())
    assert r["preemptions"] > 0
    assert r["invariants"]["tokens_conserved"]


def test_step_cost_matches_roofline_for_uniform_batches():
    m, g = MODELS["mixtral-8x7b"], GPUS["h100-sxm"]
    cost = roofline_step_cost(m, g, tp=2)
    expected = step_time(m, g, batch=32, context_tokens=700, new_tokens=1, tp=2).step_time_s
    assert cost(np.ones(32), np.full(32, 700.0)) == pytest.approx(expected, rel=1e-12)


def test_round_robin_router_alternates():
    r = Router("round_robin", 3)
    assert [r.pick(-1, [9, 0, 0]) for _ in range(4)] == [0, 1, 2, 0]


def test_least_outstanding_router_picks_least_loaded():
    r = Router("least_outstanding", 3)
    assert r.pick(-1, [3, 1, 2]) == 1
    assert r.pick(-1, [1, 1, 2]) == 0


def test_prefix_aware_router_keeps_affinity_until_overloaded():
    r = Router("prefix_aware", 2)
    assert r.pick(5, [0, 0]) == 0
    assert r.pick(5, [3, 0]) == 0        # 3 <= 1.5·0 + 4: stays with its cache
    assert r.pick(5, [5, 0]) == 1        # overloaded: goes to the least loaded
    assert r.pick(6, [5, 0]) == 1        # a new group starts on the least loaded replica


def test_prefix_aware_routing_raises_hit_rate_over_round_robin():
    spec = WorkloadSpec(num_requests=400, arrival_rate_per_s=30, prompt=LengthDist("fixed", value=64),
                        output=LengthDist("fixed", value=16), shared_prefix_tokens=1024, prefix_groups=4)
    w = generate(spec, np.random.default_rng(3))
    rr = simulate(setup_8b(prefix_caching=True), w, slo=SLO(), replicas=4, router="round_robin")
    pa = simulate(setup_8b(prefix_caching=True), w, slo=SLO(), replicas=4, router="prefix_aware")
    assert pa["prefix_cache_hit_rate"] > rr["prefix_cache_hit_rate"]
    assert sum(x["requests"] for x in pa["replicas"]) == 400


def test_least_outstanding_avoids_the_busy_replica():
    # Request 0 is long; requests 1..3 arrive while it runs: least_outstanding never stacks them on it.
    trace = [[0.0, 4000, 500], [0.5, 100, 10], [1.0, 100, 10], [1.5, 100, 10]]
    w = from_trace(trace)
    cfg = SchedulerConfig(num_blocks=10_000)
    _, where = run_replicas(w, cfg, roofline_step_cost(MODELS["llama-3.1-8b"], GPUS["h100-sxm"]),
                                  replicas=2, router="least_outstanding")
    assert where.tolist() == [0, 1, 1, 1]
    _, rr = run_replicas(w, cfg, roofline_step_cost(MODELS["llama-3.1-8b"], GPUS["h100-sxm"]),
                         replicas=2, router="round_robin")
    assert rr.tolist() == [0, 1, 0, 1]


def test_disaggregation_moves_kv_and_conserves_tokens():
    w = mixed_workload(n=200, rate=20)
    r = simulate(setup_8b(), w, slo=SLO(), disaggregation=Disaggregation(1, 2))
    assert r["pools"] == {"prefill": 1, "decode": 2}
    assert r["invariants"]["tokens_conserved"] and r["invariants"]["all_finished"]
    assert r["cost"]["gpus"] == 3
    slow = simulate(setup_8b(), w, slo=SLO(), disaggregation=Disaggregation(1, 2, link_bandwidth_bytes_per_s=1e8))
    assert slow["e2e_s"]["mean"] > r["e2e_s"]["mean"]  # a 0.1 GB/s link makes the KV transfer visible


def test_disaggregated_pools_may_run_their_own_tensor_parallelism():
    """A prefill pool of 2 replicas × TP 2 and a decode pool of 1 × TP 1 (Llama 3.1 8B, H100): 2·2 + 1·1 = 5 GPUs.
    The KV moves from TP 2 shards to one TP 1 GPU: the decode GPU receives the whole prompt's KV over its link.
    KV per token on one GPU at TP 1: K and V × 32 layers × 8 KV heads × 128 × 2 bytes (BF16) = 131,072 B; the link
    is one direction of NVLink 4, 900e9 / 2 = 450e9 B/s; a 1,000-token prompt moves in 10 µs + 1,000 · 131,072 /
    450e9 s = 301.27 µs. The same pools at one TP 1 move the same bytes (each prefill GPU holds the whole KV)."""
    w = from_trace([[0.1 * i, 1000, 50] for i in range(20)])
    split = Disaggregation(2, 1, prefill_tensor_parallel=2, decode_tensor_parallel=1)
    r = simulate(setup_8b(), w, slo=SLO(), disaggregation=split)
    assert r["cost"]["gpus"] == 5 and r["pools"] == {"prefill": 2, "decode": 1}
    assert r["invariants"]["tokens_conserved"] and r["invariants"]["all_finished"]
    per_token = 2 * 32 * 8 * 128 * 2
    assert r["kv_cache"]["bytes_per_token_per_gpu"] == per_token  # the decode pool's cache
    assert r["kv_transfer_s"]["mean"] == pytest.approx(10e-6 + 1000 * per_token / 450e9, rel=1e-12)
    # TP 2 prefill: each prompt's step is shorter than at TP 1, so its first token comes sooner
    narrow = simulate(setup_8b(), w, slo=SLO(), disaggregation=Disaggregation(2, 1))
    assert narrow["cost"]["gpus"] == 3
    assert r["ttft_s"]["mean"] < narrow["ttft_s"]["mean"]
    # a decode pool at TP 2 receives half the KV per GPU: 1,000 · 65,536 B over each of its two links
    wide = simulate(setup_8b(), w, slo=SLO(), disaggregation=Disaggregation(1, 1, prefill_tensor_parallel=2,
                                                                             decode_tensor_parallel=2))
    assert wide["kv_transfer_s"]["mean"] == pytest.approx(10e-6 + 1000 * per_token / 2 / 450e9, rel=1e-12)


def test_sessions_share_history_as_prefix():
    spec = WorkloadSpec(num_requests=60, arrival_rate_per_s=2, prompt=LengthDist("fixed", value=50),
                        output=LengthDist("fixed", value=20), session_turns=3)
    w = generate(spec, np.random.default_rng(0))
    assert len(w) == 60
    assert sorted(set(w.prompt_tokens.tolist())) == [50, 120, 190]  # 50; 50+20+50; 120+20+50
    assert (w.prefix_tokens == w.prompt_tokens).all()
    r = simulate(setup_8b(prefix_caching=True), w, slo=SLO())
    assert r["prefix_cache_hit_rate"] > 0.3


def test_bursty_arrivals_keep_the_mean_rate():
    rng = np.random.default_rng(0)
    for arrival in ("poisson", "gamma", "onoff"):
        spec = WorkloadSpec(num_requests=20_000, arrival_rate_per_s=10, arrival=arrival)
        t = generate(spec, rng).arrival_s
        assert len(t) / t[-1] == pytest.approx(10, rel=0.1), arrival


@pytest.mark.parametrize("cost", ["roofline", "python"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scheduling_decoders_as_a_block_when_the_budget_binds_changes_nothing(monkeypatch, cost, seed):
    """The shortcut for steps where the budget binds (D as a block, then the others in admission order) against the
    walk over every running request that it replaces: the same steps, times and preemptions."""
    spec = WorkloadSpec(num_requests=300, arrival_rate_per_s=40, prompt=LengthDist("lognormal", mean=300, sigma=0.8),
                        output=LengthDist("lognormal", mean=60, sigma=0.8))
    workload = generate(spec, np.random.default_rng(seed))
    step_cost = roofline_step_cost(MODELS["llama-3.1-8b"], GPUS["h100-sxm"]) if cost == "roofline" else tokens_cost
    config = {"max_num_seqs": 32, "max_num_batched_tokens": 256, "num_blocks": 400, "block_size": 16}

    def run_it():
        e = Engine(workload, SchedulerConfig(**config), step_cost)
        e.assign_all()
        e.advance()
        return e

    taken = []
    original = Engine._schedule_after_d

    def counted(self, *args):
        result = original(self, *args)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(Engine, "_schedule_after_d", counted)
    shortcut = run_it()
    assert sum(taken) > 10  # the shortcut had steps to take
    monkeypatch.setattr(Engine, "_schedule_after_d", lambda self, *args: None)
    walked = run_it()
    assert shortcut.series == walked.series
    assert np.array_equal(shortcut.finish_t, walked.finish_t) and np.array_equal(shortcut.preempted, walked.preempted)
