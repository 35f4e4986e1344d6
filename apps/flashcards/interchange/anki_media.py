"""Images in a learner's Anki package: the pictures its cards show (``<img src="name.png">`` in a field) become the
learner's card images (apps.flashcards.images: the same checks, size limit and quota as an upload; the same bytes
are one image), and the cards show them by their path, /api/v1/flashcards/images/<id>/.

- Layout (Anki's rslib, import_export/package/media.rs): the zip member ``media`` lists the files. Legacy packages
  (meta version 1 or 2, or none): JSON mapping each member's name ("0", "1", …) to the file's name, the members
  stored as they are. Latest (version 3, the zstd-compressed collection): ``media`` is zstd-compressed protobuf,
  ``MediaEntries { repeated MediaEntry entries = 1; }`` with ``MediaEntry { string name = 1; uint32 size = 2;
  bytes sha1 = 3; optional uint32 legacy_zip_filename = 255; }``; entry i is member "i", itself zstd-compressed.
- Only the files shown by the cards added now are read; a file a card plays (``[sound:…]``) is reported as
  skipped, not read. Bounds: MAX_LIST_BYTES for the list, MAX_FILES files opened, each read up to images.MAX_BYTES (one
  byte more tells it is too large) and MAX_MEDIA_BYTES in all, every member read in chunks (the zip's and the
  list's stated sizes are not trusted).
- A file refused (not an image, too large, over the quota or a bound, missing, unreadable) never fails the import:
  its card keeps its text, the image replaced by "[image left out: name.png]" (so the learner sees what is missing,
  and the card can be edited: a card showing any image but the learner's own refuses every edit), and the file is
  reported with why.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

import zstandard

from apps.core.exceptions import InvalidInput
from apps.flashcards import images
from apps.flashcards.models import CardImage

MAX_MEDIA_BYTES = 64 * 1024 * 1024
MAX_LIST_BYTES = 4 * 1024 * 1024
MAX_FILES = 1000
MAX_REPORTED = 100
CHUNK_BYTES = 1024 * 1024
IMG_TAG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
IMG_SRC = re.compile(r"""(<img\b[^>]*?\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
SOUND = re.compile(r"\[sound:([^\]]+)\]")


class MediaError(ValueError):
    pass


@dataclass
class MediaImport:
    """The images the added cards show (file name -> our image path) and the files left out, with why."""

    paths: dict[str, str] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)  # sources already showing one of the learner's images

    @property
    def links(self) -> dict[str, str]:
        """Each source a card keeps -> the path it shows."""
        return {**self.kept, **self.paths}

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append({"name": name, "reason": reason})

    def report(self) -> dict:
        return {"images": len(set(self.paths.values())), "skipped": len(self.skipped),
                "skipped_files": self.skipped[:MAX_REPORTED]}


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if position >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[position]
        value |= (byte & 0x7F) << shift
        position, shift = position + 1, shift + 7
        if not byte & 0x80:
            return value, position


def protobuf_fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of each field of a protobuf message: an int for a varint, bytes for a length-delimited
    field; fixed-width fields are skipped. ValueError when the message is cut short or malformed."""
    position = 0
    while position < len(data):
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, position = _varint(data, position)
            yield number, value
        elif wire == 2:
            length, position = _varint(data, position)
            if position + length > len(data):
                raise ValueError("truncated field")
            yield number, data[position:position + length]
            position += length
        elif wire in (1, 5):
            position += 8 if wire == 1 else 4
            if position > len(data):
                raise ValueError("truncated field")
        else:
            raise ValueError("unknown wire type")


def _read(package: zipfile.ZipFile, member: str, *, limit: int, compressed: bool) -> bytes | None:
    """The member, zstd-decompressed when ``compressed``, read in chunks; None once it passes ``limit`` bytes."""
    data = bytearray()
    with package.open(member) as raw:
        stream = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) if compressed else raw
        while len(data) <= limit and (chunk := stream.read(min(CHUNK_BYTES, limit + 1 - len(data)))):
            data += chunk
    return None if len(data) > limit else bytes(data)


def media_list(package: zipfile.ZipFile, *, compressed: bool) -> dict[str, str]:
    """File name (NFC, as Anki keeps them) -> zip member; empty when the package has no media."""
    if "media" not in package.namelist():
        return {}
    listed = _read(package, "media", limit=MAX_LIST_BYTES, compressed=compressed)
    if listed is None:
        raise MediaError(f"the package's media list is larger than {MAX_LIST_BYTES // 2**20} MB")
    members: dict[str, str] = {}
    if not compressed:
        mapping = json.loads(listed or b"{}")
        if not isinstance(mapping, dict):
            raise ValueError("not a map")
        for member, name in mapping.items():
            if isinstance(name, str) and str(member).isdigit():
                members.setdefault(unicodedata.normalize("NFC", name), str(member))
        return members
    index = 0
    for number, entry in protobuf_fields(listed):
        if number != 1 or not isinstance(entry, bytes):
            continue
        names = [value for key, value in protobuf_fields(entry) if key == 1 and isinstance(value, bytes)]
        if names:
            members.setdefault(unicodedata.normalize("NFC", names[-1].decode("utf-8")), str(index))
        index += 1
    return members


def _file_name(src: str, members: dict[str, str]) -> str:
    """The package's name for an ``src`` as a field writes it (HTML entities, maybe percent-encoded)."""
    name = unicodedata.normalize("NFC", html.unescape(src))
    if name not in members:
        decoded = unicodedata.normalize("NFC", unquote(name))
        return decoded if decoded in members else name
    return name


def _sources(text: str) -> Iterator[str]:
    for match in IMG_SRC.finditer(text):
        yield next(group for group in match.groups()[1:] if group is not None)


def media_import(*, user, package: zipfile.ZipFile, compressed: bool, texts: Iterable[str]) -> MediaImport:
    """The images ``texts`` (the fields of the cards added now) show, stored as the learner's card images."""
    texts = list(texts)
    result = MediaImport()
    shown = {src for text in texts for src in _sources(text)}
    result.kept = _own_paths(user, shown)
    shown -= set(result.kept)
    played = {name for text in texts for name in SOUND.findall(text)}
    if not shown and not played:
        return result
    try:
        members = media_list(package, compressed=compressed)
    except (MediaError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, EOFError, zstandard.ZstdError) as exc:
        reason = str(exc) if isinstance(exc, MediaError) else "the package's media list is unreadable"
        for name in sorted(shown | played):
            result.skip(name, f"Not imported: {reason}.")
        return result
    for name in sorted({_file_name(name, members) for name in played} - {_file_name(src, members) for src in shown}):
        result.skip(name, "Not an image (sounds and other files are not imported).")
    budget, opened = MAX_MEDIA_BYTES, 0
    by_name: dict[str, str] = {}
    for name in sorted({_file_name(src, members) for src in shown}):
        path, reason, budget = _store(user=user, package=package, compressed=compressed, member=members.get(name),
                                      budget=budget, opened=opened)
        opened += name in members
        if path is None:
            result.skip(name, reason)
        else:
            by_name[name] = path
    result.paths = {src: by_name[_file_name(src, members)] for src in shown if _file_name(src, members) in by_name}
    return result


def _own_paths(user, sources: set[str]) -> dict[str, str]:
    """The sources that already show one of the learner's images (a package exported from here), kept as written."""
    ids = {src: int(found.group(1)) for src in sources if (found := images.IMAGE_SRC.match(src))}
    owned = set(CardImage.objects.filter(owner=user, pk__in=[pk for pk in ids.values() if pk < 2**63])
                .values_list("pk", flat=True))
    return {src: src for src, image_id in ids.items() if image_id in owned}


def _store(*, user, package: zipfile.ZipFile, compressed: bool, member: str | None, budget: int,
           opened: int) -> tuple[str | None, str, int]:
    """(our image path or None, why not, the bytes left to read) for one file of the package, after ``opened``."""
    if member is None:
        return None, "Not in the package's media.", budget
    if opened >= MAX_FILES:
        return None, f"More than {MAX_FILES} media files in one package.", budget
    limit = min(images.MAX_BYTES, budget)
    try:
        stated_too_large = not compressed and package.getinfo(member).file_size > limit  # checked again as read
        data = None if stated_too_large else _read(package, member, limit=limit, compressed=compressed)
    except (KeyError, zipfile.BadZipFile, zlib.error, EOFError, zstandard.ZstdError):
        return None, "Unreadable in the package.", budget
    if data is None:
        left = budget if stated_too_large else budget - limit
        if limit < images.MAX_BYTES:
            return None, f"Over the {MAX_MEDIA_BYTES // 2**20} MB of media one import reads.", left
        return None, f"The image is larger than {images.MAX_BYTES // 2**20} MB.", left
    if not data:
        return None, "An empty file.", budget
    try:
        image, _ = images.image_upload(user=user, data=data)
    except InvalidInput as exc:
        return None, exc.message, budget - len(data)
    return images.IMAGE_PATH.format(id=image.pk), "", budget - len(data)


def link_images(text: str, paths: dict[str, str]) -> str:
    """The field with each imported image's ``src`` pointing to the learner's copy, and each image left out (or with
    no source) replaced by a note naming it, "[image left out: name.png]": a card showing any other image refuses
    every edit (images.check_card_images), and the learner sees what is missing."""

    def link(match: re.Match) -> str:
        found = IMG_SRC.match(match.group(0))
        src = None if found is None else next(group for group in found.groups()[1:] if group is not None)
        if src is not None and src in paths:
            return f'{found.group(1)}"{paths[src]}"' + match.group(0)[found.end():]
        name = "" if src is None else html.unescape(src)
        return html.escape(f"[image left out: {name}]" if name else "[image left out]", quote=False)

    return IMG_TAG.sub(link, text)
