"""Checking answers, practice and interview sessions, the investigation games (diagnosis, Kubernetes incidents).

Scores are in [0, 1]. Open questions are self-rated; a rating maps to a score (SELF_RATING_SCORES):
again 0, hard 0.5, good 0.8, easy 1.0, and counts as correct from "good" up. In an interview, an answer given after
the time per question is late: it keeps its verdict but scores LATE_SCORE_FACTOR of its score.
"""

from __future__ import annotations

import hmac
import random
import re
import zlib
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from django.db import connection, transaction
from django.db.models import Prefetch, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.crypto import salted_hmac

from apps.core.cache_keys import body_key, cached_bodies, cached_body
from apps.core.exceptions import Conflict, InvalidInput
from apps.core.models import Status
from apps.core.plain_sql import Columns
from apps.core.rendering import render_markdown
from apps.core.validation import clean_or_400, has_nul, link_rows
from apps.courses.models import Chapter, Level
from apps.glossary.models import Term
from apps.quiz import kinds
from apps.quiz.investigation import MAX_QUESTIONS
from apps.quiz.investigation import score as investigation_score
from apps.quiz.models import (
    GAME_CAUSES,
    DiagnosisScenario,
    InvestigationAttempt,
    PracticeAnswer,
    PracticeSession,
    Question,
    SessionMode,
    Topic,
)

SELF_RATING_SCORES = {"again": 0.0, "hard": 0.5, "good": 0.8, "easy": 1.0}
LATE_SCORE_FACTOR = 0.5
TOPICS_SHOWN = 3
# Tags that say how a question is asked, not what it is about: scored in by_topic, never named a weak or strong topic.
FORMAT_TOPICS = frozenset({"drag-and-drop"})
LEVEL_ORDER: list[str] = [Level.CORE, Level.MID, Level.SENIOR, Level.STAFF]  # compared with plain level strings
DEFAULT_SECONDS_PER_QUESTION = 120
TOKEN_SALT = "apps.quiz.practice-session-token"
ATTEMPT_TOKEN_SALT = "apps.quiz.investigation-attempt-token"


@lru_cache(maxsize=4096)
def question_page_exists(user, id: str) -> bool:
    """Whether /practice/questions/<id> shows a question to this reader (apps.core.spa answers 404 otherwise)."""
    return id.isdigit() and len(id) < 19 and Question.objects.visible_to(user).filter(pk=int(id)).exists()


def markdown_html(text: str) -> str:
    return render_markdown(text)


def shuffle_seed(question: Question) -> int:
    """Stable per question and key version, so the shown order and the graded order always agree."""
    return zlib.crc32(f"{question.slug}:{question.key_version}".encode())


def public_choices(question: Question) -> dict:
    return kinds.public_key(question.kind, question.key, shuffle_seed(question))


@dataclass(frozen=True)
class CheckResult:
    correct: bool | None
    score: float | None
    feedback: dict
    answer_html: str
    explanation: str


def explanation(question: Question) -> str:
    """A plain-text statement of the right answer, derived from the key."""
    return kinds.kind_of(question.kind).explanation(question.key)


def _answer_error(exc: kinds.AnswerError) -> InvalidInput:
    return InvalidInput(str(exc), field="answer" if exc.field == "answer" else f"answer.{exc.field}")


def question_check(*, question: Question, answer: dict | None) -> CheckResult:
    """Grades an answer on the server; open questions only get the model answer back (score None)."""
    answer_html = markdown_html(question.answer)
    if not kinds.kind_of(question.kind).auto_checked:
        return CheckResult(None, None, {}, answer_html, "")
    if answer is None:
        raise InvalidInput("This field is required for auto-checked questions.", field="answer")
    try:
        graded = kinds.grade(question.kind, question.key, answer, shuffle_seed=shuffle_seed(question))
    except kinds.AnswerError as exc:
        raise _answer_error(exc)
    return CheckResult(graded.correct, round(graded.score, 4), graded.feedback, answer_html, explanation(question))


# --- Practice and interview sessions -------------------------------------------------------------------------


def session_token(session: PracticeSession) -> str:
    """The secret that proves possession of an anonymous session; derived, so nothing secret is stored."""
    return salted_hmac(TOKEN_SALT, str(session.id), algorithm="sha256").hexdigest()


def practice_session_get(*, session_id, user, token: str | None) -> PracticeSession:
    """Owner only: a user's own session, or an anonymous one with its token; anything else is a 404."""
    return _owned(PracticeSession.objects.filter(id=session_id).first(), user=user, token=token)


def _owned(session: PracticeSession | None, *, user, token: str | None) -> PracticeSession:
    if session is None:
        raise Http404
    if session.user_id is not None:
        if not (user and user.is_authenticated and user.pk == session.user_id):
            raise Http404
    elif not token or not hmac.compare_digest(str(token).encode(), session_token(session).encode()):
        raise Http404
    return session


def practice_session_list(*, user) -> QuerySet[PracticeSession]:
    return PracticeSession.objects.filter(user=user).order_by("-created_at").prefetch_related("answers")


def _candidates(filters: dict) -> QuerySet[Question]:
    queryset = Question.objects.published()
    lookups = {"part": "chapters__part__slug__in", "chapter": "chapters__slug__in", "topic": "topics__slug__in", "level": "level__in", "kind": "kind__in"}
    for name, lookup in lookups.items():
        if filters.get(name):
            queryset = queryset.filter(**{lookup: filters[name]})
    return queryset.distinct()


@dataclass(frozen=True)
class Candidate:
    """What picking needs of a question: its id, level and topics (not the row, its text or its relations)."""

    id: int
    level: str
    topics: frozenset[str]


def _candidate_list(filters: dict, *, with_topics: bool) -> list[Candidate]:
    """Content alone decides the candidates: kept by content version and filters (the cached list is shared, read
    it only)."""
    key = body_key("practice-candidates", sorted(filters.items()), with_topics)
    return cached_body(key, lambda: _read_candidates(filters, with_topics=with_topics))


def _read_candidates(filters: dict, *, with_topics: bool) -> list[Candidate]:
    rows = list(_candidates(filters).values_list("id", "level"))
    topics: dict[int, set[str]] = {}
    if with_topics and rows:
        through = Question.topics.through.objects.filter(question_id__in=[qid for qid, _ in rows])
        for question_id, slug in through.values_list("question_id", "topic__slug"):
            topics.setdefault(question_id, set()).add(slug)
    return [Candidate(qid, level, frozenset(topics.get(qid, ()))) for qid, level in rows]


def _interview_pick(questions: list[Candidate], size: int, rng: random.Random) -> list[Candidate]:
    """Round-robin over the levels, preferring at each turn a question whose topics are not yet covered."""
    pools = {level: [q for q in questions if q.level == level] for level in LEVEL_ORDER}
    for pool in pools.values():
        rng.shuffle(pool)
    picked: list[Candidate] = []
    covered: set[str] = set()
    while len(picked) < size and any(pools.values()):
        for level in LEVEL_ORDER:
            pool = pools[level]
            if not pool or len(picked) >= size:
                continue
            fresh = next((q for q in pool if not covered & q.topics), pool[0])
            pool.remove(fresh)
            picked.append(fresh)
            covered |= fresh.topics
    # Warm up first: easier levels lead.
    return sorted(picked, key=lambda q: LEVEL_ORDER.index(q.level))


def practice_session_create(
    *, user, mode: str, filters: dict, size: int, seconds_per_question: int | None, rng: random.Random
) -> PracticeSession:
    # Ids, levels and (for an interview) topics only: a session stores question ids, and loading every matching
    # question with its topics to keep two of them was most of the cost of starting one.
    questions = _candidate_list(filters, with_topics=mode == SessionMode.INTERVIEW)
    if not questions:
        raise InvalidInput("No published questions match these filters.", field="filters")
    seconds: int | None
    if mode == SessionMode.INTERVIEW:
        chosen = _interview_pick(questions, size, rng)
        seconds = seconds_per_question or DEFAULT_SECONDS_PER_QUESTION
    else:
        chosen = rng.sample(questions, min(size, len(questions)))
        seconds = seconds_per_question
    session = PracticeSession.objects.create(
        user=user if user and user.is_authenticated else None,
        mode=mode,
        filters=filters,
        question_ids=[q.id for q in chosen],
        seconds_per_question=seconds,
    )
    # A new session has no answers: say so as a prefetch would, so showing it does not ask the database. (Django's
    # prefetch cache: Django sets and reads it on instances, django-stubs does not declare it.)
    session._prefetched_objects_cache = {"answers": PracticeAnswer.objects.none()}  # type: ignore[attr-defined]
    return session


def _published_links():
    """Chapters and terms a learner may see next to a question (drafts stay hidden)."""
    # Only what a question shows of them (slug and title; the term's slug): a chapter row carries its whole body.
    chapters = Chapter.objects.published().filter(part__status=Status.PUBLISHED).only("id", "slug", "title")
    return Prefetch("chapters", queryset=chapters), Prefetch("glossary_terms", queryset=Term.objects.published().only("id", "slug"))


def published_questions(ids: list[int]) -> list[Question]:
    """Those of ``ids`` still published, with what a learner sees next to each: one unpublished since (and perhaps
    edited as a draft) is left out, so a learner never sees draft text."""
    return list(Question.objects.published().filter(pk__in=ids).prefetch_related("topics", *_published_links()))


def is_over_time(session: PracticeSession, duration_ms: int | None) -> bool:
    if session.mode != SessionMode.INTERVIEW or duration_ms is None or not session.seconds_per_question:
        return False
    return duration_ms > session.seconds_per_question * 1000


# Every answer runs these three reads: plain statements (the ORM's query building cost more CPU than PostgreSQL
# spent answering them), their values prepared and converted by each field as the ORM does. Columns(Model).build
# gives instances of that model (typed as any model: hence the casts below).
SESSION_ROW = Columns(PracticeSession)
QUESTION_TO_GRADE = Columns(Question, ("id", "slug", "kind", "answer", "key", "key_version"))
EARLIER_ANSWER = Columns(PracticeAnswer, ("id", "question", "answered_at"))


def _session_key(session_id):
    """The session id as this database stores it (a UUID on PostgreSQL, 32 hex characters on SQLite)."""
    return PracticeSession._meta.pk.get_db_prep_value(session_id, connection)


def _locked_session(session_id) -> PracticeSession | None:
    """The session's row, locked until the transaction ends where the database locks rows."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {SESSION_ROW.select('s')} FROM {PracticeSession._meta.db_table} s "
                       f"WHERE s.id = %s{lock}", [_session_key(session_id)])
        row = cursor.fetchone()
    return None if row is None else cast(PracticeSession, SESSION_ROW.build(row, connection))


def _published_question(question_id: int) -> Question | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {QUESTION_TO_GRADE.select('q')} FROM {Question._meta.db_table} q "
                       "WHERE q.id = %s AND q.status = %s", [question_id, Status.PUBLISHED.value])
        row = cursor.fetchone()
    return None if row is None else cast(Question, QUESTION_TO_GRADE.build(row, connection))


def _answers_so_far(session: PracticeSession) -> list[PracticeAnswer]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {EARLIER_ANSWER.select('a')} FROM {PracticeAnswer._meta.db_table} a "
                       "WHERE a.session_id = %s", [_session_key(session.pk)])
        return [cast(PracticeAnswer, EARLIER_ANSWER.build(row, connection)) for row in cursor.fetchall()]


@transaction.atomic
def practice_answer_create(
    *, session_id, user, token: str | None, question_id: int, answer: dict | None, self_rating: str | None,
    duration_ms: int | None, now: datetime,
) -> tuple[PracticeAnswer, CheckResult, int]:
    """Records one answer; returns it, its verdict and how many of the session's questions are now answered."""
    # The owner's check on the locked row: answers to one session are taken one at a time, so the answers read below
    # are every answer there is (a second answer to a question is a 409, not a failed insert), and the last answer
    # sets finished_at exactly once.
    session = _owned(_locked_session(session_id), user=user, token=token)
    if question_id not in session.question_ids:
        raise InvalidInput("This question is not part of the session.", field="question")
    question = _published_question(question_id)
    if question is None:
        raise InvalidInput("This question is no longer published.", field="question")
    so_far = _answers_so_far(session)
    if any(earlier.question_id == question_id for earlier in so_far):
        raise Conflict("This question was already answered in this session.")
    response: dict | None
    if not kinds.kind_of(question.kind).auto_checked:
        if not self_rating:
            raise InvalidInput("Open questions are self-rated: again, hard, good or easy.", field="self_rating")
        score = SELF_RATING_SCORES[self_rating]
        result = CheckResult(score >= SELF_RATING_SCORES["good"], score, {}, markdown_html(question.answer), "")
        response = {"self_rating": self_rating}
    else:
        if self_rating:
            raise InvalidInput("Only open questions are self-rated; send an answer instead.", field="self_rating")
        result = question_check(question=question, answer=answer)
        response = answer
    if duration_ms is None:  # the time since the session started or its last answer
        start = max([session.created_at, *(earlier.answered_at for earlier in so_far)])
        duration_ms = max(0, int((now - start).total_seconds() * 1000))
    if is_over_time(session, duration_ms) and result.score:
        # Late: the verdict stands, the score does not count in full.
        result = replace(result, score=round(result.score * LATE_SCORE_FACTOR, 4))
    # Both branches give a score: the self-rating's, or the grade of an auto-checked kind (None is for open questions).
    recorded = PracticeAnswer.objects.create(
        session=session, question=question, response=response, score=cast(float, result.score),
        correct=bool(result.correct), self_rating=self_rating or "", duration_ms=duration_ms,
    )
    answered = len(so_far) + 1
    if answered >= len(session.question_ids) and session.finished_at is None:
        session.finished_at = now
        session.save(update_fields=["finished_at"])
    return recorded, result, answered


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _chapter_refs(facts: list[dict]) -> list[dict]:
    seen: dict[str, dict] = {}
    for fact in facts:
        for chapter in fact["chapters"]:
            seen.setdefault(chapter["slug"], chapter)
    return list(seen.values())


def _read_question_facts(ids: list[int]) -> dict[int, dict]:
    chapters = _published_links()[0]
    questions = Question.objects.filter(pk__in=ids).only("id", "level").prefetch_related("topics", chapters)
    return {question.id: {
        "level": question.level,
        "topics": [topic.slug for topic in question.topics.all()],
        "chapters": [{"slug": c.slug, "title": c.title, "url": f"/learn/{c.slug}"} for c in question.chapters.all()],
    } for question in questions}


def practice_summary(*, session: PracticeSession) -> dict:
    """Score overall, by topic and by level; weakest topics with the chapters to re-read. Interviews add timing."""
    answers = list(session.answers.only("question_id", "score", "correct", "duration_ms"))
    # What a summary needs of each question (level, topics, published chapters) is content: kept by content version,
    # for every status, as an answer to a question unpublished since still counts.
    facts = cached_bodies("practice-question-facts", [a.question_id for a in answers], _read_question_facts)
    by_topic: dict[str, list[PracticeAnswer]] = {}
    for answer in answers:
        for topic in facts[answer.question_id]["topics"]:
            by_topic.setdefault(topic, []).append(answer)
    topics: list[dict[str, Any]] = [
        {"topic": slug, "answered": len(group), "score": _mean([a.score for a in group]),
         "chapters": _chapter_refs([facts[a.question_id] for a in group])}
        for slug, group in sorted(by_topic.items())
    ]
    levels = []
    for level in LEVEL_ORDER:
        group = [a for a in answers if facts[a.question_id]["level"] == level]
        if group:
            levels.append({"level": str(level), "answered": len(group), "correct": sum(a.correct for a in group), "score": _mean([a.score for a in group])})
    # A topic is either weak or strong, never both: the weakest are the lowest-scoring ones below full marks, the
    # strongest the highest-scoring of the rest above zero.
    subjects = [t for t in topics if t["topic"] not in FORMAT_TOPICS]
    ranked = sorted(subjects, key=lambda t: (t["score"], t["topic"]))
    weakest = [t for t in ranked if t["score"] < 1][:TOPICS_SHOWN]
    weak = {t["topic"] for t in weakest}
    strongest = [t for t in sorted(subjects, key=lambda t: (-t["score"], t["topic"])) if t["topic"] not in weak and t["score"] > 0]
    summary = {
        "session": session.id,
        "mode": session.mode,
        "total": len(session.question_ids),
        "answered": len(answers),
        "correct": sum(a.correct for a in answers),
        "score": _mean([a.score for a in answers]),
        "finished": session.finished_at is not None,
        "by_topic": topics,
        "by_level": levels,
        "weakest_topics": weakest,
        "strongest_topics": strongest[:TOPICS_SHOWN],
        "seconds_per_question": session.seconds_per_question,
        "time_used_ms": sum(a.duration_ms or 0 for a in answers),
        "over_time": sum(is_over_time(session, a.duration_ms) for a in answers),
    }
    return summary


# --- Investigation games (the diagnosis game, the Kubernetes incident game) -----------------------------------


def evidence_menu(scenario: DiagnosisScenario) -> list[dict]:
    """What a learner may ask for: each item's key, kind and label, never its text."""
    return [{"key": item["key"], "kind": item["kind"], "label": item["label"]} for item in scenario.evidence]


def game_causes(game: str) -> list[dict]:
    return [{"value": value, "label": label} for value, label in GAME_CAUSES[game].choices]


def attempt_token(attempt: InvestigationAttempt) -> str:
    """The secret that proves possession of an anonymous attempt (as session_token for practice sessions)."""
    return salted_hmac(ATTEMPT_TOKEN_SALT, str(attempt.id), algorithm="sha256").hexdigest()


def attempt_get(*, attempt_id, user, token: str | None) -> InvestigationAttempt:
    """Owner only: a user's own attempt, or an anonymous one with its token; anything else is a 404."""
    attempt = InvestigationAttempt.objects.select_related("scenario").filter(id=attempt_id).first()
    if attempt is None:
        raise Http404
    if attempt.user_id is not None:
        if not (user and user.is_authenticated and user.pk == attempt.user_id):
            raise Http404
    elif not token or not hmac.compare_digest(str(token).encode(), attempt_token(attempt).encode()):
        raise Http404
    return attempt


def attempt_start(*, scenario: DiagnosisScenario, user) -> InvestigationAttempt:
    return InvestigationAttempt.objects.create(scenario=scenario, user=user if user and user.is_authenticated else None)


def _locked(attempt: InvestigationAttempt) -> InvestigationAttempt:
    locked = InvestigationAttempt.objects.select_for_update().select_related("scenario").get(pk=attempt.pk)
    if locked.finished_at is not None:
        raise Conflict("This attempt is over: the cause was named. Start a new attempt to play again.")
    return locked


@transaction.atomic
def attempt_ask(*, attempt: InvestigationAttempt, key: str) -> tuple[InvestigationAttempt, dict]:
    """One piece of evidence. Asking again for one already seen costs nothing; a new one past MAX_QUESTIONS is
    refused (400 on ``evidence``); a finished attempt is a conflict."""
    attempt = _locked(attempt)
    item = next((item for item in attempt.scenario.evidence if item["key"] == key), None)
    if item is None:
        keys = ", ".join(entry["key"] for entry in attempt.scenario.evidence)
        raise InvalidInput(f"no evidence '{key}' in this scenario; ask for one of {keys}", field="evidence")
    if key not in attempt.asked:
        if len(attempt.asked) >= MAX_QUESTIONS:
            raise InvalidInput(f"you have asked for {MAX_QUESTIONS} pieces of evidence, the most allowed: "
                               "name the cause now", field="evidence")
        attempt.asked = [*attempt.asked, key]
        attempt.save(update_fields=["asked"])
    return attempt, item


@dataclass(frozen=True)
class InvestigationResult:
    correct: bool
    score: float
    asked: int
    answer: str
    answer_label: str
    reasoning_html: str
    telling: list[dict]


@transaction.atomic
def attempt_answer(*, attempt: InvestigationAttempt, answer: str) -> InvestigationResult:
    """Grades the named cause: right scores 1 − 0.1 per piece of evidence asked for, wrong 0 (investigation.score);
    the attempt is finished and kept. The reasoning comes back with the evidence that tells, in full."""
    attempt = _locked(attempt)
    scenario = attempt.scenario
    causes = GAME_CAUSES[scenario.game]
    if answer not in causes.values:
        raise InvalidInput(f"must be one of {', '.join(causes.values)}", field="answer")
    correct = answer == scenario.answer
    attempt.answer, attempt.correct = answer, correct
    attempt.score = investigation_score(correct=correct, asked=len(attempt.asked))
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["answer", "correct", "score", "finished_at"])
    by_key = {item["key"]: item for item in scenario.evidence}
    return InvestigationResult(
        correct=correct, score=attempt.score, asked=len(attempt.asked), answer=scenario.answer,
        answer_label=causes(scenario.answer).label, reasoning_html=markdown_html(scenario.reasoning),
        telling=[by_key[key] for key in scenario.telling if key in by_key],
    )


def attempt_list(*, user) -> QuerySet[InvestigationAttempt]:
    return InvestigationAttempt.objects.filter(user=user).select_related("scenario").order_by("-created_at")


# --- Authoring -----------------------------------------------------------------------------------------------

QUESTION_FIELDS = ("slug", "kind", "level", "prompt", "answer", "sources", "status")
KEY_FIELDS = ("options", "numeric", "items", "bins", "pairs")
TOPIC_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@transaction.atomic
def question_write(*, question: Question | None, data: dict) -> Question:
    """Creates (``question`` None) or updates a question from authoring fields (fixture names). The key fields
    given are merged into the stored key unless the kind changes; the key must fit the kind (errors name the
    part, e.g. ``numeric.tolerance``); links must resolve; a changed key bumps ``key_version`` (Question.clean)."""
    creating = question is None
    old_kind = None if question is None else question.kind
    question = Question(status=Status.DRAFT) if question is None else question
    for name in QUESTION_FIELDS:
        if name in data:
            setattr(question, name, data[name])
    errors: dict[str, list[str]] = {}
    given = {name: data[name] for name in KEY_FIELDS if name in data}
    if creating or given or question.kind != old_kind:
        raw = given if creating or question.kind != old_kind else {**question.key, **given}
        if has_nul(raw):
            errors[next(iter(given), "key")] = ["must not contain NUL characters"]
        else:
            try:
                question.key = kinds.validate_key(question.kind, raw)
            except kinds.KeyError_ as exc:
                errors[exc.field] = [str(exc)]
    topics = list(data.get("topics", []))
    bad = [topic for topic in topics if not TOPIC_SLUG.match(topic)]
    if bad:
        errors["topics"] = [f"'{bad[0]}' is not a lowercase-hyphenated tag"]
    chapters = link_rows(errors, "chapters", Chapter, list(data.get("chapters", [])), "chapter")
    if (creating or "chapters" in data) and not data.get("chapters"):
        errors["chapters"] = ["a question links to at least one chapter"]
    terms = link_rows(errors, "glossary", Term, list(data.get("glossary", [])), "glossary term")
    if errors:
        raise InvalidInput.of_fields(errors)
    clean_or_400(question)
    question.save()
    if creating or "topics" in data:
        question.topics.set([Topic.objects.get_or_create(slug=topic)[0] for topic in dict.fromkeys(topics)])
    if creating or "chapters" in data:
        question.chapters.set(chapters)
    if creating or "glossary" in data:
        question.glossary_terms.set(terms)
    return question


def question_authoring(question: Question, warnings: list[str] | None = None) -> dict:
    return {
        **{name: getattr(question, name) for name in QUESTION_FIELDS},
        "id": question.id,
        **{name: value for name, value in question.key.items() if name in KEY_FIELDS},
        "topics": sorted(question.topics.values_list("slug", flat=True)),
        "chapters": sorted(question.chapters.values_list("slug", flat=True)),
        "glossary": sorted(question.glossary_terms.values_list("slug", flat=True)),
        "key_version": question.key_version,
        "updated_at": question.updated_at,
        "warnings": warnings or [],
    }


def question_delete(question: Question) -> None:
    """Archives: learners' practice answers and the card's reviews keep their question (see Status.ARCHIVED)."""
    question.status = Status.ARCHIVED
    question.save(update_fields=["status", "updated_at"])
