"""PubMed: efetch/esummary/esearch parsers, the XML guard, and the client."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from aletheia.config.settings import Settings
from aletheia.core.records import Author, RetractionKind, SourceName
from aletheia.sources.base import PermanentSourceError, SourceParseError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.pubmed import (
    MAX_IDS_PER_REQUEST,
    PubMedClient,
    parse_efetch_xml,
    parse_esearch,
    parse_esummary_doc,
    parse_esummary_json,
    parse_esummary_xml,
    parse_pubmed_raw,
    pubmed_transport,
)
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_clock import FakeClock
from tests.unit.source_fakes import Call, FakeTransport, fixture_text


def efetch_for(pmids: list[str]) -> str:
    articles = "".join(
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><Title>J</Title>"
        f"<JournalIssue><PubDate><Year>2010</Year></PubDate></JournalIssue></Journal>"
        f"<ArticleTitle>Article {pmid}.</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
        for pmid in pmids
    )
    return f"<PubmedArticleSet>{articles}</PubmedArticleSet>"


def efetch_answer(call: Call) -> str:
    # PMIDs below 1000 do not exist in this fake PubMed.
    return efetch_for([p for p in call.params["id"].split(",") if int(p) >= 1000])


def fake(handler: Any) -> FakeTransport:
    return FakeTransport(handler, source=SourceName.PUBMED, base_url="https://eutils.test")


# --- efetch ----------------------------------------------------------------------------------------


def test_efetch_retracted_article() -> None:
    retracted, notice, concerned = parse_efetch_xml(fixture_text("pubmed", "efetch_standing.xml"))

    assert retracted.source is SourceName.PUBMED
    assert retracted.source_id == retracted.pmid == "9876543"
    assert retracted.title == "Vitamin Q and the common cold"  # inline markup kept as text, period dropped
    assert retracted.authors == (
        Author(given="María José", family="García-López", orcid="0000-0002-1825-009X"),
        Author(given="George W", family="Hambrick", suffix="Jr"),
        Author(given="K", family="Ng"),
        Author(literal="Cold Study Group"),
    )  # the ValidYN="N" misspelling is skipped
    assert retracted.authors_truncated is True  # AuthorList CompleteYN="N"
    assert retracted.year == 1998  # MedlineDate "1998 Dec-1999 Jan"
    assert retracted.venue == "Journal of Imaginary Medicine"
    # The DOI comes from ELocationID; the cited reference's DOI in ReferenceList is not taken.
    assert retracted.doi == "10.5555/jim.1998.0001"
    assert retracted.pmcid == "PMC1234567"
    assert retracted.abstract == "BACKGROUND: Colds are common.\nRESULTS: Vitamin Q did nothing."
    assert retracted.work_type == "journal-article"
    kinds = [(n.kind, n.source) for n in retracted.retraction_notices]
    assert kinds == [
        (RetractionKind.RETRACTED, SourceName.PUBMED),
        (RetractionKind.CORRECTED, SourceName.PUBMED),
    ]
    assert "PMID 11223344" in (retracted.retraction_notices[0].detail or "")
    assert retracted.retraction_notices[0].notice_doi == "10.5555/jim.2001.retr"  # from the citation
    assert retracted.retraction_notices[1].notice_doi is None

    # The notice itself: a retraction notice, but not a retracted work.
    assert notice.work_type == "notice"
    assert notice.retraction_notices == ()
    assert notice.notice_for == ("10.5555/jim.1998.0001",)
    assert notice.doi == "10.5555/jim.2001.retr"
    assert notice.authors == ()
    assert notice.authors_truncated is False

    assert concerned.title == "[Concerning results in mice]"  # translated title keeps its brackets
    assert concerned.year == 2016  # no PubDate year: the electronic ArticleDate
    assert concerned.venue == "Imag Rep"
    assert [n.kind for n in concerned.retraction_notices] == [RetractionKind.EXPRESSION_OF_CONCERN]


def test_retracted_publication_type_without_link_is_enough() -> None:
    body = fixture_text("pubmed", "efetch_standing.xml").replace(
        'RefType="RetractionIn"', 'RefType="CommentIn"'
    )
    retracted = parse_efetch_xml(body)[0]
    retracted_notices = [n for n in retracted.retraction_notices if n.kind is RetractionKind.RETRACTED]
    assert [n.detail for n in retracted_notices] == ["publication type: Retracted Publication"]


def test_efetch_book_article() -> None:
    [record] = parse_efetch_xml(fixture_text("pubmed", "efetch_book.xml"))
    assert record.pmid == "20000002"
    assert record.title == "ABC1-Related Disorders"
    assert record.authors == (Author(given="Chidi", family="Okafor"),)  # the editors are not authors
    assert record.venue == "Imaginary Reviews®"
    assert record.year == 2004
    assert record.work_type == "book-chapter"


def test_efetch_entity_bomb_is_refused_but_a_plain_doctype_is_not() -> None:
    with pytest.raises(SourceParseError, match="entities"):
        parse_efetch_xml(fixture_text("pubmed", "entity_bomb.xml"))
    with pytest.raises(SourceParseError, match="internal subset"):
        parse_efetch_xml('<!DOCTYPE PubmedArticleSet [ <!ATTLIST a b CDATA "c"> ]><PubmedArticleSet/>')
    assert parse_efetch_xml('<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//x" "x.dtd"><PubmedArticleSet/>') == []


@pytest.mark.parametrize(
    "body",
    [
        "<PubmedArticleSet><PubmedArticle>",
        "<eSearchResult/>",
        "<PubmedArticleSet><PubmedArticle><MedlineCitation/></PubmedArticle></PubmedArticleSet>",
    ],
)
def test_efetch_malformed_is_a_parse_error(body: str) -> None:
    with pytest.raises(SourceParseError):
        parse_efetch_xml(body)


def test_efetch_error_result_is_permanent() -> None:
    with pytest.raises(PermanentSourceError, match="ID list is empty"):
        parse_efetch_xml(
            "<eFetchResult><ERROR>ID list is empty! Possibly it has no correct IDs.</ERROR></eFetchResult>"
        )


# --- esummary and esearch ----------------------------------------------------------------------------


def test_esummary_json() -> None:
    first, second = parse_esummary_json(json.loads(fixture_text("pubmed", "esummary.json")))
    assert first.pmid == "31415926"
    assert first.title == "Digits of pi in clinical trials"
    assert first.authors == (
        Author(given="AB", family="van der Berg"),
        Author(given="GW", family="Hambrick", suffix="Jr"),
        Author(literal="Pi Consortium"),
    )
    assert first.year == 2019
    assert first.venue == "Imaginary reports"
    assert first.doi == "10.5555/imag.2019.314"
    assert first.pmcid == "PMC7654321"
    # "Retraction in" link and "Retracted Publication" type: one notice, from the link.
    assert [(n.kind, "PMID 32000001" in (n.detail or "")) for n in first.retraction_notices] == [
        (RetractionKind.RETRACTED, True)
    ]
    assert second.doi == "10.5555/imag.2016.271"  # from elocationid
    assert second.retraction_notices == ()


def test_esummary_notice_record() -> None:
    record = parse_esummary_doc(
        {
            "uid": "32000001",
            "title": "Retraction notice to: Digits of pi in clinical trials.",
            "pubtype": ["Retraction of Publication"],
            "references": [
                {
                    "reftype": "Retraction of",
                    "refsource": "Imag Rep. 2019;4:1. doi: 10.5555/IMAG.2019.314.",
                    "pmid": 31415926,
                }
            ],
        }
    )
    assert record is not None
    assert record.work_type == "notice"
    assert record.notice_for == ("10.5555/imag.2019.314",)
    assert record.retraction_notices == ()


@pytest.mark.parametrize(
    "payload",
    [
        [],
        {"header": {}},
        {"result": {"uids": "31415926"}},
        {"result": {"uids": ["1"], "1": {"uid": "1", "authors": ["x"]}}},
    ],
)
def test_esummary_wrong_shapes(payload: Any) -> None:
    with pytest.raises(SourceParseError):
        parse_esummary_json(payload)


def test_esummary_invalid_uid_is_no_record() -> None:
    payload = {
        "header": {"type": "esummary"},
        "error": "Invalid uid Z1 at position=0",
        "result": {"uids": []},
    }
    assert parse_esummary_json(payload) == []


def test_esummary_xml_skips_other_databases() -> None:
    body = """<eSummaryResult>
      <DocSum><Id>123</Id><Item Name="PubDate" Type="Date">1999 Jul</Item>
        <Item Name="Source" Type="String">Imag Rep</Item>
        <Item Name="AuthorList" Type="List"><Item Name="Author" Type="String">Okafor C</Item></Item>
        <Item Name="Title" Type="String">A title.</Item>
        <Item Name="ArticleIds" Type="List"><Item Name="doi" Type="String">10.5555/x.1</Item></Item>
      </DocSum>
      <DocSum><Id>456</Id><Item Name="Caption" Type="String">AAO1</Item>
        <Item Name="Title" Type="String">a protein</Item></DocSum>
    </eSummaryResult>"""
    [record] = parse_esummary_xml(body)
    assert (record.pmid, record.title, record.year, record.doi) == ("123", "A title", 1999, "10.5555/x.1")
    assert record.authors == (Author(given="C", family="Okafor"),)


def test_esearch_json_and_xml() -> None:
    assert parse_esearch(json.loads(fixture_text("pubmed", "esearch.json"))) == ["31415926", "27182818"]
    xml = "<eSearchResult><Count>2</Count><IdList><Id>5</Id><Id>6</Id></IdList></eSearchResult>"
    assert parse_esearch(xml) == ["5", "6"]
    not_found = (
        "<eSearchResult><Count>0</Count><IdList/>"
        "<ErrorList><PhraseNotFound>x</PhraseNotFound></ErrorList></eSearchResult>"
    )
    assert parse_esearch(not_found) == []


def test_esearch_errors() -> None:
    with pytest.raises(PermanentSourceError, match="unbalanced"):
        parse_esearch(json.loads(fixture_text("pubmed", "esearch_error.json")))
    with pytest.raises(PermanentSourceError):
        parse_esearch("<eSearchResult><ERROR>Invalid db name</ERROR></eSearchResult>")
    with pytest.raises(SourceParseError):
        parse_esearch({"esearchresult": {"idlist": ["12", "PMC3"]}})
    with pytest.raises(SourceParseError):
        parse_esearch(42)


# --- client ----------------------------------------------------------------------------------------


async def test_by_pmid_request_shape() -> None:
    transport = fake(efetch_answer)
    client = PubMedClient(transport, api_key="ncbi-key", email="me@example.org", coalesce_window=0)
    found = await client.by_pmid("PMID: 4242")
    assert found is not None and found.record.title == "Article 4242"
    assert found.url == "https://eutils.test/entrez/eutils/efetch.fcgi?db=pubmed&id=4242"
    [call] = transport.calls
    assert call.method == "get_text"
    assert call.path == "/entrez/eutils/efetch.fcgi"
    assert call.params == {
        "tool": "aletheia",
        "email": "me@example.org",
        "api_key": "ncbi-key",
        "db": "pubmed",
        "id": "4242",
        "retmode": "xml",
    }
    assert call.kind == "single"


async def test_no_key_no_key_param() -> None:
    transport = fake(efetch_answer)
    await PubMedClient(transport, coalesce_window=0).by_pmid(4242)
    assert "api_key" not in transport.calls[0].params
    assert "email" not in transport.calls[0].params


async def test_by_pmids_batches_of_200_and_not_found() -> None:
    transport = fake(efetch_answer)
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    client = PubMedClient(transport, cache=cache)
    pmids = [str(n) for n in range(900, 1350)]
    results = await client.by_pmids(pmids)
    assert [len(c.params["id"].split(",")) for c in transport.calls] == [
        MAX_IDS_PER_REQUEST,
        MAX_IDS_PER_REQUEST,
        50,
    ]
    assert all(c.kind == "batch" for c in transport.calls)
    assert results["999"] is None
    hit = results["1000"]
    assert hit is not None and hit.record.pmid == "1000"
    # Both answers were cached, the negative one included.
    again = await client.by_pmids(["999", "1000"])
    assert len(transport.calls) == 3
    assert again["999"] is None
    cached = again["1000"]
    assert cached is not None and cached.from_cache and cached.record == hit.record


async def test_concurrent_by_pmid_calls_coalesce() -> None:
    transport = fake(efetch_answer)
    client = PubMedClient(transport, coalesce_window=0.01)
    found = await asyncio.gather(*(client.by_pmid(p) for p in ["1001", "1002", "5", "1001"]))
    [call] = transport.calls
    assert call.params["id"] == "1001,1002,5"
    assert [r.record.pmid if r else None for r in found] == ["1001", "1002", None, "1001"]


async def test_summaries() -> None:
    transport = fake(lambda call: json.loads(fixture_text("pubmed", "esummary.json")))
    results = await PubMedClient(transport).summaries(["31415926", "99999999"])
    [call] = transport.calls
    assert call.method == "get_json"
    assert call.path == "/entrez/eutils/esummary.fcgi"
    assert call.params == {"tool": "aletheia", "db": "pubmed", "id": "31415926,99999999", "retmode": "json"}
    summary = results["31415926"]
    assert summary is not None and summary.record.doi == "10.5555/imag.2019.314"
    assert results["99999999"] is None


async def test_search_term_shape() -> None:
    transport = fake(lambda call: json.loads(fixture_text("pubmed", "esearch.json")))
    pmids = await PubMedClient(transport).search(
        title="Vitamin Q and the common cold: a trial", author="García-López", year=1998, retmax=3
    )
    assert pmids == ["31415926", "27182818"]
    [call] = transport.calls
    assert call.path == "/entrez/eutils/esearch.fcgi"
    assert call.kind == "search"
    assert call.params == {
        "tool": "aletheia",
        "db": "pubmed",
        "term": "Vitamin[ti] AND common[ti] AND cold[ti] AND trial[ti] AND García-López[au] AND 1998[dp]",
        "retmode": "json",
        "retmax": 3,
        "sort": "relevance",
    }
    with pytest.raises(ValueError):
        await PubMedClient(transport).search()


async def test_transport_from_settings_sends_identity_and_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text=efetch_for(["4242"]))

    settings = Settings(
        _env_file=None, pubmed_url="https://eutils.test", mailto="lab@example.org", NCBI_API_KEY="ncbi-secret"
    )
    clock = FakeClock()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        transport = pubmed_transport(http, settings, LocalRateLimiter(clock=clock, sleep=clock.sleep))
        assert transport.limits == settings.pubmed_limits_with_key  # 10/s with a key
        found = await PubMedClient(transport, coalesce_window=0).by_pmid("4242")
    assert found is not None
    [request] = seen
    assert request.url.path == "/entrez/eutils/efetch.fcgi"
    assert dict(request.url.params) == {
        "tool": "aletheia",
        "email": "lab@example.org",
        "api_key": "ncbi-secret",
        "db": "pubmed",
        "id": "4242",
        "retmode": "xml",
    }


def test_transport_without_key_uses_the_keyless_rate() -> None:
    settings = Settings(_env_file=None)
    transport = pubmed_transport(httpx.AsyncClient(), settings, LocalRateLimiter())
    assert transport.limits == settings.pubmed_limits


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)
DOC_KEYS = [
    "uid",
    "title",
    "authors",
    "pubdate",
    "articleids",
    "pubtype",
    "references",
    "elocationid",
    "doctype",
]


@given(st.dictionaries(st.sampled_from(DOC_KEYS), JSON, max_size=9))
@hypothesis_settings(max_examples=200, deadline=None)
def test_any_esummary_doc_parses_or_is_a_parse_error(doc: dict[str, Any]) -> None:
    try:
        record = parse_esummary_doc(doc)
    except SourceParseError:
        return
    assert record is None or (record.pmid is not None and record.pmid.isdigit())


@given(st.text(max_size=200))
@hypothesis_settings(max_examples=100, deadline=None)
def test_any_efetch_body_parses_or_is_refused(body: str) -> None:
    with contextlib.suppress(SourceParseError, PermanentSourceError):  # anything else fails the test
        parse_efetch_xml(body)


async def test_every_stored_raw_parses_back() -> None:
    """What the client keeps as `raw` (an article element, an esummary document) parses again."""
    efetch = fake(lambda call: fixture_text("pubmed", "efetch_standing.xml"))
    summary = fake(lambda call: json.loads(fixture_text("pubmed", "esummary.json")))
    full = await PubMedClient(efetch, coalesce_window=0).by_pmid("9876543")
    light = (await PubMedClient(summary).summaries(["31415926"]))["31415926"]
    assert full is not None and light is not None
    assert parse_pubmed_raw(full.raw) == [full.record]
    assert parse_pubmed_raw(light.raw) == [light.record]
    assert parse_pubmed_raw(json.loads(fixture_text("pubmed", "esummary.json")))[0] == light.record
    with pytest.raises(SourceParseError):
        parse_pubmed_raw(42)


def test_journal_abbreviations_and_issns() -> None:
    """The ISO abbreviation and MedlineTA are other names for the full journal title."""
    retracted, _, _ = parse_efetch_xml(fixture_text("pubmed", "efetch_standing.xml"))
    assert retracted.venue == "Journal of Imaginary Medicine"
    assert retracted.venue_aliases == ("J Imag Med",)
    xml = (
        "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>4242</PMID><Article>"
        "<Journal><ISSN IssnType='Electronic'>1476-4687</ISSN><Title>Nature</Title>"
        "<ISOAbbreviation>Nature</ISOAbbreviation><JournalIssue><PubDate><Year>2020</Year></PubDate>"
        "</JournalIssue></Journal><ArticleTitle>A letter.</ArticleTitle></Article>"
        "<MedlineJournalInfo><MedlineTA>Nature</MedlineTA><ISSNLinking>0028-0836</ISSNLinking>"
        "</MedlineJournalInfo></MedlineCitation></PubmedArticle></PubmedArticleSet>"
    )
    [nature] = parse_efetch_xml(xml)
    assert nature.venue == "Nature" and nature.venue_aliases == ()  # the same name is no alias
    assert nature.issn == ("1476-4687", "0028-0836")


def test_esummary_journal_abbreviation_and_issns() -> None:
    payload = json.loads(fixture_text("pubmed", "esummary.json"))
    uid = payload["result"]["uids"][0]
    payload["result"][uid] |= {"issn": "0028-0836", "essn": "2162-237x"}
    first, _ = parse_esummary_json(payload)
    assert first.venue == "Imaginary reports" and first.venue_aliases == ("Imag Rep",)
    assert first.issn == ("0028-0836", "2162-237X")
