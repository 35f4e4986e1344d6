import django_filters

from apps.core.filters import StrictFilterSet
from apps.courses.models import Chapter, Level


class ChapterFilter(StrictFilterSet):
    part = django_filters.CharFilter(field_name="part__slug", max_length=120, help_text="Part slug")
    level = django_filters.ChoiceFilter(choices=Level.choices)

    class Meta:
        model = Chapter
        fields = ["part", "level"]
