from apps.core.rendering import GlossaryEntry, mark_glossary_terms, render_markdown

KV = GlossaryEntry(slug="kv-cache", names=("KV cache",), definition="Keys & values kept per token.")
TTFT = GlossaryEntry(slug="ttft", names=("Time to first token", "TTFT"), definition="Latency to the first token.")


def marked(html: str) -> int:
    return html.count('class="glossary-term"')


def test_marks_only_the_first_mention_per_section():
    html = render_markdown("## One\n\nThe KV cache grows. The kv cache again.\n\n## Two\n\nA KV cache here too.")
    out = mark_glossary_terms(html, [KV])
    assert marked(out) == 2
    first, second = out.split("<h2", 2)[1:]
    assert marked(first) == 1 and marked(second) == 1
    assert 'data-term="kv-cache"' in out
    assert 'title="Keys &amp; values kept per token."' in out
    assert 'tabindex="0"' in out


def test_never_marks_inside_code_or_headings():
    html = render_markdown("## KV cache\n\n`KV cache` and\n\n```\nKV cache\n```\n")
    assert marked(mark_glossary_terms(html, [KV])) == 0


def test_acronyms_match_case_sensitively_and_words_do_not_match_inside_other_words():
    html = render_markdown("Measure ttft and TTFT. A KV cached value.")
    out = mark_glossary_terms(html, [KV, TTFT])
    assert marked(out) == 1
    assert '<span class="glossary-term" data-term="ttft" tabindex="0" title="Latency to the first token.">TTFT</span>' in out
    assert "ttft and" in out


def test_first_mention_after_code_in_the_same_section_is_marked():
    html = render_markdown("Use `KV cache` then KV cache.")
    out = mark_glossary_terms(html, [KV])
    assert marked(out) == 1
    assert "<code>KV cache</code>" in out
