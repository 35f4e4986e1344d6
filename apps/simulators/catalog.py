"""The one catalog resolver: every endpoint, sweep point and task turns `model`/`config` and `gpu`/`gpu_spec` into
modeling specs here.

A slug resolves to a catalog row the user may see (authors also see drafts); an inline spec has already been checked
by the same request serializer everywhere (apps.simulators.api.inputs), and gets the same defaults here whichever
endpoint or sweep it came through.
"""

from __future__ import annotations

from dataclasses import fields, replace

from apps.core.exceptions import InvalidInput
from apps.simulators import modeling as m
from apps.simulators.models import GPU, ModelConfig

MODEL_FIELDS = [f.name for f in fields(m.ModelSpec)]
GPU_FIELDS = [f.name for f in fields(m.GPUSpec)]
INLINE_MODEL_DEFAULTS = {"slug": "custom", "name": "Custom model", "hf_id": "your-org/your-model",
                         "source": "inline config", "total_params": 0.0, "active_params": 0.0}
INLINE_GPU_DEFAULTS = {"slug": "custom-gpu", "name": "Custom GPU", "vendor": "nvidia", "source": "inline spec",
                       "price_per_hour_usd": 0.0}


def spec_from_row(row: ModelConfig) -> m.ModelSpec:
    return m.ModelSpec(**{name: getattr(row, name) for name in MODEL_FIELDS})


def gpu_from_row(row: GPU) -> m.GPUSpec:
    return m.GPUSpec(**{name: getattr(row, name) for name in GPU_FIELDS})


def inline_model(config: dict) -> m.ModelSpec:
    """A validated inline config → a spec whose parameter counts come from the architecture."""
    try:
        spec = m.ModelSpec(**{**INLINE_MODEL_DEFAULTS, **config})
        counts = m.count_params(spec)
    except m.ModelInputError as exc:
        raise InvalidInput(exc.message, field=f"config.{exc.field}")
    return replace(spec, total_params=counts.total, active_params=counts.active)


def inline_gpu(spec: dict) -> m.GPUSpec:
    """A validated inline GPU spec; INT8 defaults to twice the BF16 rate (as on every datasheet in the catalog)."""
    values = {**INLINE_GPU_DEFAULTS, **{k: v for k, v in spec.items() if v is not None}}
    values.setdefault("int8_dense_ops", 2.0 * values["bf16_dense_flops"])
    try:
        return m.GPUSpec(**values)
    except m.ModelInputError as exc:
        raise InvalidInput(exc.message, field=f"gpu_spec.{exc.field}")


def model_spec(*, user, slug: str | None = None, config: dict | None = None) -> m.ModelSpec:
    """The catalog model named by `slug`, or the inline `config`."""
    if config:
        return inline_model(config)
    row = ModelConfig.objects.visible_to(user).filter(slug=slug).first()
    if row is None:
        raise InvalidInput(f"unknown model '{slug}'", field="model")
    return spec_from_row(row)


def gpu_spec(*, user, slug: str | None = None, spec: dict | None = None, field: str = "gpu") -> m.GPUSpec:
    """The catalog GPU named by `slug`, or the inline `spec`."""
    if spec:
        return inline_gpu(spec)
    row = GPU.objects.visible_to(user).filter(slug=slug).first()
    if row is None:
        raise InvalidInput(f"unknown GPU '{slug}'", field=field)
    return gpu_from_row(row)


def request_model(user, data: dict) -> m.ModelSpec:
    return model_spec(user=user, slug=data.get("model"), config=data.get("config"))


def request_gpu(user, data: dict) -> m.GPUSpec:
    return gpu_spec(user=user, slug=data.get("gpu"), spec=data.get("gpu_spec"))
