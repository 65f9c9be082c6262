"""The HTML report in a real browser: Debian's chromium, headless, driven by Playwright.

It must render with no console errors, and the counts it shows must match the JSON report of
the same run. It is looked at as a person would: at desktop (1280 px) and phone (390 px) widths,
screenshots written to the test's tmp dir (or $ALETHEIA_SCREENSHOT_DIR), nothing wider than the
screen, the summary first, and the corrected entry copied with one click.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import IN_CI, verify_sample

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _run_verify(tmp_path: Path, fmt: str) -> Path:
    return verify_sample(tmp_path, fmt)[1]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not Path(CHROMIUM).exists():
        if IN_CI:
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield b
        b.close()


def test_html_report_renders_without_errors_and_matches_json(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    html_path = _run_verify(tmp_path, "html")
    doc = json.loads(_run_verify(tmp_path, "json").read_text(encoding="utf-8"))

    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(html_path.as_uri())
    page.wait_for_load_state("load")

    assert errors == []
    assert all(url.startswith("file://") for url in requests), f"the page fetched {requests}"
    assert page.title() == "Aletheia verification report"
    assert int(page.locator("#total-count").inner_text()) == doc["summary"]["total"]
    rows = page.locator("tr.ref")
    assert rows.count() == doc["summary"]["total"]
    for verdict, count in doc["summary"]["by_verdict"].items():
        assert int(page.locator(f'.count[data-verdict="{verdict}"]').inner_text()) == count
        assert page.locator(f'tr.ref[data-verdict="{verdict}"]').count() == count

    # The verdict filter: clicking a chip shows only that verdict's rows.
    page.click('button[data-filter="fabricated"]')
    visible = [r for r in rows.all() if r.is_visible()]
    assert len(visible) == doc["summary"]["by_verdict"]["fabricated"]
    page.click('button[data-filter="all"]')
    assert sum(1 for r in rows.all() if r.is_visible()) == doc["summary"]["total"]
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert errors == []


def _no_horizontal_overflow(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The page does not scroll sideways, and no visible element sticks out past the viewport."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const out = [];
            const scroll = document.documentElement.scrollWidth;
            if (scroll > width) out.push("page " + scroll);
            for (const el of document.querySelectorAll("body *")) {
                const r = el.getBoundingClientRect();
                if (r.width && r.height && (r.right > width + 0.5 || r.left < -0.5)) {
                    out.push(`${el.tagName}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
                }
            }
            return out.slice(0, 10);
        }"""
    )


@pytest.mark.parametrize(("name", "width"), [("desktop", 1280), ("phone", 390)])
def test_html_report_reads_at_desktop_and_phone_width(tmp_path: Path, browser, name: str, width: int) -> None:  # type: ignore[no-untyped-def]
    html_path = _run_verify(tmp_path, "html")
    doc = json.loads(_run_verify(tmp_path, "json").read_text(encoding="utf-8"))
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(html_path.as_uri())
    page.wait_for_load_state("load")
    # The summary comes first: how many need attention, by kind, and the sources not asked.
    headline = page.locator("#attention")
    assert headline.inner_text().startswith(f"6 of {doc['summary']['total']} references need attention")
    assert headline.bounding_box()["y"] < page.locator("#references").bounding_box()["y"]
    assert page.locator("#partial-run").is_visible()  # offline: a partial run, said so
    # Cited fields decoded: no raw LaTeX.
    cited = page.locator("#references").inner_text()
    assert "Łukasz Kaiser" in cited and "{\\L}" not in cited and "{BERT}" not in cited
    # What is wrong, with values, and what to change.
    adam = page.locator('tr.ref:has-text("kingma2017adam")')
    assert "cited 2019; Semantic Scholar and arXiv say 2014" in adam.inner_text()
    assert adam.locator("mark.cited").inner_text() == "2019"
    assert adam.locator("pre.entry").inner_text().startswith("@inproceedings{kingma2017adam")
    doe = page.locator('tr.ref:has-text("doe2023survey")')
    assert "What to change: remove: the authors are placeholders" in doe.inner_text()
    assert _no_horizontal_overflow(page) == []
    shots = Path(os.environ.get("ALETHEIA_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"report-{name}.png"), full_page=True)
    assert (shots / f"report-{name}.png").stat().st_size > 10_000
    # One click copies the corrected entry (clipboard or, failing that, a selection).
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    adam.locator("button.copy").click()
    button = adam.locator("button.copy")
    for _ in range(50):
        if button.inner_text() != "Copy corrected entry":
            break
        page.wait_for_timeout(100)
    assert adam.locator("button.copy").inner_text() == "Copied"
    assert errors == []
    context.close()
