"""benchmarks/calibration.py's bound on what any range could do: the narrowest interval of measured/expected ratios
holding a share of them, and the most ratios one interval of a given width holds. Figures derived by hand below."""


import pytest

from benchmarks import calibration

# Eight ratios. Sorted: 0.25, 0.5, 0.9, 1.0, 1.1, 1.2, 1.6, 3.0.
RATIOS = [1.0, 0.5, 3.0, 1.1, 0.9, 1.6, 0.25, 1.2]


def test_the_narrowest_cover_of_three_quarters_is_the_tightest_run_of_six_sorted_ratios():
    # 75 % of 8 = 6 consecutive sorted ratios; the three runs and their high/low:
    #   0.25..1.2 = 4.8x, 0.5..1.6 = 3.2x, 0.9..3.0 = 3.33x  -> 0.5..1.6 is the narrowest.
    assert calibration.narrowest_cover(RATIOS, 0.75) == pytest.approx((0.5, 1.6))


def test_a_share_that_is_not_a_whole_count_rounds_up():
    # 60 % of 8 = 4.8 -> 5 ratios: 0.25..1.1 = 4.4x, 0.5..1.2 = 2.4x, 0.9..1.6 = 1.78x, 1.0..3.0 = 3x.
    assert calibration.narrowest_cover(RATIOS, 0.6) == pytest.approx((0.9, 1.6))


def test_the_most_ratios_a_1_7x_interval_holds():
    # Interval starting at each sorted ratio x, up to 1.7x: 0.25 -> {0.25} (to 0.425); 0.5 -> {0.5} (to 0.85);
    # 0.9 -> {0.9, 1.0, 1.1, 1.2} (to 1.53); 1.0 -> {1.0, 1.1, 1.2, 1.6} (to 1.7, 1.6 inside); 1.1 -> {1.1, 1.2, 1.6};
    # the most is 4.
    assert calibration.most_within(RATIOS, 1.7) == 4
    # 2x from 0.5 reaches 1.0: {0.5, 0.9, 1.0}; from 0.9 reaches 1.8: {0.9, 1.0, 1.1, 1.2, 1.6} = 5.
    assert calibration.most_within(RATIOS, 2.0) == 5


def test_an_expert_is_split_over_tp_unless_experts_are_spread_by_ep():
    row = calibration.Row("test", "t", "deepseek-v3", "h200", 8, "fp8", "fp8", "offline", None, 0.9,
                          "output_tokens_per_s", 1000.0, 1000.0, 1.0)
    # DeepSeek-V3's moe_intermediate_size is 2048 (config.json): 2048 / TP 8 = 256 columns per GPU.
    assert calibration.expert_shard_width(row) == 256
    ep = calibration.Row("test", "t", "deepseek-v3", "h200", 1, "fp8", "fp8", "offline", None, 0.9,
                         "output_tokens_per_s", 1000.0, 1000.0, 1.0, dp=8, ep=8)
    assert calibration.expert_shard_width(ep) == 2048
    # SGLang's --enable-dp-attention without EP: 8 attention ranks of TP 1, each expert split over the 8 GPUs
    dp_attention = calibration.Row("test", "t", "deepseek-v3", "h200", 1, "fp8", "fp8", "concurrency", 128, 0.81,
                                   "output_tokens_per_s", 3200.0, 800.0, 1.0, dp=8)
    assert calibration.expert_shard_width(dp_attention) == 256


def test_a_fixed_concurrency_is_spread_over_the_dp_ranks():
    """128 requests in flight on 8 DP attention ranks are 16 per rank (the KV cache holds more: each rank keeps its
    own sequences' latent cache), and the deployment's output counts all 8 ranks."""
    row = calibration.Row("test", "t", "deepseek-v3", "h200", 1, "fp8", "bf16", "concurrency", 128, 0.81,
                          "output_tokens_per_s", 3200.0, 800.0, 1.0, dp=8)
    assert calibration.decode_batch(row) == 16
    single_rank = calibration.Row("test", "t", "deepseek-v3", "h200", 8, "fp8", "bf16", "concurrency", 16, 0.81,
                                  "output_tokens_per_s", 3200.0, 800.0, 1.0)
    assert calibration.decode_batch(single_rank) == 16
