from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500


def paginated_schema(serializer_class):
    """The page envelope for views that paginate by hand (generic list views get it from drf-spectacular)."""
    from drf_spectacular.utils import inline_serializer
    from rest_framework import serializers

    name = serializer_class.__name__.removesuffix("Serializer")
    return inline_serializer(
        name=f"Paginated{name}Page",
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer_class(many=True),
        },
    )
