"""Site search: one GET over chapters, glossary terms and questions."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.search import serializers as s
from apps.search import services


class SearchApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, required=True, description="Search words (max 200 characters)"),
            OpenApiParameter("limit", OpenApiTypes.INT, required=False, description="1 to 50, default 20"),
        ],
        responses={200: s.SearchResponseSerializer},
    )
    def get(self, request):
        query = s.SearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        result = services.search(query=query.validated_data["q"], limit=query.validated_data["limit"])
        body = {"query": result.query, "corrected": result.corrected, "results": result.results}
        return Response(s.SearchResponseSerializer(body).data)
