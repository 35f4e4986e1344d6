"""Site search: one GET over chapters, glossary terms and questions."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.search import serializers as s
from apps.search import services


class SearchApi(APIView):
    @extend_schema(parameters=[s.SearchQuerySerializer], responses={200: s.SearchResponseSerializer})
    def get(self, request):
        query = s.SearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        result = services.search(query=query.validated_data["q"], limit=query.validated_data["limit"])
        body = {"query": result.query, "corrected": result.corrected, "results": result.results}
        return Response(s.SearchResponseSerializer(body).data)
