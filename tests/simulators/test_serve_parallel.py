"""The recommended `vllm serve` command and its Kubernetes YAML carry the parallel layout (TP, PP, DP, EP).

Derivations, from the layout rules in modeling/serve_config.py (8-GPU nodes, modeling.parallel.GPUS_PER_NODE):
a deployment takes TP · PP · DP GPUs; up to 8 they are one pod requesting all of them; past 8 they fill whole nodes
as a LeaderWorkerSet of 8-GPU pods, launched with --distributed-executor-backend ray (DP 1) or with
--data-parallel-size-local 8 / (TP · PP) and --data-parallel-backend ray (DP > 1). With EP each GPU holds
experts / (TP · DP) whole experts."""

import pytest
import yaml
from api_helpers import load_real_catalog, post

from apps.simulators.modeling import ModelInputError, load_gpus, load_models, vllm_serve_config
from apps.simulators.modeling import k8s_manifest as km

MODELS, GPUS = load_models(), load_gpus()
DSV3 = MODELS["deepseek-v3"]
FP8 = {"weight_dtype": "fp8", "kv_dtype": "fp8"}


def flag_values(r) -> dict:
    return {f["flag"]: f["value"] for f in r.flags}


def documents(r) -> list[dict]:
    return list(yaml.safe_load_all(r.kubernetes_yaml))


def gpus_of(pod: dict) -> tuple[str, str]:
    resources = pod["containers"][0]["resources"]
    return resources["requests"]["nvidia.com/gpu"], resources["limits"]["nvidia.com/gpu"]


def test_deepseek_v3_data_and_expert_parallel_on_one_node():
    r = vllm_serve_config(DSV3, GPUS["h200"], tp=1, dp=8, ep=8, **FP8)
    assert "--tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel --max-model-len" in r.command
    flags = flag_values(r)
    assert flags["--enable-expert-parallel"] is None and "--pipeline-parallel-size" not in flags
    assert "--data-parallel-backend" not in flags and "--distributed-executor-backend" not in flags
    # 256 routed experts / (TP 1 × DP 8) = 32 whole experts per GPU
    assert "8 GPUs 32 whole routed experts" in next(f["why"] for f in r.flags if f["flag"] == "--enable-expert-parallel")
    # 1 × 1 × 8 = 8 GPUs: one pod requesting (and limited to) all 8
    deployment = documents(r)[0]
    assert deployment["kind"] == "Deployment"
    assert gpus_of(deployment["spec"]["template"]["spec"]) == ("8", "8")
    assert km.check(r.kubernetes_yaml) == []
    assert "TP 1 × DP 8 × EP 8 = 8 GPUs" in r.derivation and "one pod with 8 GPUs" in r.derivation


def test_two_node_expert_parallel_deployment_is_a_leaderworkerset_of_data_parallel_ranks():
    r = vllm_serve_config(DSV3, GPUS["h100-sxm"], tp=2, dp=8, ep=16, **FP8)
    flags = flag_values(r)
    # 2 × 8 = 16 GPUs = 2 nodes of 8; a rank is 2 GPUs, so 8 / 2 = 4 ranks per node; 256 / 16 = 16 experts per GPU
    assert (flags["--tensor-parallel-size"], flags["--data-parallel-size"]) == (2, 8)
    assert (flags["--data-parallel-size-local"], flags["--data-parallel-backend"]) == (4, "ray")
    assert "16 GPUs 16 whole routed experts" in next(f["why"] for f in r.flags if f["flag"] == "--enable-expert-parallel")
    lws = documents(r)[0]
    assert (lws["kind"], lws["spec"]["leaderWorkerTemplate"]["size"]) == ("LeaderWorkerSet", 2)
    template = lws["spec"]["leaderWorkerTemplate"]
    assert gpus_of(template["leaderTemplate"]["spec"]) == gpus_of(template["workerTemplate"]["spec"]) == ("8", "8")
    leader = template["leaderTemplate"]["spec"]["containers"][0]["args"][0]
    assert '"--data-parallel-size-local" "4" "--data-parallel-backend" "ray"' in leader
    assert "--distributed-executor-backend" not in leader
    assert km.check(r.kubernetes_yaml) == []
    assert "a LeaderWorkerSet of 2 pods × 8 GPUs (needs the LeaderWorkerSet controller" in r.derivation
    assert "each data-parallel rank inside one node" in r.derivation  # the builder's limit, stated


def test_wide_expert_parallelism_over_32_gpus():
    r = vllm_serve_config(DSV3, GPUS["h200"], tp=1, dp=32, ep=32, **FP8)
    flags = flag_values(r)
    # 32 GPUs = 4 nodes of 8 ranks of 1 GPU; 256 / 32 = 8 experts per GPU
    assert (flags["--data-parallel-size"], flags["--data-parallel-size-local"]) == (32, 8)
    assert "32 GPUs 8 whole routed experts" in next(f["why"] for f in r.flags if f["flag"] == "--enable-expert-parallel")
    assert documents(r)[0]["spec"]["leaderWorkerTemplate"]["size"] == 4
    assert km.check(r.kubernetes_yaml) == []


def test_pipeline_parallel_over_two_nodes_uses_the_ray_executor_once():
    r = vllm_serve_config(MODELS["llama-3.1-70b"], GPUS["h100-sxm"], tp=8, pp=2)
    flags = flag_values(r)
    assert (flags["--tensor-parallel-size"], flags["--pipeline-parallel-size"]) == (8, 2)
    # 80 layers in 2 stages of 40
    assert "80 layers into 2 stages of about 40 layers" in next(
        f["why"] for f in r.flags if f["flag"] == "--pipeline-parallel-size")
    assert flags["--distributed-executor-backend"] == "ray" and "--data-parallel-size" not in flags
    lws = documents(r)[0]
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["args"][0]
    assert leader.count("--distributed-executor-backend") == 1  # the builder's own flag, not appended twice
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 2  # 8 × 2 = 16 GPUs
    assert km.check(r.kubernetes_yaml) == []


def test_dense_data_parallel_replicas_share_one_pod():
    r = vllm_serve_config(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], tp=2, dp=4)
    flags = flag_values(r)
    assert flags["--data-parallel-size"] == 4 and "--enable-expert-parallel" not in flags
    assert "MoE" not in next(f["why"] for f in r.flags if f["flag"] == "--data-parallel-size")
    assert gpus_of(documents(r)[0]["spec"]["template"]["spec"]) == ("8", "8")  # 2 × 4
    assert km.check(r.kubernetes_yaml) == []


def test_the_checker_counts_data_parallel_ranks():
    r = vllm_serve_config(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], tp=2, dp=4)
    edited = r.kubernetes_yaml.replace('"--data-parallel-size"\n            - "4"', '"--data-parallel-size"\n            - "2"')
    assert edited != r.kubernetes_yaml
    assert km.check(edited)[0].message.startswith(
        "--tensor-parallel-size 2 × --pipeline-parallel-size 1 × --data-parallel-size 2 = 4 GPUs, but the replica "
        "has 8")


@pytest.mark.parametrize("model, kw, field", [
    ("llama-3.1-70b", dict(tp=16, dp=2), "data_parallel"),     # a 16-GPU rank cannot sit in an 8-GPU node
    ("llama-3.1-70b", dict(tp=4, pp=3), "pipeline_parallel"),  # 12 GPUs span nodes without filling them
    ("llama-3.1-70b", dict(tp=4, dp=3), "data_parallel"),      # the same with data parallelism
    ("deepseek-v3", dict(tp=2, dp=2, ep=8), "expert_parallel"),  # EP ≠ TP · DP = 4
    ("llama-3.1-8b", dict(tp=1, dp=2, ep=2), "expert_parallel"),  # no experts
    ("llama-3.1-8b", dict(pp=0), "pipeline_parallel"),
    ("llama-3.1-8b", dict(pp=33), "pipeline_parallel"),        # 32 layers
])
def test_layouts_the_builder_refuses_name_the_field(model, kw, field):
    with pytest.raises(ModelInputError) as refused:
        vllm_serve_config(MODELS[model], GPUS["h100-sxm"], **kw)
    assert refused.value.field == field


# ---------------------------------------------------------------- the serve-config endpoint


@pytest.fixture
def catalog(db):
    return load_real_catalog()


def serve(client, status=200, **body):
    base = {"model": "llama-3.1-70b", "gpu": "h100-sxm", "workload": {"prompt_tokens": 2000, "output_tokens": 500}}
    return post(client, "serve-config", {**base, **body}, status)


def test_serve_config_takes_the_tp_that_expert_parallelism_implies(api_client, catalog):
    d = serve(api_client, model="deepseek-v3", gpu="h200", data_parallel=8, expert_parallel=8, **FP8)
    # EP = TP · DP: 8 = TP · 8, so TP 1; 8 GPUs in one pod
    assert (d["tensor_parallel"], d["pipeline_parallel"], d["data_parallel"], d["expert_parallel"], d["gpus"]) == (
        1, 1, 8, 8, 8)
    assert "--tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel" in d["command"]
    assert 'nvidia.com/gpu: "8"' in d["kubernetes_yaml"] and all(f["why"] for f in d["flags"])


def test_serve_config_keeps_data_parallel_replicas_of_the_smallest_tp(api_client, catalog):
    d = serve(api_client, kv_dtype="fp8", data_parallel=2)
    # TP 2 fits (test_api_tools: 73.41e9 B ≤ 78.18e9 B per GPU); a dense model's DP ranks are replicas, so DP does
    # not change a GPU's bytes: TP 2 × DP 2 = 4 GPUs in one pod
    assert (d["tensor_parallel"], d["data_parallel"], d["gpus"]) == (2, 2, 4)
    assert "--tensor-parallel-size 2 --data-parallel-size 2" in d["command"]
    assert 'nvidia.com/gpu: "4"' in d["kubernetes_yaml"]


@pytest.mark.parametrize("body, field", [
    ({"model": "deepseek-v3", "data_parallel": 8, "expert_parallel": 12}, "expert_parallel"),  # 12 / 8 is no TP
    ({"data_parallel": 2, "expert_parallel": 2}, "expert_parallel"),  # Llama has no experts
    ({"tensor_parallel": 16, "data_parallel": 2}, "data_parallel"),
    ({"tensor_parallel": 4, "pipeline_parallel": 3}, "pipeline_parallel"),
    ({"model": "llama-3.1-8b", "pipeline_parallel": 33}, "pipeline_parallel"),
    ({"data_parallel": 0}, "data_parallel"),
    ({"expert_parallel": "all"}, "expert_parallel"),
    ({"pipeline_parallel": 1.5}, "pipeline_parallel"),
])
def test_serve_config_bad_layout_is_a_400_naming_the_field(api_client, catalog, body, field):
    assert field in serve(api_client, status=400, **body)["fields"]
