from rest_framework import serializers

from apps.courses.models import Level


class PlanInputSerializer(serializers.Serializer):
    interview_date = serializers.DateField(help_text="The interview's day (after today, within a year)")
    minutes_per_day = serializers.IntegerField(min_value=10, max_value=720, help_text="Minutes of study a day")
    days_off = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=6), max_length=7,
                                     required=False, default=list,
                                     help_text="Weekdays with no study: 0 Monday ... 6 Sunday")
    level = serializers.ChoiceField(choices=Level.choices, help_text="The level the interview asks for")
    parts = serializers.ListField(child=serializers.SlugField(max_length=80), max_length=50, required=False,
                                  default=list, help_text="Part slugs to focus on; empty: every part")


class PlanChapterSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    minutes = serializers.IntegerField()
    url = serializers.CharField()


class PlanPracticeSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField())
    titles = serializers.ListField(child=serializers.CharField(), help_text="The topics as they read")
    level = serializers.CharField()
    url = serializers.CharField(help_text="The practice page with the weakest topic and the level chosen")


class PlanDesignSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField()


class PlanDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    day_off = serializers.BooleanField()
    review_only = serializers.BooleanField(help_text="One of the last days: reviews only")
    reviews = serializers.IntegerField(help_text="Flashcard reviews FSRS has due that day, as the plan follows them")
    new_cards = serializers.IntegerField(help_text="Cards first studied that day (within your new cards a day)")
    cards_to_add = serializers.IntegerField(help_text="Of them, cards of the day's chapters not yet in your collection")
    mock_interview = serializers.BooleanField()
    design_exercise = PlanDesignSerializer(allow_null=True, help_text="Senior and staff plans: a capacity-planning "
                                                                     "exercise graded by the simulators")
    minutes = serializers.FloatField(help_text="Minutes the day's list takes")
    practice = PlanPracticeSerializer(allow_null=True)
    chapters = PlanChapterSerializer(many=True)


class PlanTopicSerializer(serializers.Serializer):
    topic = serializers.CharField()
    title = serializers.CharField(help_text="The topic as it reads: 'KV cache' for kv-cache")
    cards = serializers.IntegerField()
    recall = serializers.FloatField(help_text="Mean FSRS retrievability of the topic's cards on the interview day")
    accuracy = serializers.FloatField(allow_null=True, help_text="Practice score at the plan's level; null: none yet")
    readiness = serializers.FloatField(help_text="Mean of recall and accuracy (0 for no practice)")


class PlanSerializer(serializers.Serializer):
    interview_date = serializers.DateField()
    minutes_per_day = serializers.IntegerField()
    days_off = serializers.ListField(child=serializers.IntegerField())
    level = serializers.ChoiceField(choices=Level.choices)
    parts = serializers.ListField(child=serializers.CharField())
    today = serializers.DateField()
    days = PlanDaySerializer(many=True)
    topics = PlanTopicSerializer(many=True)
    readiness = serializers.FloatField(help_text="Readiness over every topic, weighted by its cards")
    unread = serializers.ListField(child=serializers.CharField(), help_text="Chapters the minutes do not reach")
    reviews_left = serializers.IntegerField(help_text="Reviews still due on the interview day")
    advice = serializers.CharField(help_text="What would raise readiness most")
