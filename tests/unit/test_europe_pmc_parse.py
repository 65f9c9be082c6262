"""Europe PMC's parsers: the REST search's JSON and JATS full texts (fixtures modelled on the
documented shapes: no recorded Europe PMC response exists in ../shared)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from aletheia.core.excerpts import locate_excerpt
from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.europe_pmc_parse import MAX_DEPTH, parse_jats, parse_search

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "europe_pmc"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_search_maps_a_pmid_to_an_open_access_pmcid() -> None:
    [hit] = parse_search(json.loads(fixture("search_open_access.json")))
    record = hit.record
    assert record.source is SourceName.EUROPE_PMC
    assert (record.pmid, record.pmcid, record.doi) == ("31000001", "PMC7000001", "10.5555/sleep.2019.14")
    assert (
        record.title == "Sleep spindle density in infants after cardiac surgery"
    )  # MEDLINE's period dropped
    assert (record.year, record.venue, record.source_id) == (2019, "J Pediatr Neurol", "MED:31000001")
    assert hit.open_access and hit.in_epmc and hit.full_text_available


def test_search_a_closed_article_has_no_readable_full_text() -> None:
    closed, preprint = parse_search(json.loads(fixture("search_closed.json")))
    assert closed.record.pmcid == "PMC7100042" and not closed.open_access
    assert not closed.full_text_available
    # Open access but no PMCID (a preprint server's record): no fullTextXML to ask for.
    assert preprint.open_access and preprint.record.pmcid is None and not preprint.full_text_available


def test_search_without_results() -> None:
    assert parse_search(json.loads(fixture("search_empty.json"))) == []
    assert parse_search({"hitCount": 0}) == []


@pytest.mark.parametrize(
    "payload",
    [[], "text", {"resultList": []}, {"resultList": {"result": {}}}, {"resultList": {"result": ["x"]}}],
)
def test_search_in_another_shape_is_a_parse_error(payload: Any) -> None:
    with pytest.raises(SourceParseError):
        parse_search(payload)


def test_jats_sections_paragraphs_and_identifiers() -> None:
    article = parse_jats(fixture("article.xml"))
    assert (article.pmcid, article.pmid, article.doi) == ("PMC7000001", "31000001", "10.5555/sleep.2019.14")
    assert article.title == "Sleep spindle density in infants after cardiac surgery"
    paper = article.paper
    assert paper is not None and paper.origin == "pmc_jats"
    where = {block.text: (block.section, block.paragraph) for block in paper.blocks}
    # The structured abstract's parts under their own titles; the graphical abstract left out.
    assert where["Sleep spindles mature during the first year of life."] == ("Background", 1)
    assert where["Fifty-two infants were recorded overnight with polysomnography."] == ("2.1 Participants", 1)
    assert where["Inclusion criteria were:"] == ("2.1 Participants", 2)
    assert where["gestational age of at least 37 weeks;"] == ("2.1 Participants", 3)
    # Inline markup keeps its text, citations included; an entity reference is a character.
    first = "Cardiac surgery in infancy is followed by changes in sleep architecture [1, 2]."
    assert where[first + " Spindles are bursts of 11\u201316 Hz activity."] == ("1 Introduction", 1)
    assert where["We asked whether spindle density predicts recovery."] == ("1 Introduction", 2)
    assert ("Spindle density over time.") in where and "Characteristics of the infants." in where
    assert where["We thank the families who took part."] == ("Acknowledgements", 1)
    assert where["Recording montage details."] == ("Appendix A", 1)
    text = paper.text
    for absent in ("graphical abstract", "footnote", "cell text", "Reference one", "referee", "mml"):
        assert absent not in text
    assert "Density was computed as spindles per minute of N2 sleep." in text


def test_a_quote_is_located_in_jats_text_with_its_section() -> None:
    paper = parse_jats(fixture("article.xml")).paper
    assert paper is not None
    found = locate_excerpt("Spindle density at six weeks was higher in infants who recovered", paper)
    assert found is not None and found.section == "3 Results"
    assert locate_excerpt("Spindle density at six weeks was lower", paper) is None


def test_metadata_only_article_has_no_text() -> None:
    # NCBI's efetch db=pmc form: <pmc-articleset>, the PMCID as bare digits, no <body>.
    article = parse_jats(fixture("metadata_only.xml"))
    assert (article.pmcid, article.pmid) == ("PMC7100042", "32000042")
    assert article.paper is None


@pytest.mark.parametrize(
    "body",
    [
        '<?xml version="1.0"?><!DOCTYPE article [<!ENTITY a "aaaa">]><article><p>&a;</p></article>',
        '<!DOCTYPE article SYSTEM "x.dtd" [<!ELEMENT article ANY>]><article/>',
        "<article><body><p>unclosed</body></article>",
        "<html><body><p>an error page</p></body></html>",
        "not xml at all",
    ],
)
def test_hostile_or_foreign_xml_is_refused(body: str) -> None:
    with pytest.raises(SourceParseError):
        parse_jats(body)


def test_size_and_depth_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from aletheia.sources import europe_pmc_parse

    monkeypatch.setattr(europe_pmc_parse, "MAX_JATS_CHARS", 100)
    with pytest.raises(SourceParseError, match="limit"):
        parse_jats(fixture("article.xml"))
    monkeypatch.undo()
    deep = "<sec><title>deep</title>" * (MAX_DEPTH * 3) + "<p>lost</p>" + "</sec>" * (MAX_DEPTH * 3)
    article = parse_jats(f"<article><body><p>shallow text</p>{deep}</body></article>")
    assert (
        article.paper is not None
        and "shallow text" in article.paper.text
        and "lost" not in article.paper.text
    )


@hypothesis_settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_any_body_parses_or_is_a_parse_error(body: str) -> None:
    try:
        article = parse_jats("<article><body><p>" + body + "</p></body></article>")
    except SourceParseError:
        return
    assert article.paper is None or all(block.text for block in article.paper.blocks)
