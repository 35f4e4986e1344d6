"""The catalog (real model configs and GPU specs, editable by authors) and persisted sweep jobs."""

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ContentModel
from apps.simulators.validation import gpu_errors, model_errors


class Attention(models.TextChoices):
    MHA = "mha", "Multi-head"
    GQA = "gqa", "Grouped-query"
    MQA = "mqa", "Multi-query"
    MLA = "mla", "Multi-head latent"


class MLP(models.TextChoices):
    GATED = "gated", "Gated (gate, up, down: SwiGLU / GeGLU)"
    PLAIN = "plain", "Plain (fc1, fc2: ReLU / GELU)"


# Catalog slugs keep the version dots of model names (llama-3.1-8b), which Django's SlugField refuses.
catalog_slug_validator = RegexValidator(r"^[a-z0-9][a-z0-9.-]*$", "Lowercase letters, digits, dots and hyphens only.")


class ModelConfig(ContentModel):
    """One model's architecture, copied from its published config.json (fields mirror modeling.specs.ModelSpec)."""

    slug = models.CharField(max_length=120, unique=True, validators=[catalog_slug_validator])
    name = models.CharField(max_length=120)
    hf_id = models.CharField(max_length=200)
    num_layers = models.PositiveIntegerField()
    hidden_size = models.PositiveIntegerField()
    num_attention_heads = models.PositiveIntegerField()
    num_kv_heads = models.PositiveIntegerField()
    head_dim = models.PositiveIntegerField()
    intermediate_size = models.PositiveIntegerField()
    vocab_size = models.PositiveIntegerField()
    max_position_embeddings = models.PositiveIntegerField()
    tie_word_embeddings = models.BooleanField(default=False)
    attention = models.CharField(max_length=3, choices=Attention.choices)
    total_params = models.FloatField()
    active_params = models.FloatField()
    source = models.TextField()
    moe_intermediate_size = models.PositiveIntegerField(null=True, blank=True)
    kv_lora_rank = models.PositiveIntegerField(null=True, blank=True)
    q_lora_rank = models.PositiveIntegerField(null=True, blank=True)
    qk_rope_head_dim = models.PositiveIntegerField(null=True, blank=True)
    qk_nope_head_dim = models.PositiveIntegerField(null=True, blank=True)
    v_head_dim = models.PositiveIntegerField(null=True, blank=True)
    sliding_window = models.PositiveIntegerField(null=True, blank=True)
    sliding_window_pattern = models.CharField(max_length=20, null=True, blank=True)
    num_experts = models.PositiveIntegerField(null=True, blank=True)
    num_shared_experts = models.PositiveIntegerField(null=True, blank=True)
    experts_per_token = models.PositiveIntegerField(null=True, blank=True)
    first_k_dense_replace = models.PositiveIntegerField(null=True, blank=True)
    mlp = models.CharField(max_length=5, choices=MLP.choices, default=MLP.GATED,
                           help_text="gated: 3 matrices of h·F per MLP (gate, up, down); plain: 2 (fc1, fc2), e.g. OPT")
    bias = models.BooleanField(default=False, help_text="Every attention and MLP linear layer and every norm has a "
                               "bias vector (OPT, GPT-2); partial biases (Qwen2 QKV) are left out")
    learned_position_embeddings = models.PositiveIntegerField(
        null=True, blank=True, help_text="Rows of a learned absolute position table (OPT: max_position_embeddings + 2); "
        "empty for rotary positions")
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]

    def clean(self) -> None:
        """Physically sensible architecture (apps.simulators.validation.model_errors)."""
        errors = model_errors(self)
        if errors:
            raise ValidationError(errors)


class GPU(ContentModel):
    """One accelerator's datasheet figures (dense FLOPs, decimal bytes); the price is an editable default."""

    slug = models.CharField(max_length=120, unique=True, validators=[catalog_slug_validator])

    name = models.CharField(max_length=120)
    vendor = models.CharField(max_length=40)
    memory_bytes = models.FloatField(help_text="Total memory as the driver reports it to CUDA (cudaMemGetInfo), bytes")
    marketing_memory_bytes = models.FloatField(null=True, blank=True,
                                               help_text="The datasheet's rounded capacity, e.g. 80 GB = 80e9 B")
    hbm_bandwidth_bytes_per_s = models.FloatField()
    bf16_dense_flops = models.FloatField()
    fp8_dense_flops = models.FloatField(null=True, blank=True)
    fp4_dense_flops = models.FloatField(null=True, blank=True, help_text="Dense FP4 tensor-core peak; empty: no FP4 unit")
    int8_dense_ops = models.FloatField()
    interconnect_bandwidth_bytes_per_s = models.FloatField()
    price_per_hour_usd = models.FloatField()
    price_note = models.TextField(blank=True)
    source = models.TextField()
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = "GPU"

    def clean(self) -> None:
        """Datasheet figures within sane ranges (apps.simulators.validation.gpu_errors)."""
        errors = gpu_errors(self)
        if errors:
            raise ValidationError(errors)


class SweepStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class SweepJob(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sweeps")
    status = models.CharField(max_length=10, choices=SweepStatus.choices, default=SweepStatus.QUEUED, db_index=True)
    request = models.JSONField(help_text="Base configuration, workload, SLOs and grid as submitted")
    total_points = models.PositiveIntegerField()
    done_points = models.PositiveIntegerField(default=0)
    total_chunks = models.PositiveIntegerField(default=0)
    done_chunks = models.PositiveIntegerField(default=0)
    chunk_points = models.PositiveIntegerField(default=0, help_text="Points per chunk (0: the grid's default size)")
    dispatched_chunks = models.PositiveIntegerField(
        default=0, help_text="Chunks sent to the queue so far; chunks go out a few at a time per user (fairness)")
    requeues = models.PositiveIntegerField(default=0, help_text="Re-sends of lost chunks since the last progress")
    cost_estimate_s = models.FloatField(default=0, help_text="Estimated worker CPU seconds, checked against budgets")
    screen = models.JSONField(default=dict, blank=True, help_text=(
        "Stage one of a two-stage sweep: grid points screened, feasible, screened as meeting the SLO, simulated, the "
        "candidates' grid indices and screen figures, and (when done) how often screen and engine agreed; "
        '{"mode": "exhaustive"} when every point is simulated'))
    pareto = models.JSONField(default=list, blank=True)
    recommendation = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last progress; the watchdog fails stalled jobs")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class SweepPoint(models.Model):
    """One grid point's result; (job, index) is unique so a retried chunk never stores a point twice."""

    job = models.ForeignKey(SweepJob, on_delete=models.CASCADE, related_name="points")
    index = models.PositiveIntegerField()
    params = models.JSONField()
    metrics = models.JSONField()
    meets_slo = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="one_result_per_sweep_point")]


class EngineJob(models.Model):
    """An engine or cluster simulation too large for a request (up to Vidur's scale), run by a worker with progress.
    One queued or running per learner; the result has the synchronous endpoint's shape."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="engine_jobs")
    status = models.CharField(max_length=10, choices=SweepStatus.choices, default=SweepStatus.QUEUED)
    request = models.JSONField(help_text="The simulation's parameters as validated (defaults filled in)")
    num_requests = models.PositiveIntegerField()
    progress = models.FloatField(default=0.0, help_text="0 to 1: the share of requests finished")
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True, help_text="{detail, fields}: why there is no result")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(
            fields=["user"], condition=models.Q(status__in=["queued", "running"]), name="one_active_engine_job_per_user")]
