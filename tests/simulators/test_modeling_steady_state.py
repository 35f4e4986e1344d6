"""The replica's steady state (prefill interleaved with decode), shared by the throughput-latency curve and capacity."""

import pytest

from apps.simulators.modeling import load_gpus, load_models, plan_capacity, step_time, throughput_latency_curve
from apps.simulators.modeling.steady_state import PREFILL_TOKEN_BUDGET, steady_state

MODELS = load_models()
GPUS = load_gpus()


def test_steady_state_by_hand():
    # t_d = 20 ms at b = 100, c_p = 20 µs per prompt token, ISL = OSL = 1,000:
    # service per request S = 1,000 · 2e-5 + 1,000 · 0.02 / 100 = 0.02 + 0.2 = 0.22 s
    # requests/s = 1 / 0.22 = 4.5454…; output tokens/s = 1,000 / 0.22 = 4,545.45…
    # TPOT = 0.02 + 100 · 1,000 · 2e-5 / 1,000 = 0.022 s (= b / output tokens/s = 100 / 4,545.45)
    s = steady_state(0.02, 2e-5, 100, 1000, 1000)
    assert s.service_s == pytest.approx(0.22)
    assert s.requests_per_s == pytest.approx(1 / 0.22)
    assert s.output_tokens_per_s == pytest.approx(1000 / 0.22)
    assert s.tpot_s == pytest.approx(0.022)
    assert s.decode_step_s == 0.02 and s.prefill_s_per_token == 2e-5


def test_without_prefill_work_it_is_the_decode_only_curve():
    # ISL → 0: output tokens/s = b / t_d and TPOT = t_d (what the curve reported before it counted prefill)
    s = steady_state(0.02, 2e-5, 100, 1e-9, 1000)
    assert s.output_tokens_per_s == pytest.approx(100 / 0.02) and s.tpot_s == pytest.approx(0.02)


def test_curve_point_from_the_decode_and_prefill_step_times():
    m, g = MODELS["llama-3.1-8b"], GPUS["h100-sxm"]
    c = throughput_latency_curve(m, g, prompt_tokens=1000, output_tokens=1000)
    assert list(c.batch[:5]) == [1, 2, 4, 8, 16]
    # b = 8: decode step at the mean context 1,000 + 1,000/2 = 1,500 tokens
    t_d = step_time(m, g, batch=8, context_tokens=1500).step_time_s
    # prefill: one step of the 8,192-token budget holds ceil(8,192 / 1,000) = 9 whole prompts = 9,000 tokens
    assert PREFILL_TOKEN_BUDGET == 8192
    t_pf = step_time(m, g, batch=9, context_tokens=0, new_tokens=1000).step_time_s
    c_p = t_pf / 9000
    # output tokens/s = OSL · b / (OSL · t_d + b · ISL · c_p); TPOT = t_d + b · ISL · c_p / OSL
    expected_tps = 1000 * 8 / (1000 * t_d + 8 * 1000 * c_p)
    expected_tpot = t_d + 8 * 1000 * c_p / 1000
    assert c.tokens_per_s[3] == pytest.approx(expected_tps, rel=1e-9)
    assert c.tpot_s[3] == pytest.approx(expected_tpot, rel=1e-9)
    assert c.decode_step_s[3] == pytest.approx(t_d, rel=1e-12)
    assert c.prefill_s_per_token == pytest.approx(c_p, rel=1e-9)
    # the decode-only figure b / t_d overstates the replica by 1 + b · ISL · c_p / (OSL · t_d)
    assert 8 / t_d / c.tokens_per_s[3] == pytest.approx(1 + 8 * 1000 * c_p / (1000 * t_d), rel=1e-9)
    # ranges: optimistic decode with optimistic prefill, pessimistic with pessimistic
    lo, hi = c.tokens_per_s_range[0][3], c.tokens_per_s_range[1][3]
    assert lo < c.tokens_per_s[3] < hi and c.tpot_s_range[0][3] < c.tpot_s[3] < c.tpot_s_range[1][3]


@pytest.mark.parametrize("batch_index", [4, -1])  # b = 16 (set by the TPOT SLO) and the memory limit
def test_curve_equals_capacity_at_the_same_batch(batch_index):
    m, g = MODELS["llama-3.1-8b"], GPUS["h100-sxm"]
    c = throughput_latency_curve(m, g, prompt_tokens=1000, output_tokens=1000)
    b, t_d = int(c.batch[batch_index]), float(c.decode_step_s[batch_index])
    c_p = float(c.prefill_s_per_token)
    # A loose TTFT (60 s) leaves the utilization at its cap, ρ = 0.9. A sequence then sees the decode step stretched
    # by the prefills of arriving requests, a share ρ · ISL · c_p / S of the replica's time (S = ISL · c_p +
    # OSL · t_d / b): TPOT = t_d / (1 − ρ · ISL · c_p / S), which grows with b. Capacity runs the largest batch whose
    # TPOT meets the SLO: an SLO of exactly TPOT(b) picks b, a loose one the memory limit (the same memory.fit at
    # 1,000 + 1,000 tokens).
    service = 1000 * c_p + 1000 * t_d / b
    seen = t_d / (1 - 0.9 * 1000 * c_p / service)
    slo = seen * (1 + 1e-9) if batch_index != -1 else 10.0
    p = plan_capacity(m, g, requests_per_s=1.0, prompt_tokens=1000, output_tokens=1000, ttft_p99_s=60.0,
                      tpot_s=slo, tp=1)
    assert p.feasible and p.utilization == 0.9
    assert p.batch_per_replica == b and p.tpot_s == pytest.approx(seen, rel=1e-12)
    # at ρ = 1 the same formula is the curve's TPOT at b: t_d / (1 − ISL · c_p / S) = t_d + b · ISL · c_p / OSL
    assert t_d / (1 - 1000 * c_p / service) == pytest.approx(float(c.tpot_s[batch_index]), rel=1e-9)
    assert t_d < p.tpot_s < float(c.tpot_s[batch_index])
    # capacity serves ρ · μ requests/s per replica; μ · OSL is the replica's output tokens/s at full load
    mu = p.requests_per_s_per_replica / p.utilization
    assert mu * 1000 == pytest.approx(c.tokens_per_s[batch_index], rel=1e-9)
