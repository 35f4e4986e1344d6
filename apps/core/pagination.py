from rest_framework import pagination
from rest_framework.exceptions import ValidationError


class PageNumberPagination(pagination.PageNumberPagination):
    """DRF's page numbers, strict about what the client wrote: an empty or non-numeric ``page`` or ``page_size`` is a
    400 naming it (DRF reads ``page=`` as page 1 and ignores a bad ``page_size``). A page past the end stays a 404."""

    page_size_query_param = "page_size"
    max_page_size = 500

    def paginate_queryset(self, queryset, request, view=None):
        for name in (self.page_query_param, self.page_size_query_param):
            value = request.query_params.get(name)
            if value is not None and not (value.isascii() and value.isdigit() and int(value) > 0):
                raise ValidationError({name: [f"must be a whole number from 1 up, not {value[:20]!r}"]})
        return super().paginate_queryset(queryset, request, view)


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
