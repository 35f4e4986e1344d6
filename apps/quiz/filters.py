"""Query filters for the question catalogue: part, chapter and topic by slug; level and kind by value."""

import django_filters

from apps.core.filters import StrictFilterSet
from apps.courses.models import Level
from apps.quiz.models import Kind, Question


class QuestionFilter(StrictFilterSet):
    part = django_filters.CharFilter(field_name="chapters__part__slug", distinct=True, help_text="Part slug")
    chapter = django_filters.CharFilter(field_name="chapters__slug", distinct=True, help_text="Chapter slug")
    topic = django_filters.CharFilter(field_name="topics__slug", distinct=True, help_text="Topic tag")
    level = django_filters.ChoiceFilter(choices=Level.choices)
    kind = django_filters.ChoiceFilter(choices=Kind.choices)

    class Meta:
        model = Question
        fields = ["part", "chapter", "topic", "level", "kind"]
