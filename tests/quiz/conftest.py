import pytest

from .factories import make_chapter, make_part, make_question


@pytest.fixture
def chapters(db):
    part = make_part("serving")
    other = make_part("scaling", order=2)
    return {
        "kv": make_chapter("kv-cache-sizing", part, 1),
        "batching": make_chapter("continuous-batching", part, 2),
        "tp": make_chapter("tensor-parallelism", other, 1),
    }


@pytest.fixture
def one_of_each(chapters):
    """One published question per kind, in kind order, linked to chapters and topics."""
    kv, batching = chapters["kv"], chapters["batching"]
    return {
        "single_choice": make_question("single_choice", topics=["memory"], chapters=[kv]),
        "multiple_choice": make_question("multiple_choice", level="mid", topics=["kv-cache"], chapters=[kv]),
        "numeric": make_question("numeric", level="mid", topics=["kv-cache"], chapters=[kv]),
        "ordering": make_question("ordering", level="senior", topics=["request-path", "drag-and-drop"], chapters=[batching]),
        "categorize": make_question("categorize", level="senior", topics=["roofline", "drag-and-drop"], chapters=[batching]),
        "matching": make_question("matching", level="staff", topics=["scheduler", "drag-and-drop"], chapters=[batching]),
        "open": make_question("open", level="staff", topics=["scheduler"], chapters=[chapters["tp"]]),
    }
