"""Markdown: reference sections, footnotes, DOI/arXiv links, and documents that are one list."""

from __future__ import annotations

from pathlib import Path

from aletheia.core.bibliography import InputProblem
from aletheia.core.bibliography.markdown import iter_markdown, markdown_to_text
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


def _refs(text: str) -> list[CitedReference]:
    results = list(iter_markdown(text, origin="doc.md"))
    return [r for r in results if isinstance(r, CitedReference)]


def test_the_fixture_document() -> None:
    refs = _refs((FIXTURES / "paper.md").read_text(encoding="utf-8"))
    assert [r.key for r in refs] == ["1", "2", "3", "4", "5", "nov", "ito"]
    survey, preprint, novak, okafor, tanaka, nov, ito = refs
    # links outside the reference list, not cited by it
    assert (survey.doi, survey.title) == ("10.5555/tides.survey.7", "a survey of tidal methods")
    assert survey.heuristic_fields == ("title",)
    assert (preprint.arxiv_id, preprint.title) == ("2104.05678", None)
    # the reference list (a bullet item after numbered ones is still an item)
    assert novak.title == "Tidal forcing of coastal aquifers"
    assert novak.venue == "Journal of Hydrology Letters"
    assert novak.doi == "10.5555/jhl.2020.0042"
    assert novak.raw is not None and "*" not in novak.raw and "](" not in novak.raw
    assert okafor.title == "Sparse attention for long documents"
    assert tanaka.year == 1998
    # footnotes, keyed by their labels, with their continuation lines
    assert nov.title == "Tidal forcing of coastal aquifers"
    assert ito.arxiv_id == "1805.01234"
    assert ito.raw is not None and ito.raw.endswith("Continued on an indented line.")
    assert ito.origin == "doc.md:24"
    # nothing from the fenced code block, and the appendix link repeats a cited DOI
    assert all("code block" not in (r.raw or "") for r in refs)


def test_a_document_that_is_one_list() -> None:
    refs = _refs("- Smith, J. (2020). One title. Venue.\n- Doe, A. (2019). Another title. Venue.\n")
    assert [(r.key, r.title) for r in refs] == [("1", "One title"), ("2", "Another title")]


def test_a_reference_section_without_list_items_is_read_as_plain_text() -> None:
    text = (
        "Intro.\n\nReferences\n==========\n\nSmith, J. (2020). One title. Venue.\n\n"
        "Doe, A. (2019). Another title. Venue.\n\n# Appendix\n\nNot a reference.\n"
    )
    assert [r.title for r in _refs(text)] == ["One title", "Another title"]


def test_bold_heading_and_numbered_section_names() -> None:
    text = "Body.\n\n**Bibliography**\n\n1. Smith, J. (2020). One title. Venue.\n"
    assert [r.title for r in _refs(text)] == ["One title"]
    text = "## 7. References\n\n* Doe, A. (2019). Another title. Venue.\n"
    assert [r.title for r in _refs(text)] == ["Another title"]


def test_empty_footnote_is_a_problem() -> None:
    results = list(iter_markdown("Text[^a].\n\n[^a]:\n", origin="doc.md"))
    assert len(results) == 1 and isinstance(results[0], InputProblem)


def test_markdown_to_text() -> None:
    assert markdown_to_text("**Bold** and _it_ and `code` [link](https://x.org) <https://y.org>") == (
        "Bold and it and code link https://y.org"
    )
    assert markdown_to_text("snake_case_name stays") == "snake_case_name stays"
