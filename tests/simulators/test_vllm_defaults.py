"""vLLM's defaults have one definition (apps/simulators/modeling/vllm_defaults.py), pinned to the release the content
describes; the request serializers, the schema the client is generated from, the Lab's forms and the diagram registry
all agree with it."""

import re
from pathlib import Path

import yaml

from apps.core.diagrams import DTYPE_CHOICES
from apps.simulators.api import inputs
from apps.simulators.modeling import vllm_defaults
from apps.simulators.modeling.capacity import MAX_UTILIZATION
from apps.simulators.modeling.specs import DTYPE_BYTES

ROOT = Path(__file__).resolve().parents[2]
FLAGS = yaml.safe_load((ROOT / "fixtures" / "vllm-flags.yaml").read_text(encoding="utf-8"))
LAB = ROOT / "frontend" / "src" / "areas" / "lab"


def test_the_defaults_are_the_release_the_content_describes():
    assert vllm_defaults.VLLM_RELEASE == FLAGS["release"]
    source = next(f["source"] for f in FLAGS["flags"] if f["name"] == "--gpu-memory-utilization")
    assert f"(default {vllm_defaults.GPU_MEMORY_UTILIZATION})" in source
    assert vllm_defaults.GPU_MEMORY_UTILIZATION == 0.92 and vllm_defaults.BLOCK_SIZE == 16


def test_every_serializer_defaults_to_the_constants():
    used = {"gpu_memory_utilization": 0, "block_size": 0}
    for serializer in vars(inputs).values():
        if not (isinstance(serializer, type) and issubclass(serializer, inputs.serializers.Serializer)):
            continue
        for name, field in serializer().fields.items():
            if name == "gpu_memory_utilization":
                assert field.default == vllm_defaults.GPU_MEMORY_UTILIZATION, serializer
                used[name] += 1
            if name == "block_size" and field.default is not inputs.serializers.empty:
                assert field.default == vllm_defaults.BLOCK_SIZE, serializer
                used[name] += 1
    assert used["gpu_memory_utilization"] >= 7 and used["block_size"] >= 3, used
    # The capacity planner's queue margin is our own knob, not vLLM's: a separate constant.
    assert inputs.CapacityInput().fields["max_utilization"].default == MAX_UTILIZATION == 0.9


def test_the_lab_starts_from_the_same_defaults_and_hard_codes_none():
    lib = (LAB / "lib.ts").read_text(encoding="utf-8")
    found = re.search(r"VLLM_DEFAULTS = \{ gpu_memory_utilization: ([\d.]+), block_size: (\d+) \}", lib)
    assert found, "lib.ts exports VLLM_DEFAULTS"
    assert float(found.group(1)) == vllm_defaults.GPU_MEMORY_UTILIZATION
    assert int(found.group(2)) == vllm_defaults.BLOCK_SIZE
    for path in LAB.rglob("*.tsx"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"gpu_memory_utilization[^\n]*[\"\s(,]0\.9\d*\b", text), path
        assert not re.search(r'block_size: "\d+"', text), path


def test_no_python_default_of_gpu_memory_utilization_is_a_literal():
    for path in (ROOT / "apps" / "simulators").rglob("*.py"):
        if path.name == "vllm_defaults.py" or "migrations" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        literal = r"gpu_memory_utilization(: float = |\"\s*,\s*)0\.\d|gpu_memory_utilization = [^\n]*default=0\.\d"
        assert not re.search(literal, text), path


def test_the_diagram_registry_offers_every_dtype_the_simulators_take():
    assert list(DTYPE_CHOICES) == list(DTYPE_BYTES) == list(inputs.DTYPES)
    assert "fp4" in DTYPE_CHOICES
