"""Issue 20: a PDF printed by Chromium (headless `--print-to-pdf` of `chromium_refs.html`, our own
page). Its glyph boxes overlap, so asking pdfium for the text inside each text rectangle read the
neighbouring glyphs twice ("VaVaswani", "A Adam: A A A method") and split words at every kerning
gap ("A s m all p ap e r"); its header (date, time, title) and footer (URL, "1/1") were glued to
the last reference. pypdfium2's own text of the page is clean: lines are now built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.pdf_reading import pdf_text
from aletheia.pipeline.documents.pdf_references import extract_pdf_references

PDF = Path(__file__).resolve().parents[1] / "fixtures" / "pdf" / "chromium_refs.pdf"


@pytest.fixture(autouse=True)
def _no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALETHEIA_PDF_SANDBOX", "false")
    from aletheia.config import get_settings

    get_settings.cache_clear()


def test_no_doubled_glyphs_and_no_split_words() -> None:
    text = pdf_text(PDF.read_bytes())
    assert "A small paper about attention" in text
    assert "VaVaswani" not in text and "Vaswani, A., Shazeer, N." in text
    assert "Adam: A method for stochastic optimization" in text
    assert "NeNeural" not in text and "Neural Information Processing" in text


def test_references_read_whole_without_the_page_furniture() -> None:
    refs = [
        r
        for r in extract_pdf_references(PDF.read_bytes(), origin="refs.pdf")
        if isinstance(r, CitedReference)
    ]
    assert [r.authors[0].family for r in refs] == ["Vaswani", "Kingma", "Goodfellow"]
    assert [r.title for r in refs] == [
        "Attention is all you need",
        "Adam: A method for stochastic optimization",
        "Generative adversarial nets",
    ]
    assert [r.year for r in refs] == [2017, 2015, 2014]
    last = refs[-1].raw or ""
    assert last.endswith("Information Processing Systems, 27."), last
