"""The simulator catalog back to fixtures/catalog/models.yaml and gpus.yaml, in the fields of ModelSpec / GPUSpec."""

from dataclasses import MISSING, fields
from pathlib import Path

from apps.core.content_export import dump_yaml, with_status, write_text
from apps.simulators.modeling import GPUSpec, ModelSpec
from apps.simulators.models import GPU, ModelConfig


def catalog_row(obj, spec_cls: type) -> dict:
    """The spec's fields in declaration order; unset optional fields (None) and fields at the spec's default (a gated
    MLP, no biases) are left out as in hand-written files."""
    row = {f.name: getattr(obj, f.name) for f in fields(spec_cls) if hasattr(obj, f.name)
           if f.default is MISSING or getattr(obj, f.name) != f.default}
    return with_status({name: value for name, value in row.items() if value is not None}, obj.status)


def export_catalog(root: Path, written: list[Path]) -> None:
    for model, spec_cls, name in ((ModelConfig, ModelSpec, "models.yaml"), (GPU, GPUSpec, "gpus.yaml")):
        rows = [catalog_row(obj, spec_cls) for obj in model.objects.live().order_by("id")]
        write_text(root / "catalog" / name, dump_yaml(rows), written)
