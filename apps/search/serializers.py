from rest_framework import serializers


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="Search words (not blank); typos are tolerated")
    limit = serializers.IntegerField(min_value=1, max_value=50, default=20)


class SearchResultSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["chapter", "term", "question"])
    slug = serializers.CharField(allow_null=True)
    id = serializers.IntegerField(allow_null=True, help_text="Question id (questions only)")
    title = serializers.CharField()
    url = serializers.CharField(help_text="Web client path")
    snippet = serializers.CharField(help_text="HTML-escaped text; matches wrapped in <mark>")
    score = serializers.FloatField()


class SearchResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    corrected = serializers.CharField(allow_null=True, help_text="The query after typo correction, if changed")
    results = SearchResultSerializer(many=True)
