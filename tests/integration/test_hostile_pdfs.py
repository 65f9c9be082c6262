"""Hostile PDFs and oversized inputs in the parsing step: each limit hit is a clear error for that
document only, and the job's other documents are read as usual.

The PDFs are built here: a 2 KB file whose twice-compressed content stream inflates to 600 MB, a
300 KB one holding 100 MB of text operators (memory and CPU), a page tree of 100,000 pages, and
bytes that only start like a PDF.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia.config.settings import reset_settings_cache
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.service import InputDocument, read_references
from tests.integration.pdfs import deflate_repeated, make_pdf


@pytest.fixture(scope="module")
def pdfs() -> dict[str, bytes]:
    spaces = deflate_repeated(b" " * 1_000_000, 600)  # 600 MB of nothing, ~600 KB deflated...
    operators = deflate_repeated(b"BT /F1 12 Tf 72 700 Td (Aletheia) Tj ET\n" * 25_000, 100)
    return {
        # ...and ~2 KB once deflated twice.
        "double_bomb.pdf": make_pdf([zlib.compress(spaces, 9)], "[/FlateDecode /FlateDecode]"),
        "operator_bomb.pdf": make_pdf([operators], "/FlateDecode"),
        "endless.pdf": make_pdf([b"BT /F1 12 Tf 72 700 Td (x) Tj ET"], repeat_first_page=100_000),
        "broken.pdf": b"%PDF-1.7\n" + bytes(range(256)) * 40,
    }


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ALETHEIA_PDF_MEMORY_LIMIT_MB", "256")
    monkeypatch.setenv("ALETHEIA_PDF_TIMEOUT_SECONDS", "3")
    monkeypatch.setenv("ALETHEIA_MAX_PDF_PAGES", "500")
    reset_settings_cache()
    yield
    reset_settings_cache()


GOOD_BIB = b"""@article{good1, title = {Seasonal variation in glacier retreat}, author = {Okafor, Imani},
  year = {2019}, doi = {10.5555/fault.1}}
@article{good2, title = {Tidal energy}, author = {Moreau, Jonas}, year = {2020}}
"""


def test_the_bombs_really_are_bombs(pdfs: dict[str, bytes]) -> None:
    # What the limits are for: a few kilobytes in, hundreds of megabytes out.
    assert len(pdfs["double_bomb.pdf"]) < 10_000
    assert len(pdfs["operator_bomb.pdf"]) < 1_000_000


@pytest.mark.timeout(120)
def test_each_hostile_pdf_is_an_error_for_itself_only(pdfs: dict[str, bytes], limits: None) -> None:
    documents = [InputDocument(name="refs.bib", data=GOOD_BIB)]
    documents += [InputDocument(name=name, data=data) for name, data in pdfs.items()]
    documents.append(InputDocument(name="more.bib", data=GOOD_BIB.replace(b"good", b"more")))
    started = time.monotonic()
    results = list(read_references(documents, max_bytes=10_000_000))
    elapsed = time.monotonic() - started
    refs = [r for r in results if isinstance(r, CitedReference)]
    problems = {p.origin: p.message for p in results if isinstance(p, InputProblem)}
    assert [r.key for r in refs] == ["good1", "good2", "more1", "more2"]
    assert set(problems) == set(pdfs)
    assert "memory limit of 256 MB" in problems["double_bomb.pdf"]
    assert "memory limit" in problems["operator_bomb.pdf"] or "s of CPU" in problems["operator_bomb.pdf"]
    assert "100000 pages, over the limit of 500" in problems["endless.pdf"]
    assert "not a readable PDF" in problems["broken.pdf"]
    # Every message names its document, not the temporary file it was parsed from.
    assert all(message.startswith(name) for name, message in problems.items())
    assert elapsed < 60


@pytest.mark.timeout(60)
def test_a_slow_page_is_stopped_by_the_time_limit(
    pdfs: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_PDF_MEMORY_LIMIT_MB", "0")  # no memory limit: only time can stop it
    monkeypatch.setenv("ALETHEIA_PDF_TIMEOUT_SECONDS", "1")
    reset_settings_cache()
    try:
        started = time.monotonic()
        (problem,) = read_references(
            [InputDocument(name="slow.pdf", data=pdfs["operator_bomb.pdf"])], 10_000_000
        )
    finally:
        reset_settings_cache()
    assert isinstance(problem, InputProblem) and problem.origin == "slow.pdf"
    assert "CPU" in problem.message or "longer than" in problem.message
    assert time.monotonic() - started < 15


def test_an_input_over_the_size_limit_is_an_error_for_itself_only(limits: None) -> None:
    big = b"@misc{x, note = {" + b"a" * 5000 + b"}}\n"
    results = list(
        read_references(
            [InputDocument(name="big.bib", data=big), InputDocument(name="ok.bib", data=GOOD_BIB)], 1000
        )
    )
    (problem,) = [r for r in results if isinstance(r, InputProblem)]
    assert problem.origin == "big.bib" and "over the input limit of 1000 bytes" in problem.message
    assert [r.key for r in results if isinstance(r, CitedReference)] == ["good1", "good2"]


def test_pdf_memory_limit_is_the_childs_not_ours(
    pdfs: dict[str, bytes], limits: None, tmp_path: Path
) -> None:
    """The parent's own memory stays small while the child hits its limit."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    list(read_references([InputDocument(name="bomb.pdf", data=pdfs["double_bomb.pdf"])], 10_000_000))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert after - before < 100 * 1024  # KiB: well under the 600 MB the bomb inflates to


@pytest.mark.timeout(120)
def test_the_claim_pipelines_full_text_reader_is_sandboxed_too(
    pdfs: dict[str, bytes], limits: None, tmp_path: Path
) -> None:
    """`fetch_paper_text`'s PDF path (the parsing pool's `convert_document`) reads hostile PDFs in
    the same child process under the same limits: a limit hit or a broken file is an error for
    that document, the caller's process is untouched, and a good PDF still converts."""
    from aletheia.config import get_settings
    from aletheia.pipeline.documents.fulltext import (
        ConversionError,
        DocumentLimitError,
        FulltextError,
        convert_document,
    )
    from tests.integration.pdfs import text_pdf

    settings = get_settings()
    assert settings.pdf_sandbox
    for name in ("double_bomb.pdf", "operator_bomb.pdf", "endless.pdf", "broken.pdf"):
        started = time.monotonic()
        with pytest.raises(FulltextError) as raised:
            convert_document(pdfs[name], "pdf", settings=settings, cache_dir=tmp_path)
        assert time.monotonic() - started < 60, name
        expected = ConversionError if name == "broken.pdf" else DocumentLimitError
        assert isinstance(raised.value, expected), (name, raised.value)
    paper = convert_document(
        text_pdf(["Results", "Aletheia reads this page."]), "pdf", settings=settings, cache_dir=tmp_path
    )
    assert "Aletheia reads this page." in paper.text
