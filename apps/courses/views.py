from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.authentication import TokenAuthentication
from apps.core.cache_keys import body_key, cached_body
from apps.core.conditional import RenderedBody, RenderedRows, json_response, json_rows_response
from apps.core.permissions import IsAuthorOrReadOnly, is_author
from apps.courses import serializers as s
from apps.courses import services
from apps.courses.filters import ChapterFilter
from apps.courses.models import Chapter


class SignedInOnly:
    """Token first so an anonymous request gets 401 with a WWW-Authenticate header, not 403."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]


class PartListApi(APIView):
    """The curriculum's parts in order, each with its readable chapter count and, signed in, how many of them the
    reader marked understood."""

    @extend_schema(responses={200: s.PartSerializer(many=True)})
    def get(self, request):
        return Response(s.PartSerializer(services.part_list(user=request.user), many=True).data)


AUTHORING_RESPONSES = {400: None, 401: None, 403: None}


class ChapterListApi(generics.ListAPIView):
    """Chapters in curriculum order (learners: published only; authors also drafts). POST: authors create one."""

    serializer_class = s.ChapterListSerializer
    filterset_class = ChapterFilter
    permission_classes = [IsAuthorOrReadOnly]

    @extend_schema(request=s.ChapterWriteSerializer, responses={201: s.ChapterAuthoringSerializer, **AUTHORING_RESPONSES})
    def post(self, request):
        data = s.ChapterWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        chapter = services.chapter_write(chapter=None, data=data.validated_data)
        return Response(s.ChapterAuthoringSerializer(services.chapter_authoring(chapter)).data, status=status.HTTP_201_CREATED)

    def get_queryset(self):
        # The list shows no body: leave the large text columns in the database.
        return (services.chapter_queryset(self.request.user).order_by("part__order", "order")
                .defer("body", "body_html", "objectives", "key_numbers", "simulators", "source_file"))

    def list(self, request, *args, **kwargs):
        # The page without progress is the same for every learner (authors: with drafts): cached by content version
        # and URL (filters, page, host in the links); the reader's statuses are filled in afterwards.
        key = body_key("chapter-list", is_author(request.user), request.build_absolute_uri())

        def build() -> tuple[RenderedRows, list[str]]:
            data = super(ChapterListApi, self).list(request, *args, **kwargs).data
            rows = data["results"] if isinstance(data, dict) else data
            return RenderedRows.of(data, without="status"), [row["slug"] for row in rows]

        page, slugs = cached_body(key, build)
        progress = services.progress_by_slug(request.user)
        return json_rows_response(page, "status", [progress.get(slug) for slug in slugs])

    def get_serializer_context(self):
        # Statuses are per reader and merged by list(); the cached page carries none.
        return {**super().get_serializer_context(), "progress": {}}


def link(chapter: Chapter | None) -> dict | None:
    return {"slug": chapter.slug, "title": chapter.title} if chapter else None


def _chapter_detail(user, chapter: Chapter, author: bool) -> dict:
    previous, following = services.chapter_neighbours(user=user, chapter=chapter, author=author)
    return {
        "slug": chapter.slug,
        "title": chapter.title,
        "part": {"slug": chapter.part.slug, "title": chapter.part.title},
        "order": chapter.order,
        "summary": chapter.summary,
        "minutes": chapter.minutes,
        "level": chapter.level,
        "objectives": chapter.objectives,
        "key_numbers": chapter.key_numbers,
        "body_html": chapter.body_html,
        "prerequisites": [link(other) for other in chapter.prerequisites.all()],
        "simulators": [{"name": name, "url": f"/lab/{name}"} for name in chapter.simulators],
        "glossary_terms": [{"slug": t.slug, "term": t.term, "definition": t.definition} for t in chapter.glossary_terms.all()],
        "questions": [{"id": q.id, "slug": q.slug, "kind": q.kind, "level": q.level} for q in chapter.questions.all()],
        "previous": previous,
        "next": following,
        "status": None,
    }


class ChapterDetailApi(APIView):
    """GET: the reader's view (a draft is a 404 except to authors, who preview it exactly as learners will see it).
    PATCH / DELETE: authors only."""

    permission_classes = [IsAuthorOrReadOnly]

    @extend_schema(responses={200: s.ChapterDetailSerializer})
    def get(self, request, slug: str):
        author = is_author(request.user)

        def build() -> dict:
            chapter = services.chapter_get(user=request.user, slug=slug, author=author)  # 404: nothing cached
            body = s.ChapterDetailSerializer(_chapter_detail(request.user, chapter, author)).data
            del body["status"]  # the reader's, appended on every answer
            return {"pk": chapter.pk, "body": RenderedBody.of(body)}

        # The page is the same for every reader but the status (authors: drafts too): cached, rendered, by content
        # version; the status is appended to the rendered JSON.
        page = cached_body(body_key("chapter", slug, author), build)
        return json_response(page["body"], status=services.chapter_status(request.user, page["pk"]))

    @extend_schema(request=s.ChapterWriteSerializer(partial=True),
                   responses={200: s.ChapterAuthoringSerializer, 404: None, **AUTHORING_RESPONSES})
    def patch(self, request, slug: str):
        chapter = services.chapter_for_authoring(slug)
        data = s.ChapterWriteSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        chapter = services.chapter_write(chapter=chapter, data=data.validated_data)
        return Response(s.ChapterAuthoringSerializer(services.chapter_authoring(chapter)).data)

    @extend_schema(responses={204: None, 401: None, 403: None, 404: None})
    def delete(self, request, slug: str):
        services.chapter_delete(services.chapter_for_authoring(slug))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChapterProgressApi(SignedInOnly, APIView):
    @extend_schema(request=s.ProgressInputSerializer, responses={200: s.ProgressOutputSerializer})
    def put(self, request, slug: str):
        data = s.ProgressInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        status = services.progress_set(user=request.user, slug=slug, status=data.validated_data["status"])
        return Response({"chapter": slug, "status": status})


class ProgressApi(SignedInOnly, APIView):
    @extend_schema(responses={200: s.ProgressSummarySerializer})
    def get(self, request):
        return Response(s.ProgressSummarySerializer(services.progress_summary(user=request.user)).data)


class ProgressMergeApi(SignedInOnly, APIView):
    @extend_schema(request=s.MergeInputSerializer, responses={200: s.MergeOutputSerializer})
    def post(self, request):
        data = s.MergeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.progress_merge(user=request.user, chapters=data.validated_data["chapters"])
        body = {
            "merged": result.merged,
            "unchanged": result.unchanged,
            "unknown": result.unknown,
            "progress": services.progress_summary(user=request.user),
        }
        return Response(s.MergeOutputSerializer(body).data)


class ConceptMapApi(APIView):
    """Every readable chapter as a node (with the reader's progress) and its prerequisites as edges."""

    @extend_schema(responses={200: s.ConceptMapSerializer})
    def get(self, request):
        return Response(s.ConceptMapSerializer(services.concept_map(user=request.user)).data)


class ConceptPathApi(APIView):
    @extend_schema(parameters=[s.ConceptPathQuerySerializer], responses={200: s.ConceptPathSerializer})
    def get(self, request):
        query = s.ConceptPathQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        target = query.validated_data["to"]
        try:
            path = services.concept_path(user=request.user, to=target)
        except Chapter.DoesNotExist:
            raise Http404
        progress = services.progress_by_slug(request.user)
        chapters = s.ChapterListSerializer(path, many=True, context={"progress": progress}).data
        return Response({"to": target, "path": chapters})
