"""Flashcard API: thin views — validate, call one service or selector, shape the answer."""

import io
import tempfile

from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.exceptions import InvalidInput
from apps.flashcards import (
    browse,
    checking,
    decks,
    images,
    optimization,
    own_cards,
    presets,
    queue,
    services,
    state,
    stats,
)
from apps.flashcards import serializers as s
from apps.flashcards.interchange import anki_export, collection, export_jobs, jobs
from apps.flashcards.models import OptimizationJob

ERRORS = {400: OpenApiResponse(description="Invalid input; `fields` names the field"),
          401: OpenApiResponse(description="Not signed in"), 403: OpenApiResponse(description="Not signed in"),
          404: OpenApiResponse(description="No such card in your collection")}
CONFLICT = {409: OpenApiResponse(description="Conflicts with the current state")}
CARD_ID = OpenApiParameter("card_id", int, OpenApiParameter.PATH)


class FileFormatParam:
    # For views whose ?format= names a file's format (json, csv, apkg), not DRF's renderer override: the answers
    # are JSON or a file the view builds itself. (A comment, not a docstring: the schema would show a docstring.)
    def perform_content_negotiation(self, request, force=False):
        return JSONRenderer(), JSONRenderer.media_type


class FlashcardApi(APIView):
    permission_classes = [IsAuthenticated]


class DeckListApi(FlashcardApi):
    @extend_schema(responses={200: s.FlashcardDeckSerializer(many=True), **ERRORS}, summary="Decks with your counts")
    def get(self, request):
        return Response(decks.deck_list(user=request.user, now=timezone.now()))


class DeckTreeApi(FlashcardApi):
    @extend_schema(responses={200: s.DeckTreeSerializer, **ERRORS},
                   summary="Deck tree (all → parts → chapters, then topics) with the due queue's counts per subtree")
    def get(self, request):
        return Response(decks.deck_tree(user=request.user, now=timezone.now()))


class DeckAddApi(FlashcardApi):
    @extend_schema(request=None, responses={200: s.DeckAddOutputSerializer, **ERRORS},
                   summary="Add a deck's cards to your collection (idempotent)")
    def post(self, request, slug: str):
        added = services.deck_add(user=request.user, slug=slug, now=timezone.now())
        return Response({"added": added})


class DueApi(FlashcardApi):
    @extend_schema(parameters=[s.DueQuerySerializer], responses={200: s.DueQueueSerializer, **ERRORS},
                   summary="Today's queue: learning, then reviews by due time, then new cards")
    def get(self, request):
        query = s.DueQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return Response(queue.due_queue(user=request.user, deck_slug=data.get("deck") or None,
                                            limit=data["limit"], now=timezone.now()))


class CramApi(FlashcardApi):
    @extend_schema(parameters=[s.CramQuerySerializer], responses={200: s.CramSerializer, **ERRORS},
                   summary="Cram: the weakest cards of a deck (lowest recall now, most lapses); changes no schedule")
    def get(self, request):
        query = s.CramQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return Response(queue.cram_queue(user=request.user, deck_slug=data["deck"], limit=data["limit"],
                                             include_new=data["include_new"], now=timezone.now()))


class CardBrowseApi(FlashcardApi):
    @extend_schema(parameters=[s.BrowseQuerySerializer], responses={200: s.BrowsePageSerializer, **ERRORS},
                   summary="Search your cards: text, deck, tag, Anki deck, state, due, lapses, difficulty; sorted and paged")
    def get(self, request):
        query = s.BrowseQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        filters = dict(query.validated_data)
        page, page_size = filters.pop("page"), filters.pop("page_size")
        return Response(browse.card_browse(user=request.user, filters=filters, page=page, page_size=page_size,
                                              now=timezone.now()))


class AnkiDeckListApi(FlashcardApi):
    @extend_schema(responses={200: s.AnkiDeckSerializer(many=True), 401: ERRORS[401], 403: ERRORS[403]},
                   summary="The Anki decks your imported cards come from (with the decks above them), to browse by")
    def get(self, request):
        return Response(browse.anki_decks(user=request.user))


class CardBulkApi(FlashcardApi):
    @extend_schema(request=s.BulkInputSerializer, responses={200: s.BulkOutputSerializer, **ERRORS},
                   summary="Suspend, unsuspend, bury, unbury, reset or reschedule many of your cards at once")
    def post(self, request):
        data = s.BulkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        return Response(services.cards_bulk(user=request.user, card_ids=values["card_ids"], action=values["action"],
                                            due_date=values.get("due"), now=timezone.now()))


class OwnCardListApi(FlashcardApi):
    @extend_schema(request=s.OwnCardInputSerializer, responses={201: s.OwnCardSerializer, **ERRORS},
                   summary="Write your own card (basic or cloze, Markdown) into a deck; only you see it")
    def post(self, request):
        data = s.OwnCardInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        card = own_cards.own_card_create(user=request.user, deck_slug=values.pop("deck"), now=timezone.now(),
                                         **values)
        return Response(own_cards.own_card_body(card), status=status.HTTP_201_CREATED)


class OwnCardApi(FlashcardApi):
    @extend_schema(parameters=[CARD_ID], responses={200: s.OwnCardSerializer, **ERRORS})
    def get(self, request, card_id: int):
        card, _ = own_cards.own_card_get(user=request.user, card_id=card_id)
        return Response(own_cards.own_card_body(card))

    @extend_schema(parameters=[CARD_ID], request=s.OwnCardInputSerializer, responses={200: s.OwnCardSerializer, **ERRORS},
                   summary="Edit your own card (its schedule and history stay)")
    def patch(self, request, card_id: int):
        data = s.OwnCardInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        card = own_cards.own_card_update(user=request.user, card_id=card_id, now=timezone.now(), **data.validated_data)
        return Response(own_cards.own_card_body(card))

    @extend_schema(parameters=[CARD_ID], responses={204: None, **ERRORS},
                   summary="Delete your own card with its review history")
    def delete(self, request, card_id: int):
        own_cards.own_card_delete(user=request.user, card_id=card_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RawBodyParser(BaseParser):
    """A file as the raw request body, read up to ``limit`` bytes (one byte more tells it is too large)."""

    media_type = "*/*"
    limit = 0

    def too_large(self) -> Exception:
        return ParseError(f"File too large (at most {self.limit // 2**20} MB).")

    def parse(self, stream, media_type=None, parser_context=None):
        data = stream.read(self.limit + 1) if stream is not None else b""
        if len(data) > self.limit:
            raise self.too_large()
        return data


class ImageParser(RawBodyParser):
    limit = images.MAX_BYTES

    def too_large(self) -> Exception:
        return InvalidInput(f"The image is larger than {images.MAX_BYTES // 2**20} MB.", field="file")


IMAGE_ID = OpenApiParameter("image_id", int, OpenApiParameter.PATH)
IMAGE_ERRORS = {**ERRORS, 404: OpenApiResponse(description="No such image of yours")}


class CardImageListApi(FlashcardApi):
    parser_classes = [ImageParser]

    @extend_schema(parameters=[s.CardImageQuerySerializer],
                   request={"application/octet-stream": OpenApiTypes.BINARY},
                   responses={201: s.CardImageSerializer, 200: s.CardImageSerializer, **ERRORS},
                   summary="Upload an image for your own cards (PNG, JPEG, WebP or GIF; at most 2 MB and 4096 pixels "
                           "a side; 50 MB in all); answers the Markdown that shows it (200: the same image again). "
                           "GET on its url serves it, to you only, for the <img> of your cards")
    def post(self, request):
        query = s.CardImageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = request.data
        if not isinstance(data, bytes):
            raise InvalidInput("Send the image file as the request body.", field="file")
        image, created = images.image_upload(user=request.user, data=data, alt=query.validated_data["alt"])
        return Response(images.image_body(image), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class CardImageApi(FlashcardApi):
    # Not in the schema: an image for the browser's <img>, not an API answer (the upload documents its url), and
    # the generated clients take no image/* answers.
    @extend_schema(exclude=True)
    def get(self, request, image_id: int):
        image = images.image_get(user=request.user, image_id=image_id)
        response = HttpResponse(bytes(image.data), content_type=image.content_type)
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        response["Cache-Control"] = "private, max-age=31536000, immutable"  # an id's bytes never change
        response["ETag"] = f'"{image.sha256}"'
        response["Content-Disposition"] = "inline"
        return response

    @extend_schema(parameters=[IMAGE_ID], responses={204: None, **IMAGE_ERRORS},
                   summary="Delete one of your images (cards showing it show its alt text instead)")
    def delete(self, request, image_id: int):
        images.image_delete(user=request.user, image_id=image_id)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def perform_content_negotiation(self, request, force=False):
        # An <img> asks for image/*: the image is the answer, and any error is JSON.
        return JSONRenderer(), JSONRenderer.media_type


class CardCheckApi(FlashcardApi):
    @extend_schema(parameters=[CARD_ID], request=s.CardCheckInputSerializer,
                   responses={200: s.CardCheckSerializer, **ERRORS,
                              409: OpenApiResponse(description="The card is not made from a numeric question")},
                   summary="Check a typed answer on a card made from a numeric question, as practice does (units "
                           "converted, the question's tolerance); suggests a rating and changes no schedule")
    def post(self, request, card_id: int):
        data = s.CardCheckInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(checking.card_check(user=request.user, card_id=card_id, answer=data.validated_data["answer"]))


class CardDetailApi(FlashcardApi):
    @extend_schema(parameters=[CARD_ID], responses={200: s.CardDetailSerializer, **ERRORS},
                   summary="One of your cards with its review history and FSRS memory after each review")
    def get(self, request, card_id: int):
        return Response(browse.card_detail(user=request.user, card_id=card_id, now=timezone.now()))


class CardReviewApi(FlashcardApi):
    @extend_schema(request=s.ReviewInputSerializer, parameters=[CARD_ID],
                   responses={201: s.ReviewOutputSerializer, 200: s.ReviewOutputSerializer, **ERRORS, **CONFLICT},
                   summary="Rate a card (FSRS); 200 with the stored answer when review_id was seen before")
    def post(self, request, card_id: int):
        data = s.ReviewInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer, replayed = services.card_review(user=request.user, card_id=card_id, now=timezone.now(),
                                                **data.validated_data)
        return Response(answer, status=status.HTTP_200_OK if replayed else status.HTTP_201_CREATED)


class UndoInputSerializer(serializers.Serializer):
    review_id = serializers.UUIDField(
        required=False,
        help_text="The review to undo (the review_id sent with it). With it a retried undo is answered again "
                  "instead of undoing an earlier review; without it the card's last review is undone.")


class CardUndoApi(FlashcardApi):
    @extend_schema(request=UndoInputSerializer, parameters=[CARD_ID],
                   responses={200: s.UndoOutputSerializer, **ERRORS, **CONFLICT},
                   summary="Undo the card's last review (idempotent when review_id is given)")
    def post(self, request, card_id: int):
        data = UndoInputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        return Response(services.card_undo(user=request.user, card_id=card_id,
                                           review_id=data.validated_data.get("review_id")))


class CardSuspendApi(FlashcardApi):
    suspended = True

    @extend_schema(request=None, parameters=[CARD_ID], responses={200: s.CardStateSerializer, **ERRORS, **CONFLICT})
    def post(self, request, card_id: int):
        user_card = services.card_suspend(user=request.user, card_id=card_id, suspended=self.suspended)
        return Response(state.card_state_body(user_card))


class CardUnsuspendApi(CardSuspendApi):
    suspended = False


class CardBuryApi(FlashcardApi):
    buried = True

    @extend_schema(request=None, parameters=[CARD_ID], responses={200: s.CardStateSerializer, **ERRORS},
                   summary="Bury: hide the card until the next day starts (unbury: show it again now)")
    def post(self, request, card_id: int):
        user_card = services.card_bury(user=request.user, card_id=card_id, now=timezone.now(), buried=self.buried)
        return Response(state.card_state_body(user_card))


class CardUnburyApi(CardBuryApi):
    buried = False


class CardFlagApi(FlashcardApi):
    @extend_schema(request=s.FlagInputSerializer, parameters=[CARD_ID], responses={200: s.CardExtrasSerializer, **ERRORS},
                   summary="Flag your card with one of Anki's colours (1-7) or clear the flag (0)")
    def post(self, request, card_id: int):
        data = s.FlagInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user_card = services.card_flag(user=request.user, card_id=card_id, flag=data.validated_data["flag"])
        return Response(services.card_extras_body(user_card))


class CardNoteApi(FlashcardApi):
    @extend_schema(request=s.NoteInputSerializer, parameters=[CARD_ID], responses={200: s.CardExtrasSerializer, **ERRORS},
                   summary="Your private note on a card (only you see it)")
    def put(self, request, card_id: int):
        data = s.NoteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user_card = services.card_note_set(user=request.user, card_id=card_id, note=data.validated_data["note"])
        return Response(services.card_extras_body(user_card))


class SrsSettingsApi(FlashcardApi):
    @extend_schema(responses={200: s.SrsSettingsSerializer, **ERRORS})
    def get(self, request):
        return Response(s.SrsSettingsSerializer(state.settings_get(user=request.user)).data)

    @extend_schema(request=s.SrsSettingsSerializer, responses={200: s.SrsSettingsSerializer, **ERRORS})
    def patch(self, request):
        data = s.SrsSettingsSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        srs = services.settings_update(user=request.user, **data.validated_data)
        return Response(s.SrsSettingsSerializer(srs).data)


class DeckPresetListApi(FlashcardApi):
    @extend_schema(responses={200: s.DeckPresetSerializer(many=True), **ERRORS}, summary="Your deck option presets")
    def get(self, request):
        return Response(presets.preset_list(user=request.user))

    @extend_schema(request=s.DeckPresetSerializer, responses={201: s.DeckPresetSerializer, **ERRORS},
                   summary="A new deck option preset (limits, retention, steps), as Anki's")
    def post(self, request):
        data = s.DeckPresetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        preset = presets.preset_create(user=request.user, **data.validated_data)
        return Response(presets.preset_body(preset), status=status.HTTP_201_CREATED)


PRESET_ID = OpenApiParameter("preset_id", int, OpenApiParameter.PATH)


class DeckPresetApi(FlashcardApi):
    @extend_schema(parameters=[PRESET_ID], responses={200: s.DeckPresetSerializer, **ERRORS})
    def get(self, request, preset_id: int):
        return Response(presets.preset_body(presets.preset_get(user=request.user, preset_id=preset_id)))

    @extend_schema(parameters=[PRESET_ID], request=s.DeckPresetSerializer,
                   responses={200: s.DeckPresetSerializer, **ERRORS})
    def patch(self, request, preset_id: int):
        data = s.DeckPresetSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        preset = presets.preset_update(user=request.user, preset_id=preset_id, **data.validated_data)
        return Response(presets.preset_body(preset))

    @extend_schema(parameters=[PRESET_ID], responses={204: None, **ERRORS},
                   summary="Delete a preset; its decks go back to their parent's preset or the Default")
    def delete(self, request, preset_id: int):
        presets.preset_delete(user=request.user, preset_id=preset_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeckPresetAssignApi(FlashcardApi):
    @extend_schema(request=s.PresetAssignSerializer, responses={200: s.PresetAssignOutputSerializer, **ERRORS},
                   summary="Use one of your presets for a deck (and the decks below it), or none")
    def put(self, request, slug: str):
        data = s.PresetAssignSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        preset = presets.preset_assign(user=request.user, deck_slug=slug, preset_id=data.validated_data["preset"])
        return Response({"deck": slug, "preset": None if preset is None else {"id": preset.pk, "name": preset.name}})


class StatsApi(FlashcardApi):
    @extend_schema(responses={200: s.FlashcardStatsSerializer, **ERRORS})
    def get(self, request):
        return Response(stats.stats(user=request.user, now=timezone.now()))


def _job_body(job: OptimizationJob) -> dict:
    return {"id": str(job.id), "preset": job.preset_id, "status": job.status, "review_count": job.review_count, "parameters": job.parameters,
            "metrics": job.metrics, "error": job.error, "created_at": state.iso(job.created_at),
            "finished_at": state.iso(job.finished_at)}


class OptimizeApi(FlashcardApi):
    @extend_schema(request=s.OptimizeInputSerializer, responses={202: s.OptimizationJobSerializer, **ERRORS,
                                                                 503: OpenApiResponse(description="Job queue unavailable")},
                   summary="Fit FSRS parameters to the review log of one preset's cards in the background")
    def post(self, request):
        data = s.OptimizeInputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        job = optimization.optimization_job_create(user=request.user, preset_id=data.validated_data.get("preset"))
        return Response(_job_body(job), status=status.HTTP_202_ACCEPTED)


class OptimizeJobApi(FlashcardApi):
    @extend_schema(responses={200: s.OptimizationJobSerializer, **ERRORS})
    def get(self, request, job_id):
        from django.shortcuts import get_object_or_404

        return Response(_job_body(get_object_or_404(OptimizationJob, id=job_id, user=request.user)))


class OptimizeDecideApi(FlashcardApi):
    apply = True

    @extend_schema(request=None, responses={200: s.OptimizationJobSerializer, **ERRORS, **CONFLICT})
    def post(self, request, job_id):
        job = optimization.optimization_job_decide(user=request.user, job_id=job_id, apply=self.apply)
        return Response(_job_body(job))


class OptimizeDiscardApi(OptimizeDecideApi):
    apply = False


class ExportApi(FileFormatParam, FlashcardApi):
    @extend_schema(parameters=[s.ExportQuerySerializer],
                   # The binary types first: a generated client then hands every format back as a file.
                   responses={(200, "application/octet-stream"): OpenApiResponse(
                                  OpenApiTypes.BINARY, description="format=apkg: an Anki package (flashcards.apkg); "
                                  "format=csv: one Anki-ready CSV file (flashcards.csv); format=json: the collection"),
                              (200, "text/csv"): OpenApiTypes.BINARY,
                              (200, "application/json"): s.CollectionFileSerializer,
                              **ERRORS, **CONFLICT},
                   summary="Your cards with state and review log: json, csv (one Anki-ready CSV file), apkg, built "
                           "in the request: collections of up to 2,000 cards (409 beyond; POST exports/ instead)")
    def get(self, request):
        query = s.ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        kind, user = query.validated_data["format"], request.user
        export_jobs.sync_export_check(user=user)
        if kind == "json":
            response = StreamingHttpResponse(collection.export_json(user=user, now=timezone.now()),
                                             content_type="application/json")
            response["Content-Disposition"] = 'attachment; filename="flashcards.json"'
            return response
        if kind == "csv":
            return _download(anki_export.export_csv(user=user).encode(), "text/csv; charset=utf-8", "flashcards.csv")
        return _download(anki_export.export_apkg(user=user, now=timezone.now()), "application/octet-stream",
                         "flashcards.apkg")



def _download(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class UploadParser(RawBodyParser):
    """Up to the largest import a job takes (the job checks its format's own limit), read a chunk at a time into a
    spooled file: a large upload waits on disk, not in the web worker's memory."""

    limit = max(jobs.MAX_UPLOAD_BYTES.values())

    def too_large(self) -> Exception:
        return ParseError(f"Import file too large (at most {self.limit // 2**20} MB).")

    def parse(self, stream, media_type=None, parser_context=None):
        upload = jobs.Upload(tempfile.SpooledTemporaryFile(max_size=jobs.CHUNK_BYTES), 0)
        while stream is not None and (chunk := stream.read(jobs.CHUNK_BYTES)):
            upload.size += len(chunk)
            if upload.size > self.limit:
                upload.file.close()
                raise self.too_large()
            upload.file.write(chunk)
        upload.file.seek(0)
        return upload


class ImportJobListApi(FileFormatParam, FlashcardApi):
    parser_classes = [UploadParser]

    @extend_schema(responses={200: s.ImportJobSerializer(many=True), **ERRORS},
                   summary="Your latest imports (newest first, at most 20)")
    def get(self, request):
        return Response([jobs.import_job_body(job) for job in jobs.import_jobs(user=request.user)])

    @extend_schema(parameters=[s.ImportJobQuerySerializer], request={"application/octet-stream": OpenApiTypes.BINARY},
                   responses={202: s.ImportJobSerializer, **ERRORS, **CONFLICT},
                   summary="Import a collection file in the background (json up to 100 MB, apkg and csv up to 20 MB): 202 "
                           "with the job to poll; one import of yours at a time (409)")
    def post(self, request):
        query = s.ImportJobQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        upload = request.data if isinstance(request.data, jobs.Upload) else jobs.Upload(io.BytesIO(), 0)
        with upload.file:
            job = jobs.import_job_create(user=request.user, fmt=query.validated_data["format"], upload=upload)
        body = jobs.import_job_body(job)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class ImportJobApi(FlashcardApi):
    @extend_schema(responses={200: s.ImportJobSerializer, **ERRORS}, summary="One of your imports: progress, result")
    def get(self, request, job_id):
        return Response(jobs.import_job_body(jobs.import_job_get(user=request.user, job_id=job_id)))


class ExportJobListApi(FlashcardApi):
    @extend_schema(responses={200: s.ExportJobSerializer(many=True), **ERRORS},
                   summary="Your exports (newest first): each finished file is kept a day, the last five of yours")
    def get(self, request):
        return Response([export_jobs.export_job_body(job) for job in export_jobs.export_jobs(user=request.user)])

    @extend_schema(request=s.ExportJobInputSerializer, responses={202: s.ExportJobSerializer, **ERRORS, **CONFLICT},
                   summary="Export your cards with state and review log in the background (json, csv, apkg): 202 with "
                           "the job to poll, then download its file_url; one export of yours at a time (409)")
    def post(self, request):
        data = s.ExportJobInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = export_jobs.export_job_create(user=request.user, fmt=data.validated_data["format"])
        body = export_jobs.export_job_body(job)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class ExportJobApi(FlashcardApi):
    @extend_schema(responses={200: s.ExportJobSerializer, **ERRORS}, summary="One of your exports: progress, file")
    def get(self, request, job_id):
        return Response(export_jobs.export_job_body(export_jobs.export_job_get(user=request.user, job_id=job_id)))


class ExportJobFileApi(FileFormatParam, FlashcardApi):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiResponse(  # binary first, as for export/
                                  OpenApiTypes.BINARY, description="The export's file, streamed: an Anki package "
                                  "(flashcards.apkg), one Anki-ready CSV file (flashcards.csv) or the collection "
                                  "(flashcards.json)"),
                              (200, "text/csv"): OpenApiTypes.BINARY,
                              (200, "application/json"): s.CollectionFileSerializer,
                              **ERRORS, **CONFLICT},
                   summary="Download a finished export (409 until it is done)")
    def get(self, request, job_id):
        job, stored = export_jobs.export_file(user=request.user, job_id=job_id)
        filename, content_type = export_jobs.FILES[job.format]
        response = FileResponse(stored, as_attachment=True, filename=filename, content_type=content_type)
        response.block_size = 256 * 1024
        response["Content-Length"] = str(job.file_bytes)
        return response
