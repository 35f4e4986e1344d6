import django_filters

from apps.core.filters import StrictFilterSet
from apps.exercises.models import Category, DesignExercise, ExerciseLevel


class ExerciseFilter(StrictFilterSet):
    category = django_filters.ChoiceFilter(choices=Category.choices)
    level = django_filters.ChoiceFilter(choices=ExerciseLevel.choices)

    class Meta:
        model = DesignExercise
        fields = ["category", "level"]
