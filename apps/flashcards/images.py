"""Images on a learner's own cards: uploaded, checked, kept in the database and served to their owner only.

An upload is accepted when its first bytes say PNG, JPEG, WebP or GIF and its header gives the picture's size
(read here from the format's header; no imaging library is needed). SVG and anything else is refused: an SVG can
carry script. Limits: MAX_BYTES an image, MAX_SIDE pixels a side, QUOTA_BYTES for all of one learner's images. The
same bytes uploaded twice are one image.

A card shows an image by the Markdown the upload answers, ``![alt](/api/v1/flashcards/images/<id>/)``. Own cards
are rendered with that one image form allowed and no other: any other image source (another site, ``data:``,
``javascript:``) loses its ``src``, and writing one in a card is refused (400 naming the field).
"""

from __future__ import annotations

import hashlib
import re
import struct

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Sum
from django.shortcuts import get_object_or_404

from apps.core.exceptions import InvalidInput
from apps.core.rendering import render_markdown
from apps.flashcards.models import CardImage

MAX_BYTES = 2 * 1024 * 1024
QUOTA_BYTES = 50 * 1024 * 1024
MAX_SIDE = 4096
ALT_MAX_CHARS = 200
IMAGE_PATH = "/api/v1/flashcards/images/{id}/"
IMAGE_SRC = re.compile(r"^/api/v1/flashcards/images/([0-9]{1,19})/$")
_IMG_TAG = re.compile(r"<img\b[^>]*>")
_SRC = re.compile(r'\bsrc="/api/v1/flashcards/images/([0-9]{1,19})/"')
_JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class ImageError(ValueError):
    pass


def _png(data: bytes) -> tuple[int, int]:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise ImageError("The PNG has no header chunk.")
    return struct.unpack(">II", data[16:24])


def _gif(data: bytes) -> tuple[int, int]:
    if len(data) < 10:
        raise ImageError("The GIF is cut short.")
    return struct.unpack("<HH", data[6:10])


def _webp(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    raise ImageError("The WebP has no image header.")


def _jpeg(data: bytes) -> tuple[int, int]:
    """The size in the first frame header (SOFn), walking the segments before it."""
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            raise ImageError("The JPEG's segments are damaged.")
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            position += 2
            continue
        (length,) = struct.unpack(">H", data[position + 2:position + 4])
        if length < 2:
            raise ImageError("The JPEG's segments are damaged.")
        if marker in _JPEG_FRAMES:
            if position + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[position + 5:position + 9])
            return width, height
        if marker in (0xD9, 0xDA):  # end of image, or the scan starts before any frame header
            break
        position += 2 + length
    raise ImageError("The JPEG has no frame header.")


def sniff(data: bytes) -> tuple[str, int, int]:
    """(content type, width, height) from the bytes themselves; ImageError when they are no image we take."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        content_type, (width, height) = "image/png", _png(data)
    elif data.startswith((b"GIF87a", b"GIF89a")):
        content_type, (width, height) = "image/gif", _gif(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        content_type, (width, height) = "image/webp", _webp(data)
    elif data.startswith(b"\xff\xd8\xff"):
        content_type, (width, height) = "image/jpeg", _jpeg(data)
    else:
        raise ImageError("Upload a PNG, JPEG, WebP or GIF image (SVG and other files are not accepted).")
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise ImageError(f"The image is {width}×{height} pixels; at most {MAX_SIDE}×{MAX_SIDE} (and not empty).")
    return content_type, width, height


def clean_alt(alt: str) -> str:
    """The alt text as it can sit in Markdown's ``![...]``: one line, no brackets."""
    if "\x00" in alt:
        raise InvalidInput("The alt text may not contain NUL characters.", field="alt")
    alt = re.sub(r"\s+", " ", alt.replace("[", "(").replace("]", ")")).strip()
    if len(alt) > ALT_MAX_CHARS:
        raise InvalidInput(f"The alt text is at most {ALT_MAX_CHARS} characters.", field="alt")
    return alt


def markdown_snippet(image: CardImage) -> str:
    return f"![{image.alt or 'image'}]({IMAGE_PATH.format(id=image.pk)})"


def image_body(image: CardImage) -> dict:
    return {"id": image.pk, "url": IMAGE_PATH.format(id=image.pk), "markdown": markdown_snippet(image),
            "content_type": image.content_type, "size": image.size, "width": image.width, "height": image.height,
            "sha256": image.sha256}


def image_upload(*, user, data: bytes, alt: str = "") -> tuple[CardImage, bool]:
    """The stored image and whether it is new (the same bytes again answer the image already stored)."""
    if not data:
        raise InvalidInput("Send the image as the request body.", field="file")
    if len(data) > MAX_BYTES:
        raise InvalidInput(f"The image is larger than {MAX_BYTES // 2**20} MB.", field="file")
    try:
        content_type, width, height = sniff(data)
    except ImageError as exc:
        raise InvalidInput(str(exc), field="file") from exc
    alt = clean_alt(alt)
    digest = hashlib.sha256(data).hexdigest()
    with transaction.atomic():
        # one upload of a learner's at a time, so two at once cannot both fit under the quota
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        existing = CardImage.objects.filter(owner=user, sha256=digest).defer("data").first()
        if existing is not None:
            return existing, False
        used = CardImage.objects.filter(owner=user).aggregate(total=Sum("size"))["total"] or 0
        if used + len(data) > QUOTA_BYTES:
            raise InvalidInput(f"Your images would take more than {QUOTA_BYTES // 2**20} MB; delete some first "
                               f"({used / 2**20:.1f} MB used).", field="file")
        image = CardImage.objects.create(owner=user, data=data, content_type=content_type, size=len(data),
                                         width=width, height=height, sha256=digest, alt=alt)
    return image, True


def image_get(*, user, image_id: int) -> CardImage:
    """The learner's own image, or 404 (another learner's image is as missing as one that never was)."""
    return get_object_or_404(CardImage, pk=image_id, owner=user)


def image_delete(*, user, image_id: int) -> None:
    """The image goes; cards that show it keep their text and show the alt text instead."""
    CardImage.objects.filter(pk=image_get(user=user, image_id=image_id).pk).delete()


# --- rendering own cards ---------------------------------------------------------------------------------------


def _only_own_image_paths(element: str, attribute: str, value: str) -> str | None:
    if element == "img" and attribute == "src" and not IMAGE_SRC.match(value):
        return None
    return value


def render_card_markdown(text: str) -> str:
    """The content sanitizer, with images limited to the uploaded-image path."""
    return render_markdown(text, attribute_filter=_only_own_image_paths)


def check_card_images(*, user, html: str, field: str) -> None:
    """Refuses a card side that shows an image other than one of the learner's uploads."""
    tags = _IMG_TAG.findall(html)
    if not tags:
        return
    if any(not _SRC.search(tag) for tag in tags):
        raise InvalidInput("Only images you uploaded (Add image) can be shown on a card.", field=field)
    ids = {int(match) for tag in tags for match in _SRC.findall(tag)}
    if any(image_id > 2**63 - 1 for image_id in ids) or (
            CardImage.objects.filter(owner=user, pk__in=ids).count() != len(ids)):
        raise InvalidInput("The card shows an image that is not one of yours.", field=field)
