from django.contrib import admin, messages

from apps.core.admin import ContentAdmin
from apps.simulators.models import GPU, ModelConfig

# Architectures whose attention output width is by design not hidden_size (head_dim set independently).
HEAD_DIM_MAY_DIFFER = ("qwen3", "gemma", "gpt-oss")


def head_dim_warning(obj: ModelConfig) -> str | None:
    """A warning when head_dim × heads ≠ hidden_size for an architecture where the two should match."""
    if obj.attention == "mla" or any(key in (obj.slug or "").lower() for key in HEAD_DIM_MAY_DIFFER):
        return None
    width = (obj.head_dim or 0) * (obj.num_attention_heads or 0)
    if width == obj.hidden_size:
        return None
    return (f"{obj.slug}: head_dim × num_attention_heads = {obj.head_dim} × {obj.num_attention_heads} = {width:,} "
            f"≠ hidden_size {obj.hidden_size:,}. Check config.json (KV sizes depend on head_dim).")


@admin.register(ModelConfig)
class ModelConfigAdmin(ContentAdmin):
    list_display = ["name", "slug", "attention", "num_layers", "hidden_size", "num_kv_heads", "status", "updated_at"]
    list_filter = ["status", "attention", "tie_word_embeddings"]
    search_fields = ["name", "slug", "hf_id"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        warning = head_dim_warning(obj)
        if warning:
            messages.warning(request, warning)


@admin.register(GPU)
class GPUAdmin(ContentAdmin):
    list_display = ["name", "slug", "vendor", "memory_bytes", "hbm_bandwidth_bytes_per_s", "price_per_hour_usd", "status"]
    list_filter = ["status", "vendor"]
    search_fields = ["name", "slug", "source"]
