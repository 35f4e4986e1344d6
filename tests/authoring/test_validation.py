"""Validation on save, through the API (400 naming the field) and through full_clean() (what the admin form runs)."""

import pytest
from django.core.exceptions import ValidationError

from .api_fixtures import API, CHOICE, GPU_SPEC, MODEL

pytestmark = pytest.mark.django_db

NEW_CHAPTER = {"slug": "new-ch", "title": "New", "part": "p1", "order": 9, "summary": "S", "body": "## New\n\nThe KV cache."}
NEW_QUESTION = {"slug": "new-q", "kind": "single_choice", "level": "core", "chapters": ["ch-one"], "prompt": "P?",
                "answer": "A.", "options": CHOICE}
NEW_TERM = {"slug": "new-term", "term": "Paged attention", "definition": "Blocks of KV.", "chapters": ["ch-one"]}


@pytest.fixture
def author(content, client_for):
    return client_for("author")


def fields_of(response, status=400) -> dict:
    assert response.status_code == status, response.content[:600]
    return response.json()["fields"]


# --- questions -------------------------------------------------------------------------------------------------


def test_numeric_question_needs_a_tolerance(author):
    body = {**NEW_QUESTION, "kind": "numeric", "options": None, "numeric": {"value": 16, "unit": "GiB"}}
    body.pop("options")
    fields = fields_of(author.post(f"{API}/questions/", body, format="json"))
    assert list(fields) == ["numeric.tolerance"]


@pytest.mark.parametrize(("kind", "key", "field"), [
    ("single_choice", {"options": [{"text": "a", "correct": True}, {"text": "b", "correct": True}]}, "options"),
    ("single_choice", {"options": [{"text": "a", "correct": True}, {"text": "", "correct": False}]}, "options.1.text"),
    ("ordering", {"items": ["a", "b"]}, "items"),
    ("categorize", {"bins": ["x", "y"], "items": [{"text": "a", "bin": "x"}, {"text": "b", "bin": "z"}]}, "items.1.bin"),
    ("matching", {"pairs": [{"left": "a", "right": "b"}]}, "pairs"),
    ("numeric", {"numeric": {"value": 1, "unit": "parsecs", "tolerance": 0.1}}, "numeric.unit"),
    ("numeric", {"numeric": {"value": 1, "unit": "GB", "tolerance": 5}}, "numeric.tolerance"),
])
def test_answer_key_must_fit_the_kind(author, kind, key, field):
    body = {name: value for name, value in NEW_QUESTION.items() if name != "options"}
    fields = fields_of(author.post(f"{API}/questions/", {**body, "kind": kind, **key}, format="json"))
    assert field in fields


def test_question_links_must_resolve_and_name_the_slug(author):
    fields = fields_of(author.post(f"{API}/questions/", {**NEW_QUESTION, "chapters": ["ch-one", "nope"],
                                                          "glossary": ["ghost"]}, format="json"))
    assert "'nope'" in fields["chapters"][0] and "'ghost'" in fields["glossary"][0]
    assert "chapters" in fields_of(author.post(f"{API}/questions/", {**NEW_QUESTION, "chapters": []}, format="json"))
    assert "topics" in fields_of(author.post(f"{API}/questions/", {**NEW_QUESTION, "topics": ["Bad Tag"]}, format="json"))


def test_question_slug_is_unique(author):
    assert "slug" in fields_of(author.post(f"{API}/questions/", {**NEW_QUESTION, "slug": "q-pub"}, format="json"))


def test_nul_characters_in_a_key_are_a_400_not_a_500(author):
    from apps.quiz.models import Question

    options = [{"text": "a\u0000", "correct": True}, {"text": "b", "correct": False}]
    response = author.post(f"{API}/questions/", {**NEW_QUESTION, "options": options}, format="json")
    assert response.status_code == 400 and not Question.objects.filter(slug="new-q").exists()


def test_a_changed_key_bumps_the_version_and_other_edits_do_not(author, content):
    url = f"{API}/questions/{content.question.id}/"
    assert author.patch(url, {"level": "mid"}, format="json").json()["key_version"] == 1
    flipped = [{**option, "correct": not option["correct"]} for option in CHOICE]
    flipped[2]["correct"] = False
    response = author.patch(url, {"options": flipped}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["key_version"] == 2
    assert response.json()["options"][1] == {"text": "FLOPs", "correct": True}


def test_changing_the_kind_needs_the_new_kinds_key(author, content):
    url = f"{API}/questions/{content.question.id}/"
    assert "items" in fields_of(author.patch(url, {"kind": "ordering"}, format="json"))
    response = author.patch(url, {"kind": "ordering", "items": ["a", "b", "c"]}, format="json")
    assert response.status_code == 200 and response.json()["items"] == ["a", "b", "c"]
    assert "options" not in response.json()


def test_question_full_clean_checks_the_key_like_the_admin_form(content):
    from apps.quiz.models import Question

    question = Question(slug="x", kind="numeric", level="core", prompt="p", answer="a",
                        key={"numeric": {"value": 1, "unit": "GB"}})
    with pytest.raises(ValidationError) as info:
        question.full_clean()
    assert info.value.message_dict["key"][0].startswith("numeric.tolerance:")
    question.key = {"numeric": {"value": 1, "unit": "GB", "tolerance": 0.1}}
    question.full_clean()
    assert question.key["numeric"]["tolerance_mode"] == "relative"  # normalized


# --- chapters --------------------------------------------------------------------------------------------------


def test_chapter_write_renders_the_body_with_glossary_marks(author):
    response = author.post(f"{API}/chapters/", {**NEW_CHAPTER, "glossary": ["kv-cache"], "prerequisites": ["ch-two"],
                                                 "objectives": ["Size it"], "key_numbers": [{"label": "L", "value": "1"}]},
                           format="json")
    body = response.json()
    assert response.status_code == 201, body
    assert 'data-term="kv-cache"' in body["body_html"]
    assert body["status"] == "draft" and body["part"] == "p1" and body["prerequisites"] == ["ch-two"]
    assert body["glossary"] == ["kv-cache"] and body["warnings"] == []


@pytest.mark.parametrize(("change", "field", "text"), [
    ({"prerequisites": ["nope"]}, "prerequisites", "'nope'"),
    ({"glossary": ["ghost"]}, "glossary", "'ghost'"),
    ({"part": "no-part"}, "part", "'no-part'"),
    ({"simulators": ["warp-drive"]}, "simulators", "warp-drive"),
    ({"slug": "ch-one"}, "slug", "already exists"),
    ({"order": 1}, "order", "ch-one"),
    ({"body": "x" * 200_001}, "body", "200,000"),
])
def test_chapter_rules_through_the_api(author, change, field, text):
    fields = fields_of(author.post(f"{API}/chapters/", {**NEW_CHAPTER, **change}, format="json"))
    assert field in fields and text in fields[field][0], fields


def test_prerequisite_cycles_are_refused_naming_the_chapters(author):
    fields = fields_of(author.patch(f"{API}/chapters/ch-one/", {"prerequisites": ["ch-draft"]}, format="json"))
    message = fields["prerequisites"][0]
    assert "cycle" in message and all(slug in message for slug in ("ch-one", "ch-two", "ch-draft"))
    own = fields_of(author.patch(f"{API}/chapters/ch-one/", {"prerequisites": ["ch-one"]}, format="json"))
    assert "own prerequisite" in own["prerequisites"][0]


def test_markdown_that_fails_to_render_is_a_400(author, monkeypatch):
    import apps.core.validation as validation

    def broken(text):
        raise RecursionError("nested too deeply")

    monkeypatch.setattr(validation, "render_markdown", broken)  # the renderer the validator calls
    fields = fields_of(author.patch(f"{API}/chapters/ch-one/", {"body": "> > > deep"}, format="json"))
    assert "nested too deeply" in fields["body"][0]


def test_chapter_full_clean_checks_body_size_and_simulators(content):
    content.one.body = "y" * 200_001
    content.one.objectives, content.one.key_numbers = ["Read it"], [{"label": "L", "value": "1"}]
    content.one.simulators = ["kv-cache", "warp-drive"]
    with pytest.raises(ValidationError) as info:
        content.one.full_clean()
    assert set(info.value.message_dict) == {"body", "simulators"}


def test_renaming_a_chapter_keeps_its_links_and_cycle_check(author):
    response = author.patch(f"{API}/chapters/ch-two/", {"slug": "ch-two-renamed", "title": "Two"}, format="json")
    assert response.status_code == 200 and response.json()["prerequisites"] == ["ch-one"]
    fields = fields_of(author.patch(f"{API}/chapters/ch-one/", {"prerequisites": ["ch-two-renamed"]}, format="json"))
    assert "cycle" in fields["prerequisites"][0]


# --- glossary --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "field", "text"), [
    ({"related": ["ghost"]}, "related", "'ghost'"),
    ({"related": ["new-term"]}, "related", "itself"),
    ({"chapters": ["nope"]}, "chapters", "'nope'"),
    ({"simulators": ["warp-drive"]}, "simulators", "warp-drive"),
    ({"slug": "kv-cache"}, "slug", "already exists"),
    ({"explanation": "z" * 200_001}, "explanation", "200,000"),
])
def test_term_rules_through_the_api(author, change, field, text):
    fields = fields_of(author.post(f"{API}/glossary/", {**NEW_TERM, **change}, format="json"))
    assert field in fields and text in fields[field][0], fields


def test_publishing_a_term_marks_it_in_chapters_that_mention_it(author, content):
    from apps.courses.models import Chapter

    author.patch(f"{API}/chapters/ch-two/", {"body": "## Two\n\nPaged attention splits the cache."}, format="json")
    created = author.post(f"{API}/glossary/", NEW_TERM, format="json")
    assert created.status_code == 201 and created.json()["status"] == "draft"
    assert 'data-term="new-term"' not in Chapter.objects.get(slug="ch-two").body_html  # drafts are not marked
    assert author.patch(f"{API}/glossary/new-term/", {"status": "published"}, format="json").status_code == 200
    assert 'data-term="new-term"' in Chapter.objects.get(slug="ch-two").body_html
    assert author.delete(f"{API}/glossary/new-term/").status_code == 204
    assert 'data-term="new-term"' not in Chapter.objects.get(slug="ch-two").body_html


def test_term_full_clean_checks_aliases(content):
    content.term.aliases = ["ok", ""]
    with pytest.raises(ValidationError) as info:
        content.term.full_clean()
    assert "aliases" in info.value.message_dict


# --- catalog ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "field"), [
    ({"num_kv_heads": 64}, "num_kv_heads"),
    ({"num_kv_heads": 5}, "num_kv_heads"),
    ({"attention": "mha"}, "num_kv_heads"),
    ({"attention": "mqa"}, "num_kv_heads"),
    ({"num_experts": 8, "experts_per_token": 9, "moe_intermediate_size": 100}, "experts_per_token"),
    ({"experts_per_token": 2}, "num_experts"),
    ({"num_layers": 0}, "num_layers"),
    ({"active_params": 9e9}, "active_params"),
    ({"attention": "mla"}, "kv_lora_rank"),
    ({"slug": "tiny-gqa"}, "slug"),
])
def test_model_rules(author, change, field):
    fields = fields_of(author.post(f"{API}/simulators/models/", {**MODEL, "slug": "m2", **change}, format="json"))
    assert field in fields, fields


def test_head_dim_mismatch_is_a_warning_not_an_error(author):
    response = author.post(f"{API}/simulators/models/", {**MODEL, "slug": "wide", "head_dim": 256}, format="json")
    assert response.status_code == 201
    assert len(response.json()["warnings"]) == 1 and "8192" in response.json()["warnings"][0]
    plain = author.post(f"{API}/simulators/models/", {**MODEL, "slug": "plain"}, format="json").json()
    assert plain["warnings"] == [] and plain["status"] == "draft"


@pytest.mark.parametrize(("change", "field"), [
    ({"memory_bytes": 0.5e9}, "memory_bytes"),
    ({"memory_bytes": 3e12}, "memory_bytes"),
    ({"hbm_bandwidth_bytes_per_s": 5e9}, "hbm_bandwidth_bytes_per_s"),
    ({"hbm_bandwidth_bytes_per_s": 2e14}, "hbm_bandwidth_bytes_per_s"),
    ({"bf16_dense_flops": 1e18}, "bf16_dense_flops"),
    ({"int8_dense_ops": 1e11}, "int8_dense_ops"),
    ({"price_per_hour_usd": -1}, "price_per_hour_usd"),
])
def test_gpu_ranges(author, change, field):
    fields = fields_of(author.post(f"{API}/simulators/gpus/", {**GPU_SPEC, "slug": "g2", **change}, format="json"))
    assert field in fields, fields


def test_catalog_patch_is_checked_with_the_stored_values(author):
    fields = fields_of(author.patch(f"{API}/simulators/models/tiny-gqa/", {"num_attention_heads": 12}, format="json"))
    assert "num_kv_heads" in fields  # 8 does not divide 12


def test_catalog_full_clean_matches_the_api(content):
    content.gpu.memory_bytes = 5e12
    content.model.num_kv_heads = 3
    for row, field in ((content.gpu, "memory_bytes"), (content.model, "num_kv_heads")):
        with pytest.raises(ValidationError) as info:
            row.full_clean()
        assert field in info.value.message_dict


def test_the_shipped_catalog_passes_its_own_rules(db):
    import yaml

    from apps.simulators.modeling.specs import CATALOG_DIR
    from apps.simulators.models import GPU, ModelConfig
    from apps.simulators.validation import gpu_errors, model_errors, model_warnings

    columns = {f.name for f in ModelConfig._meta.fields}
    models = yaml.safe_load((CATALOG_DIR / "models.yaml").read_text())
    rows = [ModelConfig(**{k: v for k, v in entry.items() if k in columns}) for entry in models]
    assert {row.slug: model_errors(row) for row in rows if model_errors(row)} == {}
    assert {row.slug for row in rows if model_warnings(row)} >= {"gemma-2-9b", "qwen3-32b", "gpt-oss-120b"}
    columns = {f.name for f in GPU._meta.fields}
    gpus = yaml.safe_load((CATALOG_DIR / "gpus.yaml").read_text())
    assert {e["slug"]: gpu_errors(GPU(**{k: v for k, v in e.items() if k in columns})) for e in gpus} == {
        e["slug"]: {} for e in gpus}


def test_writes_to_missing_items_are_404(author):
    for url in (f"{API}/questions/{10**20}/", f"{API}/questions/999999/", f"{API}/chapters/nope/", f"{API}/glossary/nope/",
                f"{API}/simulators/models/nope/", f"{API}/simulators/gpus/nope/"):
        assert author.patch(url, {}, format="json").status_code == 404, url
        assert author.delete(url).status_code == 404, url
    assert author.patch(f"{API}/questions/abc/", {}, format="json").status_code == 404


def test_bad_shapes_are_400_naming_the_field(author):
    assert "order" in fields_of(author.post(f"{API}/chapters/", {**NEW_CHAPTER, "order": 10**12}, format="json"))
    assert "key_numbers.0.label" in fields_of(author.post(f"{API}/chapters/", {**NEW_CHAPTER, "key_numbers": [{}]},
                                                           format="json"))
    assert "num_layers" in fields_of(author.post(f"{API}/simulators/models/", {**MODEL, "slug": "m3", "num_layers": 10**12},
                                                 format="json"))
    assert "status" in fields_of(author.patch(f"{API}/glossary/kv-cache/", {"status": "secret"}, format="json"))
