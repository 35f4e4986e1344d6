from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.glossary import services
from apps.glossary.serializers import TermDetailSerializer, TermListSerializer, TermQuerySerializer


@extend_schema(
    parameters=[OpenApiParameter("q", OpenApiTypes.STR, description="Substring of the term or an alias (max 200)")]
)
class TermListApi(generics.ListAPIView):
    """All glossary terms A-Z; ``page_size`` up to 500 lets a client load the whole glossary at once."""

    serializer_class = TermListSerializer
    filter_backends = []

    def get_queryset(self):
        query = TermQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return services.term_list(user=self.request.user, q=query.validated_data.get("q", ""))


class TermDetailApi(APIView):
    @extend_schema(responses={200: TermDetailSerializer})
    def get(self, request, slug: str):
        term = services.term_get(user=request.user, slug=slug)
        return Response(TermDetailSerializer(services.term_detail(term)).data)
