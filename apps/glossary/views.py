from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.cache_keys import body_key, cached_body
from apps.core.conditional import RenderedBody, json_response
from apps.core.permissions import IsAuthorOrReadOnly, is_author
from apps.glossary import services
from apps.glossary.serializers import (
    TermAuthoringSerializer,
    TermDetailSerializer,
    TermListSerializer,
    TermQuerySerializer,
    TermWriteSerializer,
)

AUTHORING_RESPONSES = {400: None, 401: None, 403: None}


@extend_schema_view(get=extend_schema(parameters=[TermQuerySerializer]))
class TermListApi(generics.ListAPIView):
    """All glossary terms A-Z; ``page_size`` up to 500 lets a client load the whole glossary at once."""

    serializer_class = TermListSerializer
    filter_backends = []
    permission_classes = [IsAuthorOrReadOnly]

    def get_queryset(self):
        query = TermQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return services.term_list(user=self.request.user, q=query.validated_data.get("q", ""))

    def list(self, request, *args, **kwargs):
        # Same for every reader but authors (drafts): cached by content version and URL (query, page, host).
        key = body_key("term-list", is_author(request.user), request.build_absolute_uri())
        return json_response(cached_body(key, lambda: RenderedBody.of(super(TermListApi, self).list(request, *args, **kwargs).data)))

    @extend_schema(request=TermWriteSerializer, responses={201: TermAuthoringSerializer, **AUTHORING_RESPONSES})
    def post(self, request):
        """Authors create a term (a draft unless `status` says published)."""
        data = TermWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        term = services.term_write(term=None, data=data.validated_data)
        return Response(TermAuthoringSerializer(services.term_authoring(term)).data, status=status.HTTP_201_CREATED)


class TermDetailApi(APIView):
    """GET: the term (drafts are a 404 except to authors). PATCH / DELETE: authors only."""

    permission_classes = [IsAuthorOrReadOnly]

    @extend_schema(responses={200: TermDetailSerializer})
    def get(self, request, slug: str):
        author = is_author(request.user)

        def build() -> RenderedBody:
            term = services.term_get(user=request.user, slug=slug, author=author)
            return RenderedBody.of(TermDetailSerializer(services.term_detail(term)).data)

        # Same for every reader but authors (drafts): cached, rendered, by content version; a 404 is not cached.
        return json_response(cached_body(body_key("term", slug, author), build))

    @extend_schema(request=TermWriteSerializer, responses={200: TermAuthoringSerializer, 404: None, **AUTHORING_RESPONSES})
    def patch(self, request, slug: str):
        term = services.term_for_authoring(slug)
        data = TermWriteSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        term = services.term_write(term=term, data=data.validated_data)
        return Response(TermAuthoringSerializer(services.term_authoring(term)).data)

    @extend_schema(responses={204: None, 401: None, 403: None, 404: None})
    def delete(self, request, slug: str):
        services.term_delete(services.term_for_authoring(slug))
        return Response(status=status.HTTP_204_NO_CONTENT)
