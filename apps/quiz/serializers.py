"""Input and output shapes of the quiz API. Output never carries an answer key before an answer is checked."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.cache_keys import cached_bodies
from apps.core.models import Status as ContentStatus
from apps.core.serializers import documented_json
from apps.courses.models import Level
from apps.courses.serializers import sources_field
from apps.quiz import services
from apps.quiz.investigation import MAX_QUESTIONS
from apps.quiz.models import (
    DiagnosisScenario,
    EvidenceKind,
    Game,
    InvestigationAttempt,
    Kind,
    NumberToMemorize,
    Question,
    SessionMode,
)

LIST_MAX = 50


class ChapterRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    url = serializers.SerializerMethodField()

    def get_url(self, chapter) -> str:
        return f"/learn/{chapter.slug}"


class ChoicesSerializer(serializers.Serializer):
    """Public parts of the key: what to choose from, in display order. Which kind has which fields:
    choice → options; numeric → unit; ordering → items; categorize → bins, items; matching → left, right."""

    options = serializers.ListField(child=serializers.CharField(), required=False)
    unit = serializers.CharField(required=False)
    items = serializers.ListField(child=serializers.CharField(), required=False)
    bins = serializers.ListField(child=serializers.CharField(), required=False)
    left = serializers.ListField(child=serializers.CharField(), required=False)
    right = serializers.ListField(child=serializers.CharField(), required=False)


class QuestionSerializer(serializers.ModelSerializer):
    prompt_html = serializers.SerializerMethodField()
    topics = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    chapters = ChapterRefSerializer(many=True, read_only=True)
    glossary = serializers.SlugRelatedField(source="glossary_terms", slug_field="slug", many=True, read_only=True)
    choices = serializers.SerializerMethodField()

    class Meta:
        model = Question
        fields = ["id", "slug", "kind", "level", "prompt_html", "topics", "chapters", "glossary", "choices", "key_version"]

    def get_prompt_html(self, question) -> str:
        return services.markdown_html(question.prompt)

    @extend_schema_field(ChoicesSerializer)
    def get_choices(self, question):
        return services.public_choices(question)


class TopicSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField(help_text="How the topic reads: 'KV cache' for kv-cache")
    question_count = serializers.IntegerField()


class AnswerSerializer(serializers.Serializer):
    """An answer in the question's kind (kinds.grade checks it against the kind and the key)."""

    selected = serializers.ListField(child=serializers.IntegerField(min_value=0), required=False,
                                     help_text="Choice kinds: display indexes of the chosen options")
    value = documented_json({"oneOf": [{"type": "number"}, {"type": "string"}]}, "NumericAnswerValue")(
        required=False, help_text='Numeric: a number (with `unit`) or a quantity such as "16 GiB"')
    unit = serializers.CharField(required=False, help_text="Numeric: the unit of `value`")
    order = serializers.ListField(child=serializers.CharField(), required=False, help_text="Ordering: every item")
    placement = serializers.DictField(child=serializers.CharField(), required=False,
                                      help_text="Categorize: item → bin, every item")
    matches = serializers.DictField(child=serializers.CharField(), required=False,
                                    help_text="Matching: left → right, every left item")


AnswerField = documented_json(AnswerSerializer, "AnswerField", serializers.DictField)


class CheckInputSerializer(serializers.Serializer):
    answer = AnswerField(
        required=False,
        help_text='choice {"selected": [display indexes]}; numeric {"value": 16, "unit": "GiB"} or {"value": "16 GiB"}; '
        'ordering {"order": [texts]}; categorize {"placement": {item: bin}}; matching {"matches": {left: right}}. '
        "Not needed for open questions.",
    )


def _text_map(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.CharField(), required=False, help_text=help_text)


class FeedbackSerializer(serializers.Serializer):
    """The right key in answer terms (kinds.grade): the fields of the question's kind; none for open questions."""

    correct_options = serializers.ListField(child=serializers.IntegerField(), required=False,
                                            help_text="Choice kinds: indexes of the right options in display order")
    expected = serializers.FloatField(required=False, help_text="Numeric: the expected value in `unit`")
    unit = serializers.CharField(required=False, help_text="Numeric: the key's unit")
    given_in_answer_unit = serializers.FloatField(required=False, help_text="Numeric: the answer converted to `unit`")
    correct_order = serializers.ListField(child=serializers.CharField(), required=False, help_text="Ordering")
    correct_placement = _text_map("Categorize: item → its bin")
    correct_matches = _text_map("Matching: left item → its right item")


class CheckResultSerializer(serializers.Serializer):
    correct = serializers.BooleanField(allow_null=True)
    score = serializers.FloatField(allow_null=True, help_text="0..1; partial credit for multiple choice, ordering, categorize, matching")
    feedback = FeedbackSerializer()
    answer_html = serializers.CharField(help_text="The model answer")
    explanation = serializers.CharField(allow_blank=True)


class ListFilterField(serializers.ListField):
    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=120))
        super().__init__(required=False, max_length=LIST_MAX, **kwargs)


class SessionFiltersSerializer(serializers.Serializer):
    """The filters a session was drawn with (those given, non-empty)."""

    part = ListFilterField(help_text="Part slugs")
    chapter = ListFilterField(help_text="Chapter slugs")
    topic = ListFilterField(help_text="Topic tags")
    level = ListFilterField(child=serializers.ChoiceField(choices=Level.choices))
    kind = ListFilterField(child=serializers.ChoiceField(choices=Kind.choices))


SessionFiltersField = documented_json(SessionFiltersSerializer, "SessionFiltersField")


class SessionCreateSerializer(SessionFiltersSerializer):
    mode = serializers.ChoiceField(choices=SessionMode.choices, default=SessionMode.PRACTICE)
    size = serializers.IntegerField(min_value=1, max_value=50, required=False, help_text="Default 10 (practice), 8 (interview)")
    seconds_per_question = serializers.IntegerField(min_value=10, max_value=3600, required=False, help_text="Interview only; default 120")


class SessionAnswerSerializer(serializers.Serializer):
    question = serializers.IntegerField(source="question_id")
    correct = serializers.BooleanField()
    score = serializers.FloatField()
    self_rating = serializers.CharField(allow_blank=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    over_time = serializers.SerializerMethodField()

    def get_over_time(self, answer) -> bool:
        return services.is_over_time(answer.session, answer.duration_ms)


# A session's own fields, declared rather than read off the model: a ModelSerializer rebuilds its fields from the
# model on every instance, which was a fifth of the CPU of starting a session.
class SessionFieldsSerializer(serializers.Serializer):
    id = serializers.UUIDField(read_only=True)
    mode = serializers.ChoiceField(choices=SessionMode.choices, required=False)
    filters = SessionFiltersField(read_only=True)
    created_at = serializers.DateTimeField(read_only=True)
    finished_at = serializers.DateTimeField(allow_null=True, required=False)


class SessionSerializer(SessionFieldsSerializer):
    seconds_per_question = serializers.IntegerField(allow_null=True, min_value=0, required=False)
    questions = serializers.SerializerMethodField()
    answers = SessionAnswerSerializer(many=True, read_only=True)

    @extend_schema_field(QuestionSerializer(many=True))
    def get_questions(self, session):
        """The session's questions still published, each as the catalogue shows it (kept by content version)."""
        bodies = cached_bodies("practice-question", session.question_ids, lambda ids: {
            question.id: QuestionSerializer(question).data for question in services.published_questions(ids)})
        return [bodies[qid] for qid in session.question_ids if qid in bodies]


class SessionCreatedSerializer(SessionSerializer):
    session_token = serializers.CharField(allow_null=True, help_text="Anonymous sessions only, shown once: send it as X-Practice-Token")


class SessionListSerializer(SessionFieldsSerializer):
    size = serializers.SerializerMethodField()
    answered = serializers.SerializerMethodField()
    score = serializers.SerializerMethodField()

    def get_size(self, session) -> int:
        return len(session.question_ids)

    def get_answered(self, session) -> int:
        return len(session.answers.all())

    def get_score(self, session) -> float | None:
        scores = [answer.score for answer in session.answers.all()]
        return round(sum(scores) / len(scores), 4) if scores else None


class AnswerInputSerializer(serializers.Serializer):
    question = serializers.IntegerField(min_value=1)
    answer = AnswerField(required=False, help_text="For auto-checked kinds; same shapes as /questions/{id}/check/")
    self_rating = serializers.ChoiceField(choices=list(services.SELF_RATING_SCORES), required=False, help_text="For open questions: again 0, hard 0.5, good 0.8, easy 1.0")
    duration_ms = serializers.IntegerField(min_value=0, max_value=86_400_000, required=False, help_text="Time spent on the question; measured by the server when absent")


class AnswerResultSerializer(CheckResultSerializer):
    question = serializers.IntegerField()
    self_rating = serializers.CharField(allow_blank=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    over_time = serializers.BooleanField(help_text="Interview answers after seconds_per_question are late: the verdict stands, the score is halved")
    answered = serializers.IntegerField()
    remaining = serializers.IntegerField()
    finished = serializers.BooleanField()


class RereadSerializer(serializers.Serializer):
    """A chapter to re-read, as services._chapter_refs builds it."""

    slug = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField(help_text="Web client path")


class TopicScoreSerializer(serializers.Serializer):
    topic = serializers.CharField()
    answered = serializers.IntegerField()
    score = serializers.FloatField()
    chapters = RereadSerializer(many=True, help_text="Chapters to re-read")


class LevelScoreSerializer(serializers.Serializer):
    level = serializers.CharField()
    answered = serializers.IntegerField()
    correct = serializers.IntegerField()
    score = serializers.FloatField()


class SummarySerializer(serializers.Serializer):
    session = serializers.UUIDField()
    mode = serializers.CharField()
    total = serializers.IntegerField()
    answered = serializers.IntegerField()
    correct = serializers.IntegerField()
    score = serializers.FloatField(allow_null=True)
    finished = serializers.BooleanField()
    by_topic = TopicScoreSerializer(many=True)
    by_level = LevelScoreSerializer(many=True)
    weakest_topics = TopicScoreSerializer(many=True, help_text="Up to three lowest-scoring topics below full marks")
    strongest_topics = TopicScoreSerializer(many=True, help_text="Up to three highest-scoring topics above zero, never one of the weakest")
    seconds_per_question = serializers.IntegerField(allow_null=True)
    time_used_ms = serializers.IntegerField()
    over_time = serializers.IntegerField(help_text="Answers that took longer than seconds_per_question (interview); each scored at half")


class CauseChoiceSerializer(serializers.Serializer):
    value = serializers.CharField()
    label = serializers.CharField()


class EvidenceMenuItemSerializer(serializers.Serializer):
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=EvidenceKind.choices)
    label = serializers.CharField()


class EvidenceItemSerializer(EvidenceMenuItemSerializer):
    text = serializers.CharField()


class DiagnosisSerializer(serializers.ModelSerializer):
    """A scenario as the learner first sees it: the symptom, the setting, what evidence may be asked for (labels
    only) and the causes to choose from; never the answer or the evidence's text."""
    game = serializers.ChoiceField(choices=Game.choices)
    chapters = ChapterRefSerializer(many=True, read_only=True)
    evidence = serializers.SerializerMethodField()
    choices = serializers.SerializerMethodField()
    max_questions = serializers.SerializerMethodField()

    class Meta:
        model = DiagnosisScenario
        fields = ["slug", "game", "symptom", "details", "evidence", "choices", "max_questions", "chapters"]

    @extend_schema_field(EvidenceMenuItemSerializer(many=True))
    def get_evidence(self, scenario):
        return services.evidence_menu(scenario)

    @extend_schema_field(CauseChoiceSerializer(many=True))
    def get_choices(self, scenario):
        return services.game_causes(scenario.game)

    def get_max_questions(self, scenario) -> int:
        return MAX_QUESTIONS


class DiagnosisFilterSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=Game.choices, required=False, help_text="Only this game's scenarios")


class AttemptSerializer(serializers.ModelSerializer):
    scenario = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game = serializers.CharField(source="scenario.game", read_only=True)
    asked = serializers.ListField(child=serializers.CharField(), read_only=True, help_text="Evidence keys, in order")
    remaining = serializers.SerializerMethodField()

    class Meta:
        model = InvestigationAttempt
        fields = ["id", "scenario", "game", "asked", "remaining", "answer", "correct", "score", "created_at", "finished_at"]

    def get_remaining(self, attempt) -> int:
        return MAX_QUESTIONS - len(attempt.asked)


class AttemptCreatedSerializer(AttemptSerializer):
    token = serializers.CharField(allow_null=True, help_text="Anonymous attempts only: send it back as X-Attempt-Token")

    class Meta(AttemptSerializer.Meta):
        fields = [*AttemptSerializer.Meta.fields, "token"]


class AskInputSerializer(serializers.Serializer):
    evidence = serializers.CharField(max_length=80, help_text="The key of one evidence item of the scenario")


class AskResultSerializer(serializers.Serializer):
    item = EvidenceItemSerializer()
    asked = serializers.ListField(child=serializers.CharField(), help_text="Keys asked for so far, in order")
    remaining = serializers.IntegerField()


class NameCauseSerializer(serializers.Serializer):
    answer = serializers.CharField(max_length=40, help_text="One of the scenario's choices")


class InvestigationResultSerializer(serializers.Serializer):
    correct = serializers.BooleanField()
    score = serializers.FloatField(help_text="Right: 1 − 0.1 per piece of evidence asked for; wrong: 0")
    asked = serializers.IntegerField()
    answer = serializers.CharField(help_text="The cause")
    answer_label = serializers.CharField()
    reasoning_html = serializers.CharField()
    telling = EvidenceItemSerializer(many=True, help_text="The evidence that points to the cause, in full")


class NumberSerializer(serializers.ModelSerializer):
    chapters = ChapterRefSerializer(many=True, read_only=True)

    class Meta:
        model = NumberToMemorize
        fields = ["slug", "label", "value", "unit", "source", "derivation", "chapters"]


# --- authoring (authors and superusers; field names as in fixtures/questions/*.yaml) ----------------------


class OptionSerializer(serializers.Serializer):
    text = serializers.CharField()
    correct = serializers.BooleanField(default=False)
    why = serializers.CharField(required=False, help_text="Why this option is right or wrong")


class NumericKeySerializer(serializers.Serializer):
    value = serializers.FloatField()
    unit = serializers.CharField(help_text="A unit of apps.quiz.units, e.g. GB, GiB/s, ms; empty for a plain number")
    tolerance = serializers.FloatField(min_value=0, help_text="A fraction when relative (0.05 = ±5 %)")
    tolerance_mode = serializers.ChoiceField(choices=["relative", "absolute"], default="relative")


class PairSerializer(serializers.Serializer):
    left = serializers.CharField()
    right = serializers.CharField()


# The key fields are checked as a whole by kinds.validate_key (messages name e.g. `options.1.text`); these document
# the shapes it accepts and returns.
KEY_ITEM = {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"text": {"type": "string"},
                                                                            "bin": {"type": "string"}},
                                           "required": ["text", "bin"]}],
            "description": "ordering: a text; categorize: {text, bin}"}
ItemField = documented_json(KEY_ITEM, "ItemField")


def key_list(item, max_length: int | None = None, **kwargs) -> serializers.ListField:
    """A list of the key's entries, checked as a list here and entry by entry by kinds.validate_key."""
    limit = {"max_length": max_length} if max_length else {}
    documented = documented_json(serializers.ListField(child=item, **limit), "KeyList", serializers.ListField)
    return documented(child=serializers.JSONField(), required=False, **limit, **kwargs)


NumericField = documented_json(NumericKeySerializer, "NumericField", serializers.DictField)


class QuestionWriteSerializer(serializers.Serializer):
    """A question as authored. The answer key is given in the kind's own fields: options (single/multiple choice),
    numeric {value, unit, tolerance, tolerance_mode} (numeric), items (ordering: strings in the right order;
    categorize: {text, bin}), bins (categorize), pairs {left, right} (matching); open questions have none."""

    slug = serializers.SlugField(max_length=120)
    kind = serializers.ChoiceField(choices=Kind.choices)
    level = serializers.ChoiceField(choices=Level.choices)
    topics = serializers.ListField(child=serializers.CharField(max_length=80), required=False, max_length=20,
                                   help_text="Lowercase-hyphenated topic tags")
    chapters = serializers.ListField(child=serializers.SlugField(max_length=120), required=False, max_length=50,
                                     help_text="Chapter slugs (at least one)")
    glossary = serializers.ListField(child=serializers.SlugField(max_length=120), required=False, max_length=100,
                                     help_text="Glossary term slugs")
    prompt = serializers.CharField(trim_whitespace=False, help_text="Markdown")
    answer = serializers.CharField(trim_whitespace=False, help_text="Model answer and explanation (Markdown)")
    options = key_list(OptionSerializer(), 20, help_text="Choice kinds: at least two, one correct for single choice")
    numeric = NumericField(required=False)
    items = key_list(ItemField(), 50, help_text="Ordering: texts in the right order; categorize: {text, bin}")
    bins = serializers.ListField(child=serializers.CharField(max_length=200), required=False, max_length=20)
    pairs = key_list(PairSerializer(), 50, help_text="Matching: at least two")
    sources = sources_field()
    status = serializers.ChoiceField(choices=ContentStatus.choices, required=False,
                                     help_text="draft (authors only) or published; new items default to draft")


class QuestionAuthoringSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.SlugField()
    kind = serializers.CharField()
    level = serializers.CharField()
    topics = serializers.ListField(child=serializers.CharField())
    chapters = serializers.ListField(child=serializers.SlugField())
    glossary = serializers.ListField(child=serializers.SlugField())
    prompt = serializers.CharField()
    answer = serializers.CharField()
    options = key_list(OptionSerializer())
    numeric = NumericField(required=False)
    items = key_list(ItemField())
    bins = serializers.ListField(child=serializers.CharField(), required=False)
    pairs = key_list(PairSerializer())
    sources = serializers.ListField(child=serializers.CharField())
    key_version = serializers.IntegerField()
    status = serializers.CharField()
    updated_at = serializers.DateTimeField()
    warnings = serializers.ListField(child=serializers.CharField())
