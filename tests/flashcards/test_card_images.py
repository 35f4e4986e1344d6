"""Images on a learner's own cards: uploaded as PNG, JPEG, WebP or GIF (told by their bytes, sized from their
header), size-limited, stored in the database, served to their owner only, and the only images an own card shows."""

import struct
import zlib

import pytest
from rest_framework.test import APIClient

from apps.flashcards import images
from apps.flashcards.models import CardImage
from tests.flashcards.conftest import exported_json, import_file

IMAGES = "/api/v1/flashcards/images/"
OWN = "/api/v1/flashcards/own/"


def png(width: int, height: int, extra: bytes = b"") -> bytes:
    """A real (grey, 8-bit) PNG; ``extra`` goes in a text chunk to make the file bigger."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + (chunk(b"tEXt", b"pad\x00" + extra) if extra else b"") + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00;"


def webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + struct.pack("<I", bits) + b"\x00"
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def webp_extended(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00" * 4 + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(
        3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def webp_lossy(width: int, height: int) -> bytes:
    frame = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    body = b"VP8 " + struct.pack("<I", len(frame)) + frame
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def upload(client, data: bytes, alt: str = "", content_type: str = "application/octet-stream"):
    url = f"{IMAGES}?alt={alt}" if alt else IMAGES
    return client.post(url, data, content_type=content_type)


@pytest.fixture
def learner(learner_client, content):
    return learner_client


@pytest.mark.parametrize(("data", "content_type", "size"), [
    (png(3, 2), "image/png", (3, 2)),
    (jpeg(640, 480), "image/jpeg", (640, 480)),
    (gif(17, 9), "image/gif", (17, 9)),
    (webp_lossless(300, 200), "image/webp", (300, 200)),
    (webp_extended(4096, 1), "image/webp", (4096, 1)),
    (webp_lossy(123, 45), "image/webp", (123, 45)),
])
def test_each_format_is_told_by_its_bytes_and_sized_from_its_header(data, content_type, size):
    assert images.sniff(data) == (content_type, *size)


def test_an_upload_is_stored_and_served_to_its_owner_only(learner, stranger):
    data = png(3, 2)
    response = upload(learner, data, alt="KV cache layout", content_type="image/png")
    assert response.status_code == 201, response.content
    body = response.json()
    image_id = body["id"]
    assert body["markdown"] == f"![KV cache layout](/api/v1/flashcards/images/{image_id}/)"
    assert (body["content_type"], body["width"], body["height"], body["size"]) == ("image/png", 3, 2, len(data))
    served = learner.get(body["url"], HTTP_ACCEPT="image/avif,image/webp,*/*")
    assert served.status_code == 200 and served.content == data
    assert served["Content-Type"] == "image/png" and served["X-Content-Type-Options"] == "nosniff"
    assert served["Cache-Control"] == "private, max-age=31536000, immutable"
    assert stranger.get(body["url"]).status_code == 404
    assert stranger.delete(body["url"]).status_code == 404
    assert APIClient().get(body["url"]).status_code == 401
    assert learner.get(f"{IMAGES}{image_id + 1000}/").status_code == 404
    assert learner.get(f"{IMAGES}{2**63}/").status_code == 404


def test_the_same_bytes_again_are_the_same_image(learner):
    first = upload(learner, gif(1, 1)).json()
    again = upload(learner, gif(1, 1))
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    assert CardImage.objects.filter(owner=learner.user).count() == 1


@pytest.mark.parametrize("data", [
    b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    b"<html><script>alert(1)</script></html>",
    b"\x89PNG\r\n\x1a\n",                     # a signature and nothing else
    b"\xff\xd8\xff\xe0\x00\x10JFIF",          # no frame header
    b"GIF89a\x00\x00\x00\x00",                # 0×0
    png(4097, 1),                             # wider than 4096
    b"",
])
def test_what_is_not_an_image_we_take_is_a_400_naming_the_file(learner, data):
    response = upload(learner, data, content_type="image/png")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["file"]
    assert not CardImage.objects.exists()


def test_an_image_over_2_mb_is_refused(learner):
    data = png(1, 1, extra=b"x" * (2 * 1024 * 1024))
    response = upload(learner, data)
    assert response.status_code == 400 and "2 MB" in response.json()["fields"]["file"][0]


def test_a_long_alt_text_is_a_400_naming_it(learner):
    response = upload(learner, png(1, 1), alt="a" * 201)
    assert response.status_code == 400 and list(response.json()["fields"]) == ["alt"]


def test_the_learner_quota_holds(learner, monkeypatch):
    small, large = png(1, 1), png(1, 1, extra=b"x" * 100)
    monkeypatch.setattr(images, "QUOTA_BYTES", len(small) + len(large))
    assert upload(learner, small).status_code == 201
    assert upload(learner, large).status_code == 201
    response = upload(learner, png(2, 1))
    assert response.status_code == 400 and "MB" in response.json()["fields"]["file"][0]
    image_id = CardImage.objects.get(owner=learner.user, size=len(large)).pk
    assert learner.delete(f"{IMAGES}{image_id}/").status_code == 204
    assert upload(learner, png(2, 1)).status_code == 201  # room again


def _card(client, front: str, back: str = "Back."):
    return client.post(OWN, {"kind": "basic", "front": front, "back": back, "deck": "all"}, format="json")


def test_an_own_card_shows_an_uploaded_image(learner):
    snippet = upload(learner, png(3, 2), alt="layout").json()["markdown"]
    response = _card(learner, f"What does this show?\n\n{snippet}")
    assert response.status_code == 201, response.content
    url = snippet.split("(")[1].rstrip(")")
    assert f'<img alt="layout" src="{url}">' in response.json()["front_html"]


@pytest.mark.parametrize("markdown", [
    "![x](https://evil.example/track.png)",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml;base64,PHN2Zz4=)",
    '<img src="https://evil.example/x.png">',
    "![x](/api/v1/flashcards/images/1/../../../admin/)",
    "![x](/media/x.png)",
])
def test_any_other_image_is_refused_naming_the_side(learner, markdown):
    response = _card(learner, "Front", back=markdown)
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["back"]


def test_another_learners_image_is_refused(learner, stranger):
    theirs = upload(stranger, png(5, 5)).json()["markdown"]
    response = _card(learner, theirs)
    assert response.status_code == 400 and list(response.json()["fields"]) == ["front"]


def test_the_sanitizer_drops_other_image_sources_whoever_calls_it():
    html = images.render_card_markdown('![a](https://x.example/a.png) <img src="/api/v1/flashcards/images/7/" '
                                       'onerror="alert(1)">')
    assert 'src="https://' not in html and "onerror" not in html
    assert 'src="/api/v1/flashcards/images/7/"' in html


def test_content_rendering_is_unchanged():
    from apps.core.rendering import render_markdown

    assert 'src="https://example.com/a.png"' in render_markdown("![a](https://example.com/a.png)")


def test_the_export_carries_the_image_reference(learner):
    snippet = upload(learner, png(3, 2), alt="layout").json()["markdown"]
    card_id = _card(learner, f"Front {snippet}").json()["card_id"]
    exported = exported_json(learner)
    card = next(c for c in exported["cards"] if c["source_type"] == "own")
    assert snippet in card["front"]
    status, job = import_file(learner, exported, "json")
    assert status == 202 and job["status"] == "done", job
    assert snippet in learner.get(f"{OWN}{card_id}/").json()["front"]


def test_the_anki_package_carries_the_images_as_media(learner):
    import io
    import json
    import sqlite3
    import tempfile
    import zipfile
    from pathlib import Path

    data = png(3, 2)
    snippet = upload(learner, data, alt="layout").json()["markdown"]
    image_id = int(snippet.split("/images/")[1].split("/")[0])
    card_id = _card(learner, f"Front {snippet}").json()["card_id"]
    response = learner.get("/api/v1/flashcards/export/?format=apkg")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    name = f"llmkit-image-{image_id}.png"
    assert json.loads(archive.read("media")) == {"0": name}
    assert archive.read("0") == data
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "collection.anki2"
        path.write_bytes(archive.read("collection.anki2"))
        connection = sqlite3.connect(path)
        (fields,) = connection.execute("SELECT flds FROM notes WHERE id = ?", (1_700_000_000_000 + card_id,)).fetchone()
        connection.close()
    assert f'src="{name}"' in fields.split("\x1f")[0] and "/api/v1/" not in fields
