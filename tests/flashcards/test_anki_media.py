"""The images of a learner's Anki package, written by the official ``anki`` library in both its formats (a JSON
media list and plain members; a zstd-compressed protobuf list and zstd members): the images the cards show become
the learner's card images, served to them alone; sounds, files that are no image, oversized files and files past
a bound are left out and reported, never failing the import; a second import changes nothing."""

import hashlib
import io
import json
import os
import struct
import tempfile
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard

from apps.flashcards import images
from apps.flashcards.interchange import anki_media
from apps.flashcards.models import Card, CardImage, OwnNote, UserCard
from tests.flashcards.conftest import import_file
from tests.flashcards.test_anki_import import _zstd_bomb

anki_collection = pytest.importorskip("anki.collection")
import_export_pb2 = pytest.importorskip("anki.import_export_pb2")

def tiny_png(width: int = 3, height: int = 2) -> bytes:
    """A valid RGB PNG, written by hand: signature, IHDR, one zlib IDAT of red pixels, IEND."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PNG = tiny_png()
# A PNG header with more than an image's limit of incompressible bytes behind it.
BIG = tiny_png(5, 5)[:33] + os.urandom(images.MAX_BYTES + 10)

NOTES = {  # front -> back, each a basic note in the deck "Pictures"
    'A dot: <img src="dot.png">': "Red",
    "The same dot again: <img src='dot copy.png'>": "Same bytes, one image",
    'Too big: <img src="big.png">': "Left out",
    'Spoken: [sound:ping.mp3] and <img src="notes.txt">': "Neither is an image",
    'Gone: <img src="missing.png">': "Never in the package",
}


def build_media_package(*, legacy: bool, notes: dict | None = None) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "media.anki2"))
        try:
            for name, data in [("dot.png", PNG), ("dot copy.png", PNG), ("big.png", BIG), ("ping.mp3", b"ID3\x03fake"),
                               ("notes.txt", b"plain text, not a picture")]:
                assert col.media.write_data(name, data) == name
            deck, basic = col.decks.id("Pictures"), col.models.by_name("Basic")
            for front, back in (NOTES if notes is None else notes).items():
                note = col.new_note(basic)
                note["Front"], note["Back"] = front, back
                col.add_note(note, deck)
            out = Path(folder) / "media.apkg"
            col.export_anki_package(out_path=str(out), limit=None, options=anki_collection.ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=True, legacy=legacy))
            return out.read_bytes()
        finally:
            col.close()


@pytest.fixture(scope="module", params=["legacy", "latest"])
def media_package(request) -> dict:
    legacy = request.param == "legacy"
    return {"bytes": build_media_package(legacy=legacy), "legacy": legacy}


def _post(client, body: bytes):
    status, job = import_file(client, body, "apkg")
    assert status == 202 and job["status"] == "done", job
    return job["result"]


def _card(user, front_starts: str) -> Card:
    note = OwnNote.objects.get(user=user, front__startswith=front_starts)
    return Card.objects.get(owner=user, source_id=note.pk)


def _reasons(body: dict) -> dict[str, str]:
    return {entry["name"]: entry["reason"] for entry in body["media"]["skipped_files"]}


def test_the_package_carries_its_media_in_the_layout_of_its_format(media_package):
    """Our reading of the list against Anki's own protobuf classes (latest) or JSON (legacy)."""
    archive = zipfile.ZipFile(io.BytesIO(media_package["bytes"]))
    listed = archive.read("media")
    if media_package["legacy"]:
        expected = {name: member for member, name in json.loads(listed).items()}
        assert archive.read(expected["dot.png"]) == PNG
    else:
        entries = import_export_pb2.MediaEntries.FromString(zstandard.ZstdDecompressor().decompressobj().decompress(
            listed)).entries
        expected = {entry.name: str(index) for index, entry in enumerate(entries)}
        assert next(entry.size for entry in entries if entry.name == "dot.png") == len(PNG)
        assert zstandard.ZstdDecompressor().decompressobj().decompress(archive.read(expected["dot.png"])) == PNG
    assert anki_media.media_list(archive, compressed=not media_package["legacy"]) == expected
    assert set(expected) == {"dot.png", "dot copy.png", "big.png", "ping.mp3", "notes.txt"}


def test_the_images_the_cards_show_become_the_learners_served_to_them_alone(content, learner_client, stranger,
                                                                             media_package):
    user = learner_client.user
    body = _post(learner_client, media_package["bytes"])
    assert body["cards"] == len(NOTES)
    (image,) = CardImage.objects.filter(owner=user)  # dot.png and "dot copy.png" hold the same bytes
    assert image.sha256 == hashlib.sha256(PNG).hexdigest() and (image.width, image.height) == (3, 2)
    path = f"/api/v1/flashcards/images/{image.pk}/"
    assert _card(user, "A dot").front_html == f'<p>A dot: <img src="{path}"></p>'
    assert _card(user, "The same dot").front_html == f'<p>The same dot again: <img src="{path}"></p>'
    served = learner_client.get(path)
    assert served.status_code == 200 and served.content == PNG and served["Content-Type"] == "image/png"
    assert stranger.get(path).status_code == 404
    assert body["media"]["images"] == 1

    # The browser's row shows the side's text, as Anki's browser does, not its markup.
    rows = learner_client.get("/api/v1/flashcards/cards/", {"q": "dot"}).json()["results"]
    assert sorted(row["front"] for row in rows) == ["A dot:", "The same dot again:"]

    # The learner can still edit the card: its image is one of theirs.
    card = _card(user, "A dot")
    edited = learner_client.patch(f"/api/v1/flashcards/own/{card.pk}/", {"back": "Red, edited"}, format="json")
    assert edited.status_code == 200, edited.content


def test_files_left_out_are_reported_and_their_cards_keep_their_text(content, learner_client, media_package):
    user = learner_client.user
    body = _post(learner_client, media_package["bytes"])
    reasons = _reasons(body)
    assert body["media"]["skipped"] == len(reasons) == 4
    assert f"larger than {images.MAX_BYTES // 2**20} MB" in reasons["big.png"]
    assert "Not an image" in reasons["ping.mp3"]
    assert "PNG, JPEG, WebP or GIF" in reasons["notes.txt"]
    assert "Not in the package" in reasons["missing.png"]
    # Each image left out is named where it stood, so the learner sees what is missing and can still edit the card.
    too_big = _card(user, "Too big")
    assert too_big.front == "Too big: [image left out: big.png]"
    assert too_big.front_html == "<p>Too big: [image left out: big.png]</p>"
    assert _card(user, "Spoken").front_html == "<p>Spoken: [sound:ping.mp3] and [image left out: notes.txt]</p>"
    assert _card(user, "Gone").front == "Gone: [image left out: missing.png]"
    edited = learner_client.patch(f"/api/v1/flashcards/own/{too_big.pk}/", {"back": "Left out, edited"}, format="json")
    assert edited.status_code == 200, edited.content
    assert UserCard.objects.filter(user=user).count() == len(NOTES)


def test_a_second_import_changes_nothing(content, learner_client, media_package):
    user = learner_client.user
    _post(learner_client, media_package["bytes"])
    before = (list(CardImage.objects.filter(owner=user).values("id", "sha256")),
              list(Card.objects.filter(owner=user).order_by("id").values("id", "front_html", "back_html")))
    body = _post(learner_client, media_package["bytes"])
    assert body["cards"] == 0 and body["skipped"] == len(NOTES)
    assert body["media"] == {"images": 0, "skipped": 0, "skipped_files": []}
    assert (list(CardImage.objects.filter(owner=user).values("id", "sha256")),
            list(Card.objects.filter(owner=user).order_by("id").values("id", "front_html", "back_html"))) == before


def test_over_the_quota_an_image_is_left_out_and_the_cards_still_arrive(content, learner_client, media_package,
                                                                        monkeypatch):
    monkeypatch.setattr(images, "QUOTA_BYTES", len(PNG) - 1)
    body = _post(learner_client, media_package["bytes"])
    assert body["cards"] == len(NOTES) and body["media"]["images"] == 0
    assert "Your images would take more than" in _reasons(body)["dot.png"]
    assert not CardImage.objects.filter(owner=learner_client.user).exists()
    assert _card(learner_client.user, "A dot").front_html == "<p>A dot: [image left out: dot.png]</p>"


def test_past_the_media_bound_an_image_is_left_out(content, learner_client, media_package, monkeypatch):
    monkeypatch.setattr(anki_media, "MAX_MEDIA_BYTES", len(PNG) + 5)  # room for one copy of the dot, no more
    body = _post(learner_client, media_package["bytes"])
    reasons = _reasons(body)
    # Read in name order, "big.png" first. A legacy member's stated size refuses it unread, so "dot copy.png" still
    # fits; a zstd member's size is only known by reading it, and what was read counts, so nothing is left.
    assert "of media one import reads" in reasons["big.png"]
    assert "of media one import reads" in reasons["dot.png"]
    assert body["media"]["images"] == (1 if media_package["legacy"] else 0)
    assert CardImage.objects.filter(owner=learner_client.user).count() == body["media"]["images"]


def test_past_the_file_bound_an_image_is_left_out(content, learner_client, media_package, monkeypatch):
    monkeypatch.setattr(anki_media, "MAX_FILES", 2)  # in name order: "big.png" and "dot copy.png" are opened
    body = _post(learner_client, media_package["bytes"])
    reasons = _reasons(body)
    assert "More than 2 media files" in reasons["dot.png"] and "More than 2 media files" in reasons["notes.txt"]
    assert "Not in the package" in reasons["missing.png"]  # never opened: no file to count
    assert body["media"]["images"] == 1 and "dot copy.png" not in reasons


def _replace(package: bytes, **members: bytes) -> bytes:
    source, out = zipfile.ZipFile(io.BytesIO(package)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for info in source.infolist():
            archive.writestr(info.filename, members.get(info.filename, source.read(info.filename)))
    return out.getvalue()


def test_an_unreadable_media_list_leaves_the_images_out_not_the_cards(content, learner_client, media_package):
    body = _post(learner_client, _replace(media_package["bytes"], media=b"\x28\xb5\x2f\xfd garbage"))
    assert body["cards"] == len(NOTES) and body["media"]["images"] == 0
    assert all("media list is unreadable" in reason for reason in _reasons(body).values())


def test_a_zstd_bomb_among_the_media_is_left_out_without_being_unpacked(content, learner_client, media_package):
    if media_package["legacy"]:
        pytest.skip("a legacy package's media are stored as they are")
    archive = zipfile.ZipFile(io.BytesIO(media_package["bytes"]))
    member = anki_media.media_list(archive, compressed=True)["dot.png"]
    tracemalloc.start()
    try:
        body = _post(learner_client, _replace(media_package["bytes"], **{member: _zstd_bomb(1 << 30)}))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert f"larger than {images.MAX_BYTES // 2**20} MB" in _reasons(body)["dot.png"]
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MiB held while refusing the bomb"
    assert body["media"]["images"] == 1  # "dot copy.png", its own member, still arrives


@pytest.mark.parametrize("data", [b"\x0a", b"\x0a\x05ab", b"\x0f", b"\x80"])
def test_a_broken_protobuf_is_a_value_error(data):
    with pytest.raises(ValueError):
        list(anki_media.protobuf_fields(data))


def test_protobuf_fields_read_what_anki_writes():
    entries = import_export_pb2.MediaEntries(entries=[
        import_export_pb2.MediaEntries.MediaEntry(name="a.png", size=300, sha1=b"\x01" * 20, legacy_zip_filename=7),
        import_export_pb2.MediaEntries.MediaEntry(name="ü.gif", size=2**31)])
    (first, second) = [value for _, value in anki_media.protobuf_fields(entries.SerializeToString())]
    assert list(anki_media.protobuf_fields(first)) == [(1, b"a.png"), (2, 300), (3, b"\x01" * 20), (255, 7)]
    assert list(anki_media.protobuf_fields(second)) == [(1, "ü.gif".encode()), (2, 2**31)]


def test_an_image_already_the_learners_own_is_kept_as_it_is(content, learner_client, stranger):
    """A package exported from here shows the learner's images by their path: an image of theirs stays; another
    learner's is left out like a missing file."""
    user = learner_client.user
    mine = images.image_upload(user=user, data=PNG)[0]
    theirs = images.image_upload(user=stranger.user, data=tiny_png(4, 4))[0]
    mine_path, their_path = (images.IMAGE_PATH.format(id=image.pk) for image in (mine, theirs))
    package = build_media_package(legacy=False, notes={f'Mine: <img src="{mine_path}">': "Kept",
                                                       f'Theirs: <img src="{their_path}">': "Left out"})
    body = _post(learner_client, package)
    assert body["cards"] == 2 and body["media"]["images"] == 0
    assert _card(user, "Mine").front_html == f'<p>Mine: <img src="{mine_path}"></p>'
    assert _card(user, "Theirs").front_html == f"<p>Theirs: [image left out: {their_path}]</p>"
    assert list(_reasons(body)) == [their_path]
