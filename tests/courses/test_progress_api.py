import pytest

from apps.courses.models import ChapterProgress
from apps.courses.services import MAX_MERGE_CHAPTERS

from .factories import make_chapter, make_part

pytestmark = pytest.mark.django_db


@pytest.fixture
def chapters():
    basics = make_part("basics", 1)
    serving = make_part("serving", 2)
    return {
        "intro": make_chapter("intro", basics, 1),
        "attention": make_chapter("attention", basics, 2),
        "batching": make_chapter("batching", serving, 1),
    }


def statuses(user) -> dict:
    return dict(ChapterProgress.objects.filter(user=user).values_list("chapter__slug", "status"))


def test_put_progress_sets_then_changes_then_clears(learner_client, chapters):
    url = "/api/v1/chapters/intro/progress/"
    assert learner_client.put(url, {"status": "reading"}).json() == {"chapter": "intro", "status": "reading"}
    assert learner_client.put(url, {"status": "understood"}).status_code == 200
    assert statuses(learner_client.user) == {"intro": "understood"}
    assert learner_client.put(url, {"status": None}).json()["status"] is None
    assert statuses(learner_client.user) == {}


def test_put_progress_rejects_bad_status_naming_the_field(learner_client, chapters):
    for body in ({"status": "mastered"}, {}, {"status": 3}):
        response = learner_client.put("/api/v1/chapters/intro/progress/", body)
        assert response.status_code == 400
        assert "status" in response.json()["fields"]


def test_put_progress_anonymous_is_401(api_client, chapters):
    response = api_client.put("/api/v1/chapters/intro/progress/", {"status": "understood"})
    assert response.status_code == 401
    assert ChapterProgress.objects.count() == 0


def test_put_progress_unknown_chapter_is_404(learner_client, chapters):
    assert learner_client.put("/api/v1/chapters/nope/progress/", {"status": "reading"}).status_code == 404


def test_progress_summary_per_part_counts_only_understood_of_own_user(learner_client, make_user, chapters):
    ChapterProgress.objects.create(user=learner_client.user, chapter=chapters["intro"], status="understood")
    ChapterProgress.objects.create(user=learner_client.user, chapter=chapters["attention"], status="reading")
    ChapterProgress.objects.create(user=make_user(), chapter=chapters["batching"], status="understood")
    body = learner_client.get("/api/v1/progress/").json()
    assert body["understood"] == 1
    assert body["total"] == 3
    assert [(p["slug"], p["understood"], p["total"]) for p in body["parts"]] == [("basics", 1, 2), ("serving", 0, 1)]
    assert body["chapters"] == {"intro": "understood", "attention": "reading"}


def test_progress_summary_anonymous_is_401(api_client):
    assert api_client.get("/api/v1/progress/").status_code == 401


def test_merge_adds_upgrades_never_downgrades_and_reports_unknown(learner_client, chapters):
    user = learner_client.user
    ChapterProgress.objects.create(user=user, chapter=chapters["intro"], status="understood")
    ChapterProgress.objects.create(user=user, chapter=chapters["attention"], status="reading")
    response = learner_client.post(
        "/api/v1/progress/merge/",
        {"chapters": {"intro": "reading", "attention": "understood", "batching": "reading", "ghost": "understood"}},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["merged"] == ["attention", "batching"]
    assert body["unchanged"] == ["intro"]
    assert body["unknown"] == ["ghost"]
    assert statuses(user) == {"intro": "understood", "attention": "understood", "batching": "reading"}
    assert body["progress"]["understood"] == 2


def test_merge_twice_changes_nothing_the_second_time(learner_client, chapters):
    payload = {"chapters": {"intro": "understood"}}
    learner_client.post("/api/v1/progress/merge/", payload)
    body = learner_client.post("/api/v1/progress/merge/", payload).json()
    assert body["merged"] == [] and body["unchanged"] == ["intro"]
    assert ChapterProgress.objects.filter(user=learner_client.user).count() == 1


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"chapters": ["intro"]},
        {"chapters": {"intro": "mastered"}},
        {"chapters": {"intro": None}},
        {"chapters": {f"c{i}": "reading" for i in range(MAX_MERGE_CHAPTERS + 1)}},
    ],
)
def test_merge_validates_payload(learner_client, chapters, payload):
    response = learner_client.post("/api/v1/progress/merge/", payload)
    assert response.status_code == 400
    assert any(name.startswith("chapters") for name in response.json()["fields"])
    assert ChapterProgress.objects.count() == 0


def test_merge_anonymous_is_401(api_client, chapters):
    assert api_client.post("/api/v1/progress/merge/", {"chapters": {"intro": "reading"}}).status_code == 401
