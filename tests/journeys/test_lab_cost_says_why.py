"""The Lab's cost section says why it plans another TP than the form's: Llama-3.1-70B in BF16 does not fit one
80 GB H100 (141 GB of weights), so the plan's TP is the smallest that fits, and the layout reads "1 replica × TP 2"."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_cost_section_says_why_tp_1_was_overridden(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/lab?model=llama-3.1-70b&gpu=h100-sxm&tensor_parallel=1&batch_size=1&context_tokens=2048&requests_per_s=1")
    why = page.get_by_test_id("cost-tp-why")
    expect(why).to_contain_text("TP 1 does not fit: weights 141", timeout=20_000)
    expect(why).to_contain_text("GB of NVIDIA H100 SXM5 80GB")
    expect(why).to_contain_text("the smallest TP that fits is 2")
    layout = page.get_by_test_id("cost-layout")
    expect(layout).to_contain_text("replica")
    expect(layout).to_contain_text("× TP ")
    assert "TP 1" not in layout.inner_text()
    why.scroll_into_view_if_needed()
    shot(page, f"lab-cost-tp-why-{kind}")
    # With a TP that fits, nothing needs explaining.
    planned = layout.inner_text().rsplit("TP ", 1)[1].split()[0]
    page.get_by_label("Tensor parallel").fill(planned)
    expect(why).to_have_count(0, timeout=20_000)
