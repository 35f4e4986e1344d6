"""Every JSON read under /api/ answers with an ETag and turns a matching If-None-Match into a 304 with no body:
public and signed-in reads alike, whichever view serves them (the schema lists them, so a new read is covered)."""

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db


def plain_reads() -> list[str]:
    """The GET operations with no path parameter (those need an object of their own to exist)."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(path for path, operations in schema["paths"].items() if "get" in operations and "{" not in path)


READS = plain_reads()


def test_the_schema_has_reads_to_check():
    assert "/api/v1/chapters/" in READS and "/api/v1/simulators/models/" in READS and "/api/v1/flashcards/due/" in READS


@pytest.mark.parametrize("path", READS)
def test_every_read_revalidates(path, learner_client):
    first = learner_client.get(path)
    content_type = first.get("Content-Type", "")
    if first.status_code != 200 or not content_type.startswith("application/json"):
        assert first.status_code < 500
        assert not first.has_header("ETag")
        pytest.skip(f"{path} answers {first.status_code} {content_type} without parameters")
    if first.streaming:  # a download written as it is read (the JSON export): no whole body to tag before sending
        assert "attachment" in first["Content-Disposition"] and not first.has_header("ETag"), path
        pytest.skip(f"{path} streams a download (and carries the time it was written)")
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first["Cache-Control"] == "no-cache"
    assert "Authorization" in first["Vary"]
    again = learner_client.get(path, HTTP_IF_NONE_MATCH=etag)
    if again.status_code == 200:  # only a body that changed meanwhile (a clock in it: the due queue, an export)
        assert again.content != first.content and again["ETag"] != etag, path
        again = learner_client.get(path, HTTP_IF_NONE_MATCH=again["ETag"])
        if again.status_code == 200:
            pytest.skip(f"{path} carries the time of the request: never the same body twice")
    assert again.status_code == 304, path
    assert again.content == b""
    stale = learner_client.get(path, HTTP_IF_NONE_MATCH='"not-the-tag"')
    assert stale.status_code == 200 and stale.content


def test_writes_and_errors_carry_no_etag(learner_client):
    assert not learner_client.get("/api/v1/search/").has_header("ETag")  # 400: q is required
    created = learner_client.post("/api/v1/practice/sessions/", {"size": 1}, format="json")
    assert not created.has_header("ETag")
