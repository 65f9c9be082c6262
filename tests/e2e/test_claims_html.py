"""The claims report's HTML page in a real browser (Debian's chromium, headless, Playwright): no
console errors, no request off the page, the counts the JSON report gives, nothing wider than a
phone's screen."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from aletheia.config import Settings
from aletheia.pipeline.claims.model import NoCandidates
from aletheia.pipeline.claims.research_text import check_claims_text
from aletheia.pipeline.jobs.submission import InputDocument
from aletheia.pipeline.reports.claims_html import render_claims_html
from tests.conftest import IN_CI

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

PAPER = (
    "# Introduction\n\nTransformers are the state of the art in translation [@vaswani2017].\n"
    "Sorting needs O(n log n) comparisons [@knuth]. Heapsort is optimal for <script>x</script> [@missing].\n"
    "Studies have shown that sleep improves memory, a finding replicated in a very long sentence "
    "that goes on and on to test wrapping on a narrow screen with "
    "unbreakable_tokens_like_this_one_that_is_much_longer_than_any_phone_screen_is_wide_at_all.\n"
)
BIB = (
    "@article{vaswani2017, author={Vaswani, Ashish}, title={Attention Is All You Need}, year={2017}}\n"
    "@article{knuth, author={Knuth, Donald}, title={Sorting}, year={1998}}\n"
)


async def _refusing(claim: str, **_: object) -> tuple[None, NoCandidates]:
    return None, NoCandidates(claim=claim, detail="no candidate fits")


def test_claims_html_renders_and_matches_the_report(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        if IN_CI:
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright

    report = asyncio.run(
        check_claims_text(
            InputDocument("paper.md", PAPER.encode()),
            [InputDocument("refs.bib", BIB.encode())],
            gateway=None,
            settings=Settings(data_dir=tmp_path / "data", offline=True),
            project_root=tmp_path,
            check=False,
            suggester=_refusing,
        )
    )
    page_path = tmp_path / "claims.html"
    page_path.write_text(render_claims_html(report), encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 800})
            errors: list[str] = []
            requests: list[str] = []
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("request", lambda req: requests.append(req.url))
            page.goto(page_path.as_uri())
            page.wait_for_load_state("load")
            assert errors == []
            assert all(url.startswith("file://") for url in requests), requests
            assert page.title() == "Aletheia claims report"
            summary = report["summary"]
            assert int(page.locator("#claim-count").inner_text()) == summary["claims"]
            assert int(page.locator("#unsupported-count").inner_text()) == summary["unsupported"]
            for status, count in summary["by_status"].items():
                assert page.locator(f'tr.claim[data-status="{status}"]').count() == count
            assert page.locator("script").count() == 0  # the claim's text is escaped, never markup
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page is {width} px wide on a 390 px screen"
        finally:
            browser.close()
