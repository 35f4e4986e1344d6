"""Every catalog GPU states which memory convention its figure follows, in the fixed form
"memory: cuda-reported <X> GiB" in its source, and memory_bytes is that figure: the total the driver reports to CUDA
(HIP through torch.cuda on AMD), the one vLLM multiplies by gpu_memory_utilization; not nvidia-smi's or rocm-smi's
total and not the datasheet's marketing gigabytes."""

import re

import pytest
import yaml

from apps.core.content import FIXTURES_DIR
from apps.simulators.modeling import load_gpus

GIB, MIB = 2**30, 2**20
CATALOG = FIXTURES_DIR / "catalog" / "gpus.yaml"
CONVENTION = re.compile(r"\bmemory: (?P<convention>[a-z-]+) (?P<gib>\d+(?:\.\d+)?) GiB\b")
ROUNDING = 0.005 * GIB  # the stated figure has two decimals


def entries() -> list[dict]:
    return yaml.safe_load(CATALOG.read_text(encoding="utf-8"))


def stated(entry: dict) -> tuple[str, float]:
    found = CONVENTION.findall(entry["source"])
    assert len(found) == 1, f"{entry['slug']}: source must state its memory convention once: {entry['source']!r}"
    convention, gib = found[0]
    return convention, float(gib)


def check(entry: dict) -> None:
    """The stated convention is cuda-reported and memory_bytes is the stated figure."""
    convention, gib = stated(entry)
    assert convention == "cuda-reported", f"{entry['slug']}: the catalog's convention is cuda-reported, not {convention}"
    assert abs(entry["memory_bytes"] - gib * GIB) <= ROUNDING, (entry["slug"], entry["memory_bytes"], gib)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["slug"])
def test_every_gpu_states_its_memory_convention_and_uses_it(entry):
    check(entry)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["slug"])
def test_the_cuda_figure_is_below_the_physical_capacity_and_not_a_smi_total(entry):
    """The datasheet's "80 GB" is 80 GiB of HBM; the driver keeps some of it, so CUDA reports less than
    marketing-number × 2^30, while still more than the decimal marketing bytes on every card but the L40S. An nvidia-smi
    total named in the source (N MiB) must not be the figure used."""
    marketing_gib = entry["marketing_memory_bytes"] / 1e9
    assert entry["memory_bytes"] < marketing_gib * GIB, entry["slug"]
    assert entry["memory_bytes"] > 0.9 * marketing_gib * GIB, entry["slug"]
    for mib in re.findall(r"nvidia-smi (?:shows )?([\d,]+) MiB", entry["source"]):
        assert entry["memory_bytes"] < int(mib.replace(",", "")) * MIB, (entry["slug"], mib)


def test_the_loaded_specs_carry_the_stated_figures():
    gpus = load_gpus()
    for entry in entries():
        _, gib = stated(entry)
        assert abs(gpus[entry["slug"]].memory_bytes - gib * GIB) <= ROUNDING, entry["slug"]
    # an A100 80GB and an H100 80GB report nearly the same memory to CUDA (79.15 and 79.14 GiB), not 80 GiB
    assert abs(gpus["a100-80gb"].memory_bytes - gpus["h100-sxm"].memory_bytes) < 0.02 * GIB
    assert gpus["h100-pcie"].bf16_dense_flops == 1513e12 / 2


def test_a_smi_total_or_a_missing_convention_fails_the_check():
    smi = {"slug": "x", "memory_bytes": 81_920 * MIB, "marketing_memory_bytes": 80e9,
           "source": "datasheet; memory 81,920 MiB as nvidia-smi reports it"}
    with pytest.raises(AssertionError, match="must state its memory convention"):
        check(smi)
    smi["source"] = "datasheet; memory: cuda-reported 79.15 GiB (nvidia-smi shows 81,920 MiB)"
    with pytest.raises(AssertionError):
        check(smi)  # states the CUDA figure but stores the nvidia-smi total
    other = {**smi, "memory_bytes": 81_920 * MIB, "source": "memory: nvidia-smi 80.00 GiB"}
    with pytest.raises(AssertionError, match="convention is cuda-reported"):
        check(other)
