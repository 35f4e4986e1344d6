"""benchmarks/calibration.py fits only the family/dtype groups the product fits (roofline.FITTED_PRIORS), so its
held-out score is the endpoints' own: Hopper BF16 rows take Hopper FP8's fit in every fold, as prior_basis gives them.
The reason the product gives for not fitting Hopper BF16 is checked against the fixture it cites."""

from apps.simulators.modeling import load_gpus
from apps.simulators.modeling.roofline import DERIVED_PRIORS, FITTED_PRIORS, prior_basis
from benchmarks import calibration

ROWS = calibration.load_rows()


def _gpustack_qwen(gpu: str) -> dict[tuple[float, float], float]:
    return {(r.isl, r.osl): r.measured for r in ROWS if r.publisher == "gpustack-docs" and r.model == "qwen3-32b"
            and r.gpu == gpu and r.metric == "total_tokens_per_s"}


def test_hopper_bf16_rows_are_not_fitted_and_take_hopper_fp8s_fit_as_the_endpoints_do():
    nim = [r for r in ROWS if r.publisher == "nvidia-nim"]            # Hopper FP8 (Llama 3.3 70B FP8 on H100)
    gpustack_h100 = [r for r in ROWS if r.publisher == "gpustack-docs" and r.gpu == "h100-sxm"]  # Hopper BF16
    assert {r.group for r in nim} == {("hopper", "fp8")} and {r.group for r in gpustack_h100} == {("hopper", "bf16")}
    assert ("hopper", "bf16") not in FITTED_PRIORS and DERIVED_PRIORS["hopper", "bf16"][0] == ("hopper", "fp8")

    fitted = calibration.fits_on(nim + gpustack_h100)

    assert set(fitted) == {("hopper", "fp8")}
    fp8 = fitted["hopper", "fp8"]
    assert fp8.basis.startswith("fitted on 9 hopper fp8 rows")  # the five GPUStack rows did not join its fit
    got = calibration.priors_of(gpustack_h100[0], fitted)
    assert got.priors is fp8.priors and (got.low, got.high) == (fp8.low, fp8.high)
    assert got.basis == "borrowed from hopper fp8"
    # the product gives the same deployment the installed Hopper FP8 fit
    assert prior_basis(load_gpus()["h100-sxm"], "bf16")[0] is FITTED_PRIORS["hopper", "fp8"]


def test_the_reason_hopper_bf16_is_not_fitted_holds_on_the_fixture():
    gpus = load_gpus()
    h100, a100 = _gpustack_qwen("h100-sxm"), _gpustack_qwen("a100-80gb")
    assert set(h100) == set(a100) == {(4000.0, 200.0), (2000.0, 100.0), (128.0, 4.0)}
    # 2148.69 / 1837.08 = 1.170 (4000/200), 3195.3 / 2521.38 = 1.267 (2000/100), 4005.62 / 2656.71 = 1.508 (128/4)
    ratios = sorted(h100[k] / a100[k] for k in h100)
    peak = gpus["h100-sxm"].bf16_dense_flops / gpus["a100-80gb"].bf16_dense_flops               # 989.4 / 312
    bandwidth = gpus["h100-sxm"].hbm_bandwidth_bytes_per_s / gpus["a100-80gb"].hbm_bandwidth_bytes_per_s  # 3.35 / 2.039
    assert (round(ratios[0], 2), round(ratios[-1], 2), round(peak, 2), round(bandwidth, 2)) == (1.17, 1.51, 3.17, 1.64)
    reason = DERIVED_PRIORS["hopper", "bf16"][1]
    assert "1.17-1.51x" in reason and "3.17x" in reason and "1.64x" in reason
    assert ratios[-1] < bandwidth  # slower than the bandwidth ratio alone on every length, the prefill-heaviest too
