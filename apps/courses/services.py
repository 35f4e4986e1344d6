from apps.courses.rendering import GlossaryEntry, mark_glossary_terms, render_markdown


def glossary_entries() -> list[GlossaryEntry]:
    from apps.glossary.models import Term

    return [
        GlossaryEntry(slug=term.slug, names=(term.term, *term.aliases), definition=term.definition)
        for term in Term.objects.published()
    ]


def render_chapter_body(body: str, entries: list[GlossaryEntry]) -> str:
    return mark_glossary_terms(render_markdown(body), entries)
