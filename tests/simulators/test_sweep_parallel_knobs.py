"""pipeline_parallel, data_parallel and expert_parallel as sweep grid knobs: validated value by value, checked point by
point (a layout vLLM refuses is an infeasible point with the reason, in the screen and in the engine alike), and the
recommendation writes the chosen layout into its `vllm serve` command.

Hand derivation for Mixtral 8x7B (8 routed experts) in FP8 on H200 over tensor_parallel [1, 2] × data_parallel [1, 2]
× expert_parallel [1, 2, 4] (index = 6 · tp_i + 3 · dp_i + ep_i, the last knob fastest): EP must be 1 or TP · DP
(and divide 8), so the valid layouts are every EP 1, EP 2 at (TP 1, DP 2) and (TP 2, DP 1), and EP 4 at (TP 2, DP 2);
the other five — indices 1, 2 (TP · DP = 1), 5, 8 (TP · DP = 2 with EP 4) and 10 (TP · DP = 4 with EP 2) — are
refused. Mixtral's 46.7e9 parameters in FP8 take about 47 GB of an H200's 141 GB, so every valid layout fits."""

import pytest
from api_helpers import load_real_catalog

from apps.simulators.api.inputs import SweepGrid, SweepInput
from apps.simulators.engine.grid import grid_points, point_params
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.screen import screen_points
from apps.simulators.modeling import ModelInputError, load_gpus, load_models, parallelism
from apps.simulators.simulation import point_compute, workload_build

pytestmark = pytest.mark.django_db
URL = "/api/v1/simulators/sweeps/"
SMALL = {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 300, "output_tokens": 20}
BASE = {"model": "mixtral-8x7b", "gpu": "h200", "weight_dtype": "fp8", "kv_dtype": "fp8", "seed": 1,
        "workload": SMALL, "slo": {"ttft_s": 5.0, "tpot_s": 0.5}}
GRID = {"tensor_parallel": [1, 2], "data_parallel": [1, 2], "expert_parallel": [1, 2, 4]}
REFUSED = [1, 2, 5, 8, 10]


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def refusal(model, point: dict) -> str:
    with pytest.raises(ModelInputError) as refused:
        parallelism(model, tp=point["tensor_parallel"], dp=point["data_parallel"], ep=point["expert_parallel"])
    return f"{refused.value.field}: {refused.value.message}"


def test_the_screen_refuses_the_layouts_vllm_refuses_with_the_reason():
    model, gpus = load_models()["mixtral-8x7b"], load_gpus()
    values = grid_points(GRID)
    assert [(v["tensor_parallel"], v["data_parallel"], v["expert_parallel"]) for v in values][:3] == [
        (1, 1, 1), (1, 1, 2), (1, 1, 4)]
    points = [point_params(BASE, v) for v in values]
    screen = screen_points(model, {"h200": gpus["h200"]}, points, workload_build(workload=SMALL, seed=1), SLO())
    assert [i for i in range(12) if not screen.feasible[i]] == REFUSED
    for i in REFUSED:
        assert screen.error[i] == refusal(model, values[i])
    assert screen.error[1].startswith("expert_parallel: ") and "= 1 × 1 = 1" in screen.error[1]
    assert "= 2 × 2 = 4" in screen.error[10]


def test_the_engine_refuses_a_bad_grid_layout_with_the_same_words(learner_client):
    model = load_models()["mixtral-8x7b"]
    point = {"tensor_parallel": 2, "data_parallel": 1, "expert_parallel": 4}
    metrics, meets = point_compute(user=learner_client.user, request={**BASE, "grid": GRID}, grid_values=point)
    assert (metrics, meets) == ({"feasible": False, "error": refusal(model, point)}, False)
    # 8 experts: an EP of 3 would not divide them (TP 1 × DP 3)
    odd = {"tensor_parallel": 1, "data_parallel": 3, "expert_parallel": 3}
    metrics, _ = point_compute(user=learner_client.user, request={**BASE, "grid": GRID}, grid_values=odd)
    assert metrics["error"] == refusal(model, odd) and "divide" in metrics["error"]


def test_a_sweep_over_layouts_recommends_a_command_with_its_layout(learner_client, eager,
                                                                   django_capture_on_commit_callbacks):
    grid = {"data_parallel": [1, 2], "expert_parallel": [1, 2]}  # (DP 1, EP 2) is refused: EP ≠ TP 1 × DP 1
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, {**BASE, "grid": grid}, format="json")
    assert r.status_code == 202, r.json()
    job = learner_client.get(f"{URL}{r.json()['id']}/").json()
    assert job["status"] == "succeeded"
    by_index = {p["index"]: p for p in job["results"]}
    assert by_index[1]["metrics"]["feasible"] is False
    assert by_index[1]["metrics"]["error"].startswith("expert_parallel: ")
    # a deployment of TP 1 × DP ranks costs DP GPUs
    assert [by_index[i]["metrics"]["gpus"] for i in (0, 2, 3)] == [1, 2, 2]
    rec = job["recommendation"]
    dp, ep = rec["params"]["data_parallel"], rec["params"]["expert_parallel"]
    assert ("--data-parallel-size 2" in rec["command"]) == (dp == 2)
    assert ("--enable-expert-parallel" in rec["command"]) == (ep == 2)
    assert all(f["why"] for f in rec["flags"])


@pytest.mark.parametrize(("grid", "field"), [
    ({"expert_parallel": [0]}, "grid.expert_parallel"),
    ({"expert_parallel": [True]}, "grid.expert_parallel"),
    ({"data_parallel": [1.5]}, "grid.data_parallel"),
    ({"data_parallel": [2, 2]}, "grid.data_parallel"),
    ({"data_parallel": [1025]}, "grid.data_parallel"),
    ({"pipeline_parallel": [65]}, "grid.pipeline_parallel"),
    ({"pipeline_parallel": ["2"]}, "grid.pipeline_parallel"),
])
def test_bad_parallel_knob_values_name_the_knob(learner_client, grid, field):
    r = learner_client.post(URL, {**BASE, "grid": grid}, format="json")
    assert r.status_code == 400 and field in r.json()["fields"], r.json()
    assert "Unknown knob" not in str(r.json()["fields"][field])  # a known knob, refused for its value


def test_the_schema_documents_the_parallel_knobs():
    fields = SweepGrid().fields
    assert {"pipeline_parallel", "data_parallel", "expert_parallel"} <= set(fields)
    assert "tensor_parallel × data_parallel" in fields["expert_parallel"].child.help_text
    assert "expert_parallel not 1 or tensor_parallel × data_parallel" in SweepInput().fields["grid"].help_text
