"""Design exercises: the deployment a learner proposes (checked knob by knob, errors naming the knob), the exercise
file's own format (the loader checks every file against it), and the grade as the API answers it."""

from rest_framework import serializers

from apps.exercises.grading import DEFAULTS
from apps.exercises.models import Category, DesignAttempt, DesignExercise, ExerciseLevel
from apps.simulators.api.inputs import KV_DTYPES, DisaggregationInput, EngineSLOInput, EngineWorkloadInput, knob_field

MAX_RATIONALE = 5000


class Deployment(serializers.Serializer):
    """A deployment to grade: each knob takes what a sweep's grid takes (pipeline parallel at most 16 and data
    parallel at most 64 here); a knob left out takes the engine's default."""

    gpu = knob_field("gpu", help_text="Catalog GPU slug, e.g. h100-sxm")
    tensor_parallel = knob_field("tensor_parallel", default=DEFAULTS["tensor_parallel"])
    pipeline_parallel = knob_field("pipeline_parallel", max_value=16, default=DEFAULTS["pipeline_parallel"])
    data_parallel = knob_field("data_parallel", max_value=64, default=DEFAULTS["data_parallel"],
                               help_text="Data-parallel ranks per replica (MoE attention)")
    expert_parallel = knob_field("expert_parallel", default=DEFAULTS["expert_parallel"],
                                 help_text="1 or tensor_parallel × data_parallel")
    replicas = knob_field("replicas", default=DEFAULTS["replicas"])
    router = knob_field("router", default=DEFAULTS["router"])
    weight_dtype = knob_field("weight_dtype", default=DEFAULTS["weight_dtype"])
    kv_dtype = serializers.ChoiceField(choices=KV_DTYPES, default=DEFAULTS["kv_dtype"])
    max_num_seqs = knob_field("max_num_seqs", default=DEFAULTS["max_num_seqs"])
    max_num_batched_tokens = knob_field("max_num_batched_tokens", default=DEFAULTS["max_num_batched_tokens"])
    chunked_prefill = knob_field("chunked_prefill", default=DEFAULTS["chunked_prefill"])
    prefix_caching = serializers.BooleanField(default=DEFAULTS["prefix_caching"])
    disaggregation = DisaggregationInput(required=False, allow_null=True, default=None,
                                         help_text="Prefill and decode pools (replaces replicas)")


class DesignAttemptInput(serializers.Serializer):
    deployment = Deployment()
    rationale = serializers.CharField(max_length=MAX_RATIONALE, allow_blank=True, default="", trim_whitespace=False,
                                      help_text="Why this deployment: rated by you against the key points")


class DesignRatingInput(serializers.Serializer):
    key_points_met = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=99), max_length=100,
                                           help_text="Indices of the key points your rationale covers")

    def validate_key_points_met(self, value: list[int]) -> list[int]:
        count = len(self.context["exercise"].key_points)
        wrong = [i for i in value if i >= count]
        if wrong:
            raise serializers.ValidationError(f"This exercise has {count} key points (0 to {count - 1}); got {wrong[0]}.")
        return sorted(set(value))


# --- the exercise file (fixtures/design_exercises/<slug>.yaml) ------------------------------------------------------


class ConstraintsFile(serializers.Serializer):
    gpus = serializers.ListField(child=serializers.CharField(max_length=100), min_length=1, max_length=20)
    max_gpus = serializers.IntegerField(min_value=1, max_value=256)
    max_gpus_per_replica = serializers.IntegerField(min_value=1, max_value=64, default=8)
    budget_usd_per_hour = serializers.FloatField(min_value=0, max_value=100_000, required=False, allow_null=True)


def _tried_values(field: serializers.Field) -> serializers.ListField:
    """The values of a Deployment knob the search tries: a list of what the knob accepts, without its default."""
    kwargs = {k: v for k, v in field._kwargs.items() if k not in ("default", "help_text")}
    return serializers.ListField(child=type(field)(*field._args, **kwargs), min_length=1, max_length=20,
                                 required=False)


SearchFile = type("SearchFile", (serializers.Serializer,), {
    "__doc__": "Knob → the values the release's search tries (every other knob at its default).",
    **{key: _tried_values(field) for key, field in Deployment._declared_fields.items() if key != "disaggregation"},
    "disaggregation": serializers.ListField(child=DisaggregationInput(), max_length=10, required=False)})


class ExerciseFile(serializers.Serializer):
    slug = serializers.SlugField(max_length=120)
    title = serializers.CharField(max_length=120)
    category = serializers.ChoiceField(choices=Category.choices)
    level = serializers.ChoiceField(choices=ExerciseLevel.choices)
    status = serializers.ChoiceField(choices=["draft", "published"], default="published")
    brief = serializers.CharField(max_length=5000)
    model = serializers.CharField(max_length=120)
    traffic = EngineWorkloadInput()
    slo = EngineSLOInput()
    constraints = ConstraintsFile()
    search = SearchFile()
    key_points = serializers.ListField(child=serializers.CharField(max_length=600), min_length=2, max_length=12)
    sources = serializers.ListField(child=serializers.CharField(max_length=600), min_length=1)


# --- answers ----------------------------------------------------------------------------------------------------


class DeploymentFilled(Deployment):
    """A deployment with every knob filled in."""


class DesignMetrics(serializers.Serializer):
    ttft_p50_s = serializers.FloatField()
    ttft_p99_s = serializers.FloatField()
    tpot_p50_s = serializers.FloatField()
    tpot_p99_s = serializers.FloatField()
    completed = serializers.IntegerField()
    num_requests = serializers.IntegerField()
    preemptions = serializers.IntegerField()
    output_tokens_per_s = serializers.FloatField()
    gpus = serializers.IntegerField()
    usd_per_hour = serializers.FloatField()
    usd_per_million_tokens = serializers.FloatField()


class DesignProblem(serializers.Serializer):
    field = serializers.CharField()
    message = serializers.CharField()


class DesignBinding(serializers.Serializer):
    constraint = serializers.ChoiceField(choices=["ttft", "tpot", "gpus", "budget", "completion"])
    ratio = serializers.FloatField(allow_null=True, help_text="Measured ÷ limit; null when requests never finished")
    detail = serializers.CharField()


class DesignBest(serializers.Serializer):
    summary = serializers.CharField()
    deployment = DeploymentFilled()
    metrics = DesignMetrics()


class DesignGrade(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=["outside_constraints", "does_not_fit", "misses_slo", "meets_slo"])
    score = serializers.IntegerField(min_value=0, max_value=100)
    headline = serializers.CharField()
    summary = serializers.CharField(help_text="The deployment in one line")
    deployment = DeploymentFilled()
    gpus = serializers.IntegerField()
    usd_per_hour = serializers.FloatField()
    slo = EngineSLOInput()
    problems = DesignProblem(many=True)
    fix = serializers.CharField(allow_null=True, help_text="The first change that fits (when it does not)")
    metrics = DesignMetrics(allow_null=True)
    binding = DesignBinding(allow_null=True)
    best = DesignBest(allow_null=True)
    differences = serializers.ListField(child=serializers.CharField(), help_text="Knobs where the best answer differs")
    cost_ratio = serializers.FloatField(required=False, allow_null=True, help_text="Your cost ÷ the best answer's")


class DesignExerciseSummary(serializers.ModelSerializer):
    model = serializers.CharField(source="model_slug")
    slo = EngineSLOInput()
    best_score = serializers.IntegerField(allow_null=True, read_only=True,
                                          help_text="Your best score on it (null: not attempted or signed out)")

    class Meta:
        model = DesignExercise
        fields = ["slug", "title", "category", "level", "model", "slo", "best_score"]


class DesignExerciseDetail(DesignExerciseSummary):
    brief_html = serializers.CharField()
    traffic = EngineWorkloadInput()
    constraints = ConstraintsFile()
    key_point_count = serializers.IntegerField()
    sources = serializers.ListField(child=serializers.CharField())

    class Meta(DesignExerciseSummary.Meta):
        fields = [*DesignExerciseSummary.Meta.fields, "brief", "brief_html", "traffic", "constraints", "key_point_count",
                  "sources"]


class DesignAttemptOutput(serializers.ModelSerializer):
    id = serializers.IntegerField(allow_null=True, help_text="null: graded but not saved (signed out)")
    exercise = serializers.CharField(source="exercise.slug")
    deployment = DeploymentFilled()
    grade = DesignGrade()
    key_points = serializers.ListField(source="exercise.key_points", child=serializers.CharField(),
                                       help_text="What an interviewer listens for: rate your rationale against them")
    key_points_met = serializers.ListField(child=serializers.IntegerField(), allow_null=True,
                                           help_text="Indices of the key points you said your rationale covers")
    rationale_score = serializers.FloatField(allow_null=True, help_text="Share of key points met (null: not rated)")

    class Meta:
        model = DesignAttempt
        fields = ["id", "exercise", "deployment", "rationale", "grade", "score", "key_points", "key_points_met",
                  "rationale_score", "created_at"]
        extra_kwargs = {"created_at": {"allow_null": True}}
