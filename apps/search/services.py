"""Site search over chapters, glossary terms and questions (published only), ranked, typo-tolerant.

On PostgreSQL: full-text search (``SearchQuery``/``SearchRank`` over each row's stored, GIN-indexed
``search_vector``, which a trigger keeps right: see ``apps.core.search_vectors``; snippets from ``SearchHeadline``
for the returned rows only) plus pg_trgm trigram word similarity on titles and term names, which is what makes
``kv cahce`` or ``pagedattention`` still find their chapter and term.

On SQLite (the zero-configuration development database) there is no full-text engine worth its weight:
FTS5 would need a virtual table kept in sync by triggers for a corpus of a few hundred documents. Instead
each query word that is not in the vocabulary of indexed words is corrected to its closest vocabulary word
with ``difflib.get_close_matches``, and documents are scored in Python by weighted word hits (title over
summary over body). The corpus is small (tens of chapters, hundreds of terms and questions), so this stays
within milliseconds, and both backends return the same shape.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass, field

from django.contrib.postgres.search import (
    SearchHeadline,
    SearchQuery,
    SearchRank,
    TrigramWordSimilarity,
)
from django.db import connection
from django.db.models import F, FloatField, Q, TextField, Value
from django.db.models.functions import Cast, Coalesce, Greatest

from apps.core.cache_keys import body_key, cached_body, content_version
from apps.core.models import Status
from apps.courses.models import Chapter
from apps.glossary.models import Term
from apps.quiz.models import Question

MAX_QUERY_LENGTH = 200
DEFAULT_LIMIT = 20
SNIPPET_CHARS = 180
WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
MARK_START, MARK_STOP = "\x02", "\x03"
TRIGRAM_THRESHOLD = 0.45
ALIAS_CUTOFF = 0.8


@dataclass
class Document:
    kind: str
    key: str
    title: str
    url: str
    fields: list[tuple[str, float]]  # (text, weight), title first
    snippet_text: str
    slug: str | None = None
    id: int | None = None
    score: float = 0.0
    snippet: str = ""
    title_names: list[str] = field(default_factory=list)  # the title and, for terms, aliases
    pk: int | None = None  # the row, for a database headline (PostgreSQL)


@dataclass(frozen=True)
class SearchResponse:
    query: str
    corrected: str | None
    results: list[dict]


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _plain(markdown_text: str) -> str:
    """Markdown to rough plain text for snippets: links keep their text, syntax characters go."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown_text)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"[#*_`>|]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def _question_title(prompt: str) -> str:
    first = _plain(prompt)
    return first if len(first) <= 120 else first[:117].rstrip() + "…"


_CACHE: dict[str, tuple] = {}


def indexed() -> tuple[list[Document], set[str]]:
    """Documents and their vocabulary, rebuilt in each process only when content changed (the content version:
    any save or delete of a part, chapter, term or question moves it; see apps.core.cache_keys)."""
    signature = content_version()
    cached = _CACHE.get("index")
    if cached is None or cached[0] != signature:
        docs = documents()
        vocabulary: set[str] = set()
        for doc in docs:
            for text, _ in doc.fields:
                vocabulary.update(words_of(text))
        cached = (signature, docs, vocabulary)
        _CACHE["index"] = cached
    return cached[1], cached[2]


def documents() -> list[Document]:
    docs: list[Document] = []
    chapters = Chapter.objects.published().filter(part__status=Status.PUBLISHED).only("slug", "title", "summary", "body")
    for chapter in chapters:
        body = _plain(chapter.body)
        docs.append(Document(
            kind="chapter", key=f"chapter:{chapter.slug}", slug=chapter.slug, title=chapter.title,
            url=f"/learn/{chapter.slug}", fields=[(chapter.title, 4.0), (chapter.summary, 2.0), (body, 1.0)],
            title_names=[chapter.title, chapter.title.split(":")[0]],
            snippet_text=f"{chapter.summary} {body}",
        ))
    for term in Term.objects.published():
        names = " ".join([term.term, *term.aliases])
        docs.append(Document(
            kind="term", key=f"term:{term.slug}", slug=term.slug, title=term.term, url=f"/glossary/{term.slug}",
            fields=[(names, 5.0), (term.definition, 2.0), (_plain(term.explanation), 1.0)],
            snippet_text=term.definition, title_names=[term.term, *term.aliases],
        ))
    for question in Question.objects.published().only("id", "slug", "prompt", "answer"):
        prompt = _plain(question.prompt)
        docs.append(Document(
            kind="question", key=f"question:{question.id}", slug=question.slug, id=question.id,
            title=_question_title(question.prompt), url=f"/practice/questions/{question.id}",
            fields=[(prompt, 2.0), (_plain(question.answer), 0.5)], snippet_text=prompt,
        ))
    return docs


# --- snippets ---------------------------------------------------------------------------------------------


def highlight(text: str, words: set[str], limit: int = SNIPPET_CHARS) -> str:
    """A window of ``text`` around the first hit, HTML-escaped, with whole-word hits wrapped in <mark>."""
    hits = [m for m in re.finditer(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*", text) if _matches(m.group(0).lower(), words)]
    start = max(0, hits[0].start() - 40) if hits and len(text) > limit else 0
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < hits[0].start() else start
    end = min(len(text), start + limit)
    pieces, cursor = [], start
    for hit in hits:
        if hit.start() < start or hit.end() > end:
            continue
        pieces.append(html.escape(text[cursor:hit.start()]))
        pieces.append(f"<mark>{html.escape(hit.group(0))}</mark>")
        cursor = hit.end()
    pieces.append(html.escape(text[cursor:end]))
    return ("…" if start else "") + "".join(pieces) + ("…" if end < len(text) else "")


def _matches(word: str, query_words: set[str]) -> bool:
    return any(word == q or (len(q) >= 4 and word.startswith(q)) for q in query_words)


def safe_headline(headline: str) -> str:
    """Escapes a database headline made with sentinel characters, then turns the sentinels into <mark>."""
    escaped = html.escape(_plain(headline))
    return escaped.replace(MARK_START, "<mark>").replace(MARK_STOP, "</mark>")


# --- query correction (SQLite and the fallback for highlighting) ----------------------------------------


def correct_words(query_words: list[str], vocabulary: set[str]) -> list[str]:
    corrected = []
    for word in query_words:
        if word in vocabulary or len(word) < 3:
            corrected.append(word)
            continue
        close = difflib.get_close_matches(word, vocabulary, n=1, cutoff=0.75)
        corrected.append(close[0] if close else word)
    return corrected


STOPWORDS = {"a", "an", "and", "the", "of", "to", "in", "is", "on", "for", "what", "how", "why"}


def _compact(text: str) -> str:
    return "".join(words_of(text))


def _score_python(doc: Document, query_words: list[str]) -> float:
    """Weighted coverage of the query words per field, plus bonuses when the title is (or contains) the query."""
    score = 0.0
    for text, weight in doc.fields:
        tokens = words_of(text)
        counts = [sum(1 for t in tokens if t == w or (len(w) >= 4 and t.startswith(w))) for w in query_words]
        found = sum(1 for count in counts if count)
        if found:
            coverage = found / len(query_words)
            score += weight * coverage**2 * (1 + min(sum(counts), 10) / 10)
    phrase = _compact(" ".join(query_words))
    title = _compact(doc.fields[0][0]) if doc.fields else ""
    names = {_compact(name) for name in doc.title_names}
    if phrase and phrase in names:
        score += 12
    elif phrase and title.startswith(phrase):
        score += 6
    elif phrase and len(phrase) >= 4 and phrase in title:
        score += 4
    return score


def _search_python(query: str, limit: int) -> SearchResponse:
    docs, vocabulary = indexed()
    query_words = words_of(query)
    corrected_words = correct_words(query_words, vocabulary)
    phrase = " ".join(corrected_words)
    scored_words = [word for word in corrected_words if word not in STOPWORDS] or corrected_words
    scores = {doc.key: _score_python(doc, scored_words) if scored_words else 0.0 for doc in docs}
    ranked = sorted((d for d in docs if scores[d.key] > 0), key=lambda d: (-scores[d.key], d.kind, d.title))[:limit]
    results = []
    for doc in ranked:
        snippet = highlight(doc.snippet_text, set(scored_words))
        results.append({**_result(doc), "score": round(scores[doc.key], 4), "snippet": snippet})
    corrected = phrase if corrected_words != query_words else None
    return SearchResponse(query=query, corrected=corrected, results=results)


# --- PostgreSQL -------------------------------------------------------------------------------------------


def _search_postgres(query: str, limit: int) -> SearchResponse:
    # Full-text search has no typo tolerance of its own: correct the words against the indexed vocabulary first.
    docs, vocabulary = indexed()
    query_words = words_of(query)
    corrected_words = correct_words(query_words, vocabulary)
    corrected = " ".join(corrected_words) if corrected_words != query_words else None
    search_query = SearchQuery(corrected or query, search_type="websearch", config="english")

    def ranked(queryset, similarity, tiebreak, *fields):
        # Rank from the stored vector (see apps.core.search_vectors): the same value as ranking a vector built here.
        # The tie-break keeps the cut at limit * 2 from depending on the rows' physical order.
        return (
            queryset.only(*fields)
            .annotate(
                rank=SearchRank(F("search_vector"), search_query, normalization=Value(0)),
                similarity=Coalesce(similarity, Value(0.0), output_field=FloatField()),
            )
            .filter(Q(rank__gt=0.0) | Q(similarity__gte=TRIGRAM_THRESHOLD))
            .order_by("-similarity", "-rank", tiebreak)[: limit * 2]
        )

    chapters = ranked(
        Chapter.objects.published().filter(part__status=Status.PUBLISHED),
        TrigramWordSimilarity(query, "title"), "title", "slug", "title", "summary",
    )
    aliases = Cast("aliases", TextField())
    terms = ranked(
        Term.objects.published(),
        Greatest(TrigramWordSimilarity(query, "term"), TrigramWordSimilarity(query, aliases)),
        "term", "slug", "term", "aliases", "definition",
    )
    questions = ranked(Question.objects.published(), Value(0.0), "id", "slug", "prompt")
    results: list[Document] = []
    corrected_word_set = set(corrected_words)
    phrase = _compact(corrected or query)
    for chapter in chapters:
        doc = _pg_doc("chapter", chapter.slug, None, chapter.title, f"/learn/{chapter.slug}", chapter,
                      chapter.summary, boost=1.0)
        title = _compact(chapter.title)
        if phrase in {title, _compact(chapter.title.split(":")[0])}:
            doc.score += 1.5
        elif phrase and title.startswith(phrase):
            doc.score += 1.0
        results.append(doc)
    for term in terms:
        doc = _pg_doc("term", term.slug, None, term.term, f"/glossary/{term.slug}", term,
                      term.definition, boost=1.2)
        doc.score += 2.0 if phrase in {_compact(name) for name in (term.term, *term.aliases)} else 0
        results.append(doc)
    for question in questions:
        results.append(_pg_doc("question", question.slug, question.id, _question_title(question.prompt),
                               f"/practice/questions/{question.id}", question, _plain(question.prompt),
                               boost=0.6))
    results.extend(_alias_hits(query, {d.key for d in results}, corrected_word_set, docs))
    results.sort(key=lambda d: (-d.score, d.kind, d.title))
    top = results[:limit]
    _add_snippets(top, search_query, corrected_word_set)
    return SearchResponse(query=query, corrected=corrected, results=[_result(doc) for doc in top])


# kind -> (model, the field its snippet is a headline of)
HEADLINED = {"chapter": (Chapter, "body"), "term": (Term, "definition"), "question": (Question, "prompt")}


def _add_snippets(docs: list[Document], search_query: SearchQuery, query_words: set[str]) -> None:
    """Snippets of the returned documents only: a database headline (costly: it parses the whole text) where the
    query matches the text, else a window of the fallback text; one query per kind present."""
    for kind, (model, field_name) in HEADLINED.items():
        wanted = {doc.pk: doc for doc in docs if doc.kind == kind and doc.pk is not None}
        if not wanted:
            continue
        headlines = dict(
            model.objects.filter(pk__in=wanted)
            .annotate(headline=SearchHeadline(field_name, search_query, start_sel=MARK_START, stop_sel=MARK_STOP,
                                              max_words=30, min_words=15, config="english"))
            .values_list("pk", "headline")
        )
        for pk, doc in wanted.items():
            headline = headlines.get(pk) or ""
            doc.snippet = safe_headline(headline) if MARK_START in headline else highlight(doc.snippet_text, query_words)


def _pg_doc(kind, slug, pk, title, url, obj, fallback_text, boost) -> Document:
    key = f"{kind}:{pk if pk is not None else slug}"
    doc = Document(kind=kind, key=key, slug=slug, id=pk, title=title, url=url, fields=[], snippet_text=fallback_text,
                   pk=obj.pk)
    doc.score = boost * (obj.rank + 2.0 * obj.similarity)
    return doc


def _alias_hits(query: str, seen: set[str], query_words: set[str], docs: list[Document]) -> list[Document]:
    """Terms whose alias (e.g. ``TTFT``) is close to the query; aliases are a JSON list, so compare in Python, over
    the indexed documents (already in memory) rather than the term rows."""
    lowered = query.lower().strip()
    hits = []
    for term in docs:
        aliases = term.title_names[1:]
        if term.kind != "term" or not aliases or term.key in seen:
            continue
        best = max((_close_ratio(lowered, alias.lower(), ALIAS_CUTOFF) for alias in aliases), default=0)
        if best >= ALIAS_CUTOFF:
            doc = Document(kind="term", key=term.key, slug=term.slug, title=term.title, url=term.url, fields=[],
                           snippet_text=term.snippet_text)
            doc.score = 1.2 * 2.0 * best
            doc.snippet = highlight(term.snippet_text, query_words)
            hits.append(doc)
    return hits


def _close_ratio(a: str, b: str, cutoff: float) -> float:
    """``SequenceMatcher(None, a, b).ratio()``, or 0 when its cheap upper bounds already fall below ``cutoff``."""
    matcher = difflib.SequenceMatcher(None, a, b)
    if matcher.real_quick_ratio() < cutoff or matcher.quick_ratio() < cutoff:
        return 0.0
    return matcher.ratio()


def _result(doc: Document) -> dict:
    return {
        "kind": doc.kind, "slug": doc.slug, "id": doc.id, "title": doc.title, "url": doc.url,
        "snippet": doc.snippet, "score": round(doc.score, 4),
    }


def search(*, query: str, limit: int = DEFAULT_LIMIT) -> SearchResponse:
    """Results are the same for every reader (published content only), so a response is cached under the content
    version: any change to a chapter, part, term or question retires it (see apps.core.cache_keys)."""
    query = query.strip()
    engine = _search_postgres if connection.vendor == "postgresql" else _search_python
    return cached_body(body_key("search", query, limit), lambda: engine(query, limit))


