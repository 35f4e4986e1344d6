"""fixtures/serving-measurements.yaml, the ground truth of benchmarks/calibration.py: every setup names a catalog model
and GPU, a deployment the models accept, a source pinned to a commit, and sane rows."""

import yaml

from apps.core.content import FIXTURES_DIR
from apps.simulators.modeling import load_gpus, load_models
from apps.simulators.modeling.memory import tp_is_valid
from apps.simulators.modeling.parallel import parallelism
from apps.simulators.modeling.specs import DTYPE_BYTES


def test_every_measurement_is_traceable_and_runs_on_the_catalog():
    models, gpus = load_models(), load_gpus()
    setups = yaml.safe_load((FIXTURES_DIR / "serving-measurements.yaml").read_text())
    assert len({s["setup"] for s in setups}) == len(setups) >= 8
    for s in setups:
        assert s["model"] in models and s["gpu"] in gpus, s["setup"]
        assert tp_is_valid(models[s["model"]], s["tensor_parallel"]), s["setup"]
        # data-parallel attention with expert parallelism (TensorRT-LLM's DEP) must be a layout the models accept
        parallelism(models[s["model"]], tp=s["tensor_parallel"], dp=s.get("data_parallel", 1),
                    ep=s.get("expert_parallel", 1))
        assert s.get("metric", "output_tokens_per_s") in ("output_tokens_per_s", "output_tokens_per_s_per_gpu")
        assert s["weight_dtype"] in DTYPE_BYTES and s["kv_dtype"] in DTYPE_BYTES, s["setup"]
        assert s["source"].startswith("https://github.com/") and "/blob/" in s["source"], s["setup"]
        rows = s["results"]
        assert len({(isl, osl) for isl, osl, _ in rows}) == len(rows) > 0, s["setup"]
        # lengths are whole tokens; throughput as the table prints it (TensorRT-LLM v0.14.0's has decimals)
        assert all(isinstance(n, int) and n > 0 for isl, osl, _ in rows for n in (isl, osl)), s["setup"]
        assert all(isinstance(v, int | float) and v > 0 for _, _, v in rows), s["setup"]
        # TensorRT-LLM admits a request only when its full length fits (GUARANTEED_NO_EVICT, its default)
        assert s.get("kv_admission") == "full_length", s["setup"]
        # the dataset's requests per ISL/OSL, where the source gives them: one positive count for every row
        requests = s.get("num_requests", {})
        assert not requests or all(isinstance(requests.get(f"{isl}/{osl}"), int) and requests[f"{isl}/{osl}"] > 0
                                   for isl, osl, _ in rows), s["setup"]


def test_the_external_measurements_are_other_sources_with_a_known_mode_and_metric():
    """fixtures/serving-measurements-external.yaml: the held-out sources of calibration.py (not TensorRT-LLM's tables,
    not MLPerf), each row quoted from its page."""
    from tests.courses.test_fixture_sources import checkable

    models, gpus = load_models(), load_gpus()
    setups = yaml.safe_load((FIXTURES_DIR / "serving-measurements-external.yaml").read_text())
    assert len({s["setup"] for s in setups}) == len(setups)
    assert sum(len(s["results"]) for s in setups) >= 40 and len({s["publisher"] for s in setups}) >= 4
    metrics = {"output_tokens_per_s", "total_tokens_per_s", "requests_per_s", "tpot_ms", "itl_ms", "ttft_ms",
               "e2e_latency_ms"}
    for s in setups:
        assert s["publisher"] != "tensorrt-llm" and "mlperf" not in s["publisher"].lower(), s["setup"]
        assert s["model"] in models and s["gpu"] in gpus and tp_is_valid(models[s["model"]], s["tensor_parallel"])
        assert s["mode"] in ("offline", "concurrency", "rate", "single") and s["metric"] in metrics, s["setup"]
        assert s["mode"] != "concurrency" or s["concurrency"] >= 1, s["setup"]
        assert checkable(s["source"]) and s["quote"].strip(), s["setup"]
        assert all(v > 0 for row in s["results"] for v in row), s["setup"]


def test_sglang_runs_with_dp_attention_are_recorded_as_the_layout_sglang_builds():
    """SGLang's --enable-dp-attention sets dp_size = tp_size (server_args.py, ServerArgs.__post_init__): attention runs
    on --tp data-parallel ranks of TP 1 and, without --enable-ep-moe, each expert is split over all of them. A setup
    launched that way is recorded as TP 1 × DP --tp, not as TP --tp, and is a layout the models accept."""
    import re

    models = load_models()
    setups = yaml.safe_load((FIXTURES_DIR / "serving-measurements-external.yaml").read_text())
    launched = [s for s in setups if "sglang.launch_server" in s["engine"] and "--enable-dp-attention" in s["engine"]]
    assert len(launched) == 18
    for s in launched:
        tp = int(re.search(r"--tp (\d+)", s["engine"]).group(1))
        ep = tp if "--enable-ep-moe" in s["engine"] else 1
        assert (s["tensor_parallel"], s.get("data_parallel", 1), s.get("expert_parallel", 1)) == (1, tp, ep), s["setup"]
        parallelism(models[s["model"]], tp=1, dp=tp, ep=ep)
