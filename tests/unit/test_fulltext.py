"""Document conversion: the model-free PDF path, the HTML paths, limits, and the content-hash cache."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from aletheia.config import Settings
from aletheia.core.excerpts import locate_excerpt
from aletheia.core.records import SourceName, WorkRecord
from aletheia.pipeline.documents import fulltext
from aletheia.pipeline.documents.fulltext import (
    ConversionError,
    DocumentLimitError,
    abstract_only,
    convert_document,
)
from aletheia.sources.simulator.pdf import render_pdf

BODY = [
    ("Abstract", "We measure how quickly glaciers in the southern Alps retreat under warming summers."),
    ("2 Methods", "Terrestrial laser scans were repeated every autumn between 2011 and 2019."),
    ("3 Results", "Glacier tongues retreated by eleven metres per year on average across all sites. " * 3),
]


def pdf_bytes(body: Sequence[tuple[str | None, str]] = BODY) -> bytes:
    return render_pdf("Alpine Glacier Retreat", ["Nora Steiner"], "arXiv:2001.00001v1", body)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, docling_artifacts_path=None)


def test_pdf_text_with_sections_and_pages(settings: Settings, tmp_path: Path) -> None:
    paper = convert_document(pdf_bytes(), "pdf", settings=settings)
    assert paper.origin == "pdf_text" and paper.pages == 1
    found = locate_excerpt("Terrestrial laser scans were repeated every autumn", paper)
    assert found is not None
    assert (found.section, found.page) == ("2 Methods", 1)
    # Lines wrapped by the PDF still match.
    assert (
        locate_excerpt("retreated by eleven metres per year on average across all sites.", paper) is not None
    )


def test_conversions_are_cached_by_content(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    data = pdf_bytes()
    first = convert_document(data, "pdf", settings=settings)
    assert list((settings.data_dir / "fulltext").glob("*-pdf-pdfium-v1.json"))

    def fail(*args: object) -> None:
        raise AssertionError("converted again")

    monkeypatch.setattr(fulltext, "_convert_pdf_text", fail)
    assert convert_document(data, "pdf", settings=settings) == first


def test_page_and_size_limits_are_errors_for_that_document(settings: Settings, tmp_path: Path) -> None:
    many_pages = pdf_bytes([(None, "A line of text that fills the page. " * 40)] * 40)
    with pytest.raises(DocumentLimitError, match="pages"):
        convert_document(many_pages, "pdf", settings=settings.model_copy(update={"max_pdf_pages": 1}))
    with pytest.raises(DocumentLimitError, match="bytes"):
        convert_document(pdf_bytes(), "pdf", settings=settings.model_copy(update={"max_input_bytes": 100}))
    with pytest.raises(ConversionError):
        convert_document(b"%PDF-1.4 this is not a pdf", "pdf", settings=settings)


def test_time_limit(settings: Settings) -> None:
    # The page loop's clock ("... s at page N"), or, when the child's start-up alone outlasts the
    # limit on a loaded machine, its CPU limit ("... s of CPU"): the same limit, either way.
    with pytest.raises(DocumentLimitError, match=r"s at page|s of CPU"):
        convert_document(
            pdf_bytes(), "pdf", settings=settings.model_copy(update={"pdf_timeout_seconds": -1.0})
        )


def test_stdlib_html_fallback() -> None:
    html = (
        b"<html><head><style>p{}</style></head><body><h1>Title</h1><h2>Abstract</h2><p>First &amp; only.</p>"
        b"<h2>1 Introduction</h2><p>One.</p><p>Two <em>words</em>.</p><script>x()</script></body></html>"
    )
    paper = fulltext._convert_html_stdlib(html)
    assert [(b.section, b.paragraph, b.text) for b in paper.blocks] == [
        ("Abstract", 1, "First & only."),
        ("1 Introduction", 1, "One."),
        ("1 Introduction", 2, "Two words."),
    ]


def test_abstract_only() -> None:
    record = WorkRecord(source=SourceName.OPENALEX, title="T", abstract="An abstract.")
    paper = abstract_only(record)
    assert paper is not None and paper.origin == "abstract" and paper.blocks[0].section == "Abstract"
    assert abstract_only(record.model_copy(update={"abstract": "  "})) is None
