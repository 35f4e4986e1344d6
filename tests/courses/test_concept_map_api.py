import pytest

from apps.courses.models import ChapterProgress

from .factories import make_chapter, make_part

pytestmark = pytest.mark.django_db


@pytest.fixture
def graph():
    """a -> b -> d, a -> c -> d, e alone; curriculum order a, b, c, d, e (two parts)."""
    one = make_part("one", 1)
    two = make_part("two", 2)
    a = make_chapter("a", one, 1)
    b = make_chapter("b", one, 2, prerequisites=[a])
    c = make_chapter("c", two, 1, prerequisites=[a])
    d = make_chapter("d", two, 2, prerequisites=[c, b])
    e = make_chapter("e", two, 3)
    return {chapter.slug: chapter for chapter in (a, b, c, d, e)}


def test_concept_map_lists_nodes_in_order_and_prerequisite_edges(api_client, graph):
    body = api_client.get("/api/v1/concept-map/").json()
    assert [(n["slug"], n["part"], n["order"], n["status"]) for n in body["nodes"]] == [
        ("a", "one", 0, None), ("b", "one", 1, None), ("c", "two", 2, None), ("d", "two", 3, None), ("e", "two", 4, None),
    ]
    edges = {(edge["source"], edge["target"]) for edge in body["edges"]}
    assert edges == {("a", "b"), ("a", "c"), ("c", "d"), ("b", "d")}


def test_concept_map_colours_nodes_with_own_progress(learner_client, graph):
    ChapterProgress.objects.create(user=learner_client.user, chapter=graph["b"], status="understood")
    nodes = {n["slug"]: n["status"] for n in learner_client.get("/api/v1/concept-map/").json()["nodes"]}
    assert nodes["b"] == "understood" and nodes["a"] is None


def test_path_lists_all_prerequisites_in_reading_order(api_client, graph):
    body = api_client.get("/api/v1/concept-map/path/?to=d").json()
    assert body["to"] == "d"
    assert [chapter["slug"] for chapter in body["path"]] == ["a", "b", "c", "d"]


def test_path_to_a_chapter_without_prerequisites_is_itself(api_client, graph):
    assert [c["slug"] for c in api_client.get("/api/v1/concept-map/path/?to=e").json()["path"]] == ["e"]


def test_path_leaves_out_understood_chapters_but_keeps_what_others_still_need(learner_client, graph):
    """b is understood, so it is skipped; a is still needed because c (not understood) depends on it."""
    ChapterProgress.objects.create(user=learner_client.user, chapter=graph["b"], status="understood")
    ChapterProgress.objects.create(user=learner_client.user, chapter=graph["c"], status="reading")
    path = learner_client.get("/api/v1/concept-map/path/?to=d").json()["path"]
    assert [c["slug"] for c in path] == ["a", "c", "d"]
    assert path[1]["status"] == "reading"


def test_path_when_a_and_c_understood_is_b_then_d(learner_client, graph):
    for slug in ("a", "c"):
        ChapterProgress.objects.create(user=learner_client.user, chapter=graph[slug], status="understood")
    assert [c["slug"] for c in learner_client.get("/api/v1/concept-map/path/?to=d").json()["path"]] == ["b", "d"]


def test_path_unknown_target_is_404(api_client, graph):
    assert api_client.get("/api/v1/concept-map/path/?to=zzz").status_code == 404


@pytest.mark.parametrize("query", ["", "?to=", "?from=a"])
def test_path_without_target_is_400_naming_to(api_client, graph, query):
    response = api_client.get(f"/api/v1/concept-map/path/{query}")
    assert response.status_code == 400
    assert "to" in response.json()["fields"]
