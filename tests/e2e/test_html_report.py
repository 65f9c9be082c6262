"""The HTML report in a real browser: Debian's chromium, headless, driven by Playwright.

It must render with no console errors, and the counts it shows must match the JSON report of
the same run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import IN_CI, REPO_ROOT

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _run_verify(tmp_path: Path, fmt: str) -> Path:
    out = tmp_path / f"report.{fmt}"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "ALETHEIA_OFFLINE": "true"}
    env.pop("ALETHEIA_DATABASE_URL", None)
    env.pop("ALETHEIA_BROKER_URL", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "aletheia.producers",
            "verify",
            str(REPO_ROOT / "examples" / "sample.bib"),
            "--format",
            fmt,
            "-o",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1, 3), proc.stderr
    return out


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
