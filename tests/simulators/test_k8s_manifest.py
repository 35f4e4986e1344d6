"""Manifest explorer: the serving manifests, their annotations and the checker's findings, each expectation worked
out by hand from the YAML written in the test; then the API with bad input."""

import textwrap

import pytest
import yaml

from apps.simulators.modeling import k8s_manifest as km

GOOD = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: vllm
    spec:
      template:
        spec:
          tolerations:
            - key: nvidia.com/gpu
              operator: Exists
              effect: NoSchedule
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.33.0
              args: ["m", "--tensor-parallel-size", "2"]
              resources:
                requests:
                  nvidia.com/gpu: "2"
                limits:
                  nvidia.com/gpu: "2"
              volumeMounts:
                - name: dshm
                  mountPath: /dev/shm
              startupProbe:
                httpGet: {path: /health, port: 8000}
                periodSeconds: 10
                failureThreshold: 60
              readinessProbe:
                httpGet: {path: /health, port: 8000}
          volumes:
            - name: dshm
              emptyDir:
                medium: Memory
    """)


def lines(findings):
    return [(f.line, f.severity, f.field.split(".resources.")[-1].split(".")[-1] if ".resources." not in f.field
             else f.field.split(".resources.")[-1]) for f in findings]


def edit(drop=(), replace=None):
    """GOOD without the lines in ``drop`` (1-based) and with {line: text} replaced."""
    out = []
    for number, line in enumerate(GOOD.splitlines(), 1):
        if number in drop:
            continue
        out.append((replace or {}).get(number, line))
    return "\n".join(out) + "\n"


def test_a_sound_manifest_has_no_findings():
    assert km.check(GOOD) == []


def test_gpu_request_and_limit_mismatch_is_an_error_on_the_limit_line():
    found = km.check(edit(replace={20: '              nvidia.com/gpu: "4"'}))
    # The limit on line 20 (2 ≠ 4); and tp 2 × pp 1 = 2 GPUs against a limit of 4 GPUs: the args on line 15.
    assert lines(found) == [(15, "error", "args"), (20, "error", "limits.nvidia.com/gpu")]
    assert "request 2 differs from limit 4" in found[1].message


def test_request_without_limit_is_refused_and_limit_alone_is_a_warning():
    assert lines(km.check(edit(drop=(19, 20)))) == [(18, "error", "requests.nvidia.com/gpu")]
    assert lines(km.check(edit(drop=(17, 18)))) == [(18, "warning", "limits.nvidia.com/gpu")]


def test_tensor_parallel_without_shm():
    found = km.check(edit(drop=(21, 22, 23)))
    assert lines(found) == [(13, "error", "volumeMounts")]  # reported on the container, line 13
    assert "64 MiB" in found[0].message


def test_liveness_that_kills_during_the_load():
    # No startupProbe; liveness acts after 60 + 10 × 3 = 90 s, before a 600 s load: an error on its line (24).
    text = edit(drop=(26,), replace={24: "          livenessProbe:", 27: "            initialDelaySeconds: 60"})
    found = km.check(text, load_s=600)
    assert lines(found) == [(24, "error", "livenessProbe")]
    assert "after 90 s" in found[0].message
    assert km.check(text, load_s=80) == []  # a model that loads in 80 s survives it


def test_startup_probe_budget_shorter_than_the_load():
    # 10 × 60 = 600 s of startupProbe: enough for 600 s, not for 900 s.
    assert km.check(GOOD, load_s=600) == []
    found = km.check(GOOD, load_s=900)
    assert lines(found) == [(24, "error", "startupProbe")] and "after 600 s" in found[0].message


def test_missing_toleration_latest_image_and_no_readiness():
    text = edit(drop=(8, 9, 10, 11, 28, 29), replace={14: "          image: vllm/vllm-openai:latest"})
    # Lines shift up by 4: containers on 8, the container on 9, the image on 10.
    assert lines(km.check(text)) == [(8, "warning", "tolerations"), (9, "warning", "readinessProbe"),
                                     (10, "warning", "image")]
    assert lines(km.check(GOOD, gpu_taint="example.com/gpu")) == [(12, "warning", "tolerations")]


def test_generated_manifests_pass_their_own_check_and_span_nodes_with_a_leaderworkerset():
    one = km.serving_manifests(name="vllm", model_id="m", args=["m", "--tensor-parallel-size", "4"], tp=4)
    assert [d["kind"] for d in yaml.safe_load_all(one)] == ["Deployment", "Service", "HorizontalPodAutoscaler"]
    assert km.check(one) == []
    # startupProbe: ceil(600 / 10) = 60 failures of 10 s.
    deployment = next(yaml.safe_load_all(one))
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["startupProbe"]["failureThreshold"] == 60
    assert container["resources"]["requests"]["nvidia.com/gpu"] == container["resources"]["limits"]["nvidia.com/gpu"] == "4"
    # 16 GPUs on 8-GPU nodes: 2 pods of 8, each with a 16 GiB shm and the same GPU count.
    two = km.serving_manifests(name="vllm", model_id="m", args=["m", "--tensor-parallel-size", "16"], tp=16)
    lws = next(yaml.safe_load_all(two))
    assert (lws["kind"], lws["spec"]["leaderWorkerTemplate"]["size"]) == ("LeaderWorkerSet", 2)
    assert km.check(two) == []
    assert km.check(two.replace('"--tensor-parallel-size" "16"', '"--tensor-parallel-size" "8"'))[0].message.startswith(
        "--tensor-parallel-size 8 × --pipeline-parallel-size 1 = 8 GPUs, but the replica has 16")
    with pytest.raises(km.ModelInputError):
        km.serving_manifests(name="v", model_id="m", args=[], tp=12)  # 12 GPUs span nodes of 8 without filling them


def test_annotations_explain_the_fields_on_their_lines():
    notes = {n.line: n for n in km.annotate(GOOD)}
    assert notes[2].note.startswith("Identical replicas")
    assert notes[18].field.endswith("requests.nvidia.com/gpu") and "must equal the limit" in notes[18].note
    assert notes[23].note.startswith("/dev/shm")
    assert 12 not in notes  # containers: no note of its own
    assert notes[24].field.endswith("startupProbe") and "failureThreshold × periodSeconds" in notes[24].note


def test_bad_yaml_names_the_line():
    with pytest.raises(km.ManifestError) as err:
        km.check("kind: Deployment\nspec:\n  template: [unclosed\n")
    assert err.value.field == "yaml" and err.value.message.startswith("line 4:")
    with pytest.raises(km.ManifestError, match="line 1: each document must be a mapping"):
        km.check("- a\n- b\n")
    with pytest.raises(km.ModelInputError, match="at most 65,536 bytes"):
        km.check("a: " + "x" * km.MAX_BYTES)


# ---------------------------------------------------------------- API

URL = "/api/v1/simulators/k8s-manifest/"


@pytest.mark.django_db
def test_api_generates_and_checks(api_client):
    body = api_client.post(URL, {"tp": 2}, format="json").json()
    assert body["generated"] and body["kinds"] == ["Deployment", "Service", "HorizontalPodAutoscaler"]
    assert body["findings"] == [] and len(body["annotations"]) > 20
    edited = body["yaml"].replace("medium: Memory", "medium: \"\"")
    checked = api_client.post(URL, {"tp": 2, "yaml": edited}, format="json").json()
    assert not checked["generated"]
    assert [f["field"].rsplit(".", 1)[-1] for f in checked["findings"]] == ["volumeMounts"]


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "field"), [
    ({"yaml": "kind: [\n"}, "yaml"),
    ({"yaml": ""}, "yaml"),
    ({"yaml": 5}, "yaml"),
    ({"tp": 0}, "tp"),
    ({"tp": 12}, "tp"),
    ({"load_s": -1}, "load_s"),
    ({"model": "a b"}, "model"),
    ({"gpus_per_node": "eight"}, "gpus_per_node"),
])
def test_api_bad_input_names_the_field(api_client, body, field):
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["fields"], response.json()
