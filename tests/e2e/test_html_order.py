"""Issue 30: the HTML report of a mixed run lists the references that need attention first, in a
real browser (Debian's chromium, headless; skipped without it, as tests/e2e/test_html_report.py),
and sorts them back into input order on request. examples/sample.bib holds verified references
first and the flagged ones after them, so input order would put a verified one on top."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import verify_sample
from tests.e2e.test_html_report import browser as browser  # the shared headless chromium

pytestmark = pytest.mark.browser

FLAGGED = ("metadata_error", "identifier_conflict", "not_found", "fabricated", "retracted")


def _top(page, selector: str) -> float:  # type: ignore[no-untyped-def]
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["y"])


def test_the_first_flagged_reference_is_above_the_first_verified_one(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    html_path = verify_sample(tmp_path, "html")[1]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(html_path.as_uri())
    page.wait_for_load_state("load")
    flagged = ", ".join(f'tr.ref[data-verdict="{v}"]' for v in FLAGGED)
    verified = 'tr.ref[data-verdict="verified"]'
    assert page.locator(flagged).count() and page.locator(verified).count()
    assert _top(page, flagged) < _top(page, verified)
    # Sorted by input order on request (the sample's first entry is verified), and back.
    page.click('button[data-sort="position"]')
    assert page.locator("tr.ref").first.get_attribute("data-position") == "1"
    assert _top(page, verified) < _top(page, flagged)
    page.click('button[data-sort="rank"]')
    assert _top(page, flagged) < _top(page, verified)
    assert errors == []
