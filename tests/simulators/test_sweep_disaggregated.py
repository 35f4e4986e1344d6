"""Sweeps over prefill/decode-disaggregated layouts, held to a GPU or $/hour budget: the grid's P/D points, the
points over budget that never run, the engine's P/D figures, and a recommendation that says which layout wins and
why, against the best of the other kind."""

import pytest
from api_helpers import load_real_catalog
from test_sweeps_api import URL, no_send, sweep_body  # noqa: F401 (fixtures)

from apps.simulators import sweeps
from apps.simulators.engine.grid import grid_point, grid_points, grid_size, layout_gpus, point_params

pytestmark = pytest.mark.django_db

# Llama-3.1-70B on up to 8 H200s, long prompts at a high rate and a TPOT SLO of 45 ms: colocated, every prompt's
# prefill steps slow the decodes sharing them, so p99 TPOT is 55-120 ms on every 8-GPU colocated layout (seeds 0-2);
# with 3 prefill + 1 decode replicas × TP 2 the decodes run alone (p99 TPOT about 32 ms) and the prompts are spread
# over 3 prefill replicas (p99 TTFT 2.0-2.5 s, within the 4 s SLO).
PD_WORKLOAD = {"num_requests": 60, "arrival_rate_per_s": 2.5, "prompt_tokens": 8000, "output_tokens": 200}
PD_BODY = {"model": "llama-3.1-70b", "gpu": "h200", "seed": 1, "workload": PD_WORKLOAD,
           "slo": {"ttft_s": 4.0, "tpot_s": 0.045}, "max_gpus": 8,
           "grid": {"tensor_parallel": [2, 4, 8], "replicas": [1, 2, 4], "prefill_replicas": [1, 3],
                    "decode_replicas": [1]}}


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


# ---------------------------------------------------------------- the grid

def test_a_pd_grid_is_its_colocated_points_then_its_disaggregated_ones():
    grid = {"tensor_parallel": [2, 4], "replicas": [1, 2], "prefill_replicas": [1, 3], "decode_replicas": [1],
            "kv_transfer": ["nvlink", "rdma"]}
    points = grid_points(grid)
    # 2 TP × 2 replicas colocated (no P/D knobs), then 2 TP × 2 prefill × 1 decode × 2 links (no `replicas`)
    assert grid_size(grid) == len(points) == 4 + 8
    assert points[0] == {"tensor_parallel": 2, "replicas": 1}
    assert points[4] == {"tensor_parallel": 2, "prefill_replicas": 1, "decode_replicas": 1, "kv_transfer": "nvlink"}
    assert points[-1] == {"tensor_parallel": 4, "prefill_replicas": 3, "decode_replicas": 1, "kv_transfer": "rdma"}
    assert [grid_point(grid, i) for i in range(len(points))] == points
    rdma = point_params({"model": "m", "grid": grid}, points[-1])
    # 400 Gb/s NDR = 50 GB/s per GPU; 400 µs fixed per transfer (Mooncake's vLLM v1 benchmark: 20 MB in 0.54 ms and
    # 290 MB in 2.51 ms → 270 MB / 1.97 ms = 137 GB/s, 0.54 − 0.146 = 0.39 ms); NVLink leaves the GPU's own figure
    assert rdma["disaggregation"] == {"prefill_replicas": 3, "decode_replicas": 1, "kv_transfer": "rdma",
                                      "link_bandwidth_gb_per_s": 50.0, "link_latency_us": 400.0}
    assert "link_bandwidth_gb_per_s" not in point_params({"grid": grid}, points[4])["disaggregation"]


def test_each_pool_may_have_its_own_tensor_parallelism_in_a_grid():
    grid = {"tensor_parallel": [2], "replicas": [1], "prefill_replicas": [2], "decode_replicas": [1, 2],
            "prefill_tensor_parallel": [4], "decode_tensor_parallel": [1, 2]}
    points = grid_points(grid)
    # 1 colocated point (the pools' TPs are P/D knobs), then 1 prefill × 2 decode × 1 × 2 pool-TP choices
    assert grid_size(grid) == len(points) == 1 + 4
    assert points[0] == {"tensor_parallel": 2, "replicas": 1}
    params = point_params({"model": "m", "grid": grid}, points[1])
    assert params["disaggregation"] == {"prefill_replicas": 2, "decode_replicas": 1, "kv_transfer": "nvlink",
                                        "link_latency_us": 10.0, "prefill_tensor_parallel": 4,
                                        "decode_tensor_parallel": 1}
    # 2 prefill replicas × TP 4 + 1 decode replica × TP 1 = 9 GPUs, not (2 + 1) × the point's TP 2
    assert layout_gpus(params) == 9
    assert sweeps.point_layout_words(params) == "2 prefill × TP 4 + 1 decode × TP 1 replicas (9 GPUs, KV over NVLink)"
    same = point_params({"model": "m", "grid": grid}, points[4])  # 2 + 2 replicas, prefill TP 4, decode TP 2
    assert layout_gpus(same) == 2 * 4 + 2 * 2


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize(("change", "field", "words"), [
    ({"grid": {"tensor_parallel": [1], "pd": [1], "budget": [2]}}, "grid", "Unknown knob"),
    ({"grid": {"prefill_replicas": [1, 2]}}, "grid", "needs both prefill_replicas and decode_replicas"),
    ({"grid": {"tensor_parallel": [1], "kv_transfer": ["rdma"]}}, "grid", "disaggregated layouts only"),
    ({"grid": {"tensor_parallel": [1], "decode_tensor_parallel": [1]}}, "grid.decode_tensor_parallel",
     "disaggregated layouts only"),
    ({"grid": {"prefill_replicas": [1], "decode_replicas": [1], "prefill_tensor_parallel": [3]}},
     "grid.prefill_tensor_parallel", "not a valid choice"),
    ({"grid": {"prefill_replicas": [1], "decode_replicas": [1], "kv_transfer": ["pigeon"]}}, "grid", "pigeon"),
    ({"max_gpus": 0}, "max_gpus", "greater than or equal to 1"),
    ({"max_usd_per_hour": 0}, "max_usd_per_hour", "more than 0"),
    ({"max_usd_per_hour": -5}, "max_usd_per_hour", "greater than or equal to 0"),
])
@pytest.mark.usefixtures("no_send")
def test_bad_pd_knobs_and_budgets_are_400_naming_them(learner_client, change, field, words):
    r = learner_client.post(URL, sweep_body(**change), format="json")
    assert r.status_code == 400, r.json()
    fields = r.json()["fields"]
    assert any(key.startswith(field) and any(words in m for m in msgs) for key, msgs in fields.items()), fields
    if "pd" in change.get("grid", {}):  # every unknown knob is named, not only the first
        assert {"grid.pd", "grid.budget"} <= set(fields), fields


# ---------------------------------------------------------------- budgets

def test_max_gpus_excludes_the_bigger_layouts(learner_client, eager, django_capture_on_commit_callbacks):
    # llama-3.1-8b on H100s: TP 1/2 × 1/2/4 replicas = 1, 2, 4, 2, 4, 8 GPUs; a budget of 4 leaves out TP 2 × 4
    body = sweep_body(grid={"tensor_parallel": [1, 2], "replicas": [1, 2, 4]}, max_gpus=4)
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, body, format="json")
    assert r.status_code == 202, r.json()
    job = learner_client.get(f"{URL}{r.json()['id']}/").json()
    assert job["status"] == "succeeded"
    assert job["screen"]["excluded"] == 1
    over = [p for p in job["results"] if p["metrics"].get("excluded")]
    assert [p["params"] for p in over] == [{"tensor_parallel": 2, "replicas": 4}]
    assert over[0]["metrics"]["error"] == "max_gpus: 4 replicas × TP 2 (8 GPUs) is 8 GPUs, over the budget of 4"
    ran = [p for p in job["results"] if p["metrics"]["feasible"]]
    assert len(ran) == 5 and max(p["metrics"]["gpus"] for p in ran) == 4
    assert job["pareto"] and all(p["gpus"] <= 4 for p in job["pareto"])
    assert job["recommendation"]["metrics"]["gpus"] <= 4


@pytest.mark.usefixtures("no_send")
def test_max_usd_per_hour_leaves_out_what_costs_more(learner_client):
    from apps.simulators.models import GPU
    price = GPU.objects.get(slug="h100-sxm").price_per_hour_usd
    body = sweep_body(grid={"tensor_parallel": [1, 2], "replicas": [1, 2, 4]}, max_usd_per_hour=2.5 * price)
    r = learner_client.post(URL, body, format="json")
    assert r.status_code == 202, r.json()
    job = learner_client.get(f"{URL}{r.json()['id']}/").json()
    # 4 and 8 GPUs cost more than 2.5 GPUs' worth: TP 1 × 4, TP 2 × 2, TP 2 × 4
    assert job["screen"]["excluded"] == 3
    assert job["screen"]["excluded_example"].startswith("max_usd_per_hour: 4 replicas × TP 1 (4 GPUs) costs $")


@pytest.mark.usefixtures("no_send")
def test_two_stage_screens_the_colocated_points_and_simulates_every_pd_point_in_budget(learner_client):
    # 8 TP/batch combinations × 4 replica counts colocated = 32, then 8 × (2 × 2) P/D = 32: 64 points
    grid = {"tensor_parallel": [1, 2], "max_num_seqs": [8, 16, 32, 64], "replicas": [1, 2, 3, 4],
            "prefill_replicas": [1, 2], "decode_replicas": [1, 15]}
    r = learner_client.post(URL, sweep_body(grid=grid, max_gpus=6), format="json")
    assert r.status_code == 202, r.json()
    job = sweeps.SweepJob.objects.get(id=r.json()["id"])
    points = grid_points(job.request["grid"])
    pd = [i for i, p in enumerate(points) if "prefill_replicas" in p]
    assert len(points) == 64 and pd == list(range(32, 64))
    # over 6 GPUs: TP 2 × 4 replicas (4 batch limits: 4 colocated points) and every P/D point with 15 decode
    # replicas (16 GPUs or more; with 2 prefill replicas also past the 16-replica limit: 16 points), so 20 excluded;
    # TP 2 × (2 + 1) is 6 GPUs and stays
    excluded = sweeps.excluded_points(job.user, job.request)
    assert len(excluded) == job.screen["excluded"] == 20
    assert excluded[pd[-1]].startswith("prefill_replicas: 2 prefill + 15 decode replicas; at most 16")
    in_budget_pd = [i for i in pd if i not in excluded]
    assert job.screen["disaggregated"] == len(in_budget_pd) == 16
    assert set(in_budget_pd) <= set(job.screen["candidates"])
    assert not set(excluded) & set(job.screen["candidates"])
    assert set(job.screen["points"]) == {str(i) for i in job.screen["candidates"] if i < 32}  # the screen's only
    assert job.total_points == len(job.screen["candidates"])


# ---------------------------------------------------------------- a P/D sweep, run by the engine

@pytest.fixture
def pd_job(learner_client, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, PD_BODY, format="json")
    assert r.status_code == 202, r.json()
    return learner_client.get(f"{URL}{r.json()['id']}/").json()


def test_a_disaggregated_grid_returns_pd_points_with_the_engines_pd_figures(pd_job):
    job = pd_job
    assert job["status"] == "succeeded"
    # 9 colocated + 6 P/D = 15 points, all simulated (≤ 16); over 8 GPUs: TP 4 × 4, TP 8 × 2 and × 4, and the P/D
    # layouts 3 + 1 × TP 4, 1 + 1 and 3 + 1 × TP 8
    assert (job["total_points"], job["screen"]["excluded"], job["screen"]["disaggregated"]) == (15, 6, 3)
    pd = {(p["params"]["tensor_parallel"], p["params"]["prefill_replicas"]): p for p in job["results"]
          if "prefill_replicas" in p["params"] and not p["metrics"].get("excluded")}
    assert set(pd) == {(2, 1), (2, 3), (4, 1)}
    m = pd[(2, 3)]["metrics"]
    assert m["gpus"] == 8
    assert m["pools"]["prefill"]["replicas"] == 3 and m["pools"]["decode"]["replicas"] == 1
    assert 0 < m["pools"]["prefill"]["busy_fraction"] <= 1 and 0 < m["pools"]["decode"]["busy_fraction"] <= 1
    # KV of 8,000 tokens on one of 2 TP ranks (80 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes / 2 = 160 KiB a
    # token: 1.31 GB) over NVLink at 450 GB/s: 2.9 ms plus 10 µs
    assert m["kv_transfer_s"]["mean"] == pytest.approx(8000 * 163840 / 450e9 + 10e-6, rel=0.01)


def test_the_recommendation_names_the_winning_pd_layout_and_why_colocated_loses(pd_job):
    rec = pd_job["recommendation"]
    assert rec["disaggregated"] is True
    assert rec["layout"] == "3 prefill + 1 decode replicas × TP 2 (8 GPUs, KV over NVLink)"
    assert (rec["params"]["prefill_replicas"], rec["params"]["decode_replicas"]) == (3, 1)
    assert rec["replicas"] == 4
    assert "--kv-transfer-config" in rec["command"] and "--tensor-parallel-size 2" in rec["command"]
    colocated = rec["compared"]["colocated"]
    assert colocated["meets_slo"] is False and colocated["gpus"] <= 8
    assert colocated["tpot_p99_s"] > 0.045 > rec["metrics"]["tpot_s"]["p99"]
    assert "prefill interference" in colocated["why"]
    assert rec["compared"]["disaggregated"]["index"] == rec["index"]
    assert rec["reason"].startswith("Cheapest configuration meeting the SLO")
    assert "on 3 prefill + 1 decode replicas × TP 2 (8 GPUs, KV over NVLink) on NVIDIA H200" in rec["reason"]
    assert f"The best colocated layout, {colocated['layout']}, misses: p99 TPOT" in rec["reason"]
    # the frontier holds only points within the budget and names their layouts
    assert pd_job["pareto"][0]["index"] == rec["index"]
    assert pd_job["pareto"][0]["disaggregated"] is True
    assert all(p["gpus"] <= 8 for p in pd_job["pareto"])
