"""The simulator's responses read by the real parsers: every work of the test universe must come
back through `parse_*` with its title, authors, year and identifiers intact. A parser that is not
there (yet) skips its test instead of failing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from aletheia.core.records import Author, RetractionKind, WorkRecord
from aletheia.sources.simulator import SimulatorServer, SimWork, Universe
from aletheia.sources.simulator.work import WorkSource


def _parser(module: str, name: str) -> Callable[..., Any]:
    loaded = pytest.importorskip(module)
    function = getattr(loaded, name, None)
    if function is None:
        pytest.skip(f"{module}.{name} does not exist yet")
    return function  # type: ignore[no-any-return]


def _known(universe: Universe, source: WorkSource) -> list[SimWork]:
    return [work.view(source) for work in universe.works if source in work.known_by]


def _displays(authors: tuple[Author, ...]) -> list[str]:
    return [author.display for author in authors]


def _expected_displays(work: SimWork) -> list[str]:
    return [author.display for author in work.authors]


def test_crossref_single_and_list(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse = _parser("aletheia.sources.crossref", "parse_crossref_message")
    works = _known(universe, "crossref")
    assert works
    for work in works:
        payload = client.get(f"{sim.url_for('crossref')}/works/{work.doi}").json()
        (record,) = parse(payload)
        assert isinstance(record, WorkRecord)
        assert record.title == work.title
        assert record.subtitle == work.subtitle
        assert record.year == work.year
        assert record.doi == work.doi
        assert [(a.given, a.family, a.literal) for a in record.authors] == [
            (a.given, a.family, a.literal) for a in work.authors
        ]
        if work.retracted:
            assert [n.kind for n in record.retraction_notices] == [RetractionKind.RETRACTED]
    listed = parse(
        client.get(f"{sim.url_for('crossref')}/works", params={"query.bibliographic": "graph"}).json()
    )
    assert listed[0].title == "Graph Sketches"
    assert listed[0].score is not None and listed[0].score > 0


def test_crossref_notice_points_at_the_retracted_work(sim: SimulatorServer, client: httpx.Client) -> None:
    parse = _parser("aletheia.sources.crossref", "parse_crossref_message")
    payload = client.get(
        f"{sim.url_for('crossref')}/works", params={"filter": "updates:10.5555/mat.2018.311"}
    ).json()
    (notice,) = parse(payload)
    assert notice.doi == "10.5555/mat.2019.ret1"
    assert notice.notice_for == ("10.5555/mat.2018.311",)


def test_openalex_works(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse = _parser("aletheia.sources.openalex", "parse_openalex_work")
    works = _known(universe, "openalex")
    assert works
    for work in works:
        record = parse(client.get(f"{sim.url_for('openalex')}/works/doi:{work.doi}").json())
        assert record.title == work.display_title
        assert record.year == work.year
        assert record.doi == work.doi
        assert record.pmid == work.pmid
        assert record.pmcid == work.pmcid
        assert _displays(record.authors) == _expected_displays(work)
        assert bool(record.retraction_notices) == work.retracted
        if work.related is not None and work.related.preprint_arxiv_id:
            assert work.related.preprint_arxiv_id in (*record.related_arxiv_ids, record.arxiv_id)


def test_openalex_list(sim: SimulatorServer, client: httpx.Client) -> None:
    parse = _parser("aletheia.sources.openalex", "parse_openalex_list")
    payload = client.get(
        f"{sim.url_for('openalex')}/works", params={"filter": "doi:10.5555/lrh.2020.77|10.5555/book.2015.1"}
    ).json()
    assert sorted(r.doi for r in parse(payload)) == ["10.5555/book.2015.1", "10.5555/lrh.2020.77"]


def test_semantic_scholar_papers(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse = _parser("aletheia.sources.semantic_scholar_parse", "parse_s2_paper")
    fields = ",".join(
        getattr(
            pytest.importorskip("aletheia.sources.semantic_scholar"),
            "PAPER_FIELDS",
            ("title", "authors", "year", "venue", "externalIds", "abstract", "publicationTypes", "journal"),
        )
    )
    works = _known(universe, "semantic_scholar")
    ids = [f"CorpusId:{work.derived_corpus_id}" for work in works]
    papers = client.post(
        f"{sim.url_for('semantic_scholar')}/graph/v1/paper/batch",
        params={"fields": fields},
        json={"ids": ids},
    ).json()
    assert len(papers) == len(works)
    for work, paper in zip(works, papers, strict=True):
        record = parse(paper)
        assert record.title == work.display_title
        assert record.year == work.year  # the S2 view: the coral paper's year is 2016 there
        assert record.doi == work.doi
        assert record.pmid == work.pmid
        assert record.arxiv_id == (
            work.arxiv_id or (work.related.preprint_arxiv_id if work.related else None)
        )
        assert _displays(record.authors) == _expected_displays(work)


def test_semantic_scholar_match(sim: SimulatorServer, client: httpx.Client) -> None:
    parse = _parser("aletheia.sources.semantic_scholar_parse", "parse_s2_paper")
    payload = client.get(
        f"{sim.url_for('semantic_scholar')}/graph/v1/paper/search/match",
        params={
            "query": "Measuring Coral Reef Resilience with Drone Imagery",
            "fields": "title,year,externalIds",
        },
    ).json()
    record = parse(payload["data"][0])
    assert (record.title, record.year, record.doi) == (
        "Measuring Coral Reef Resilience with Drone Imagery",
        2016,
        "10.5555/mar.2017.12",
    )


def test_arxiv_feed(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse = _parser("aletheia.sources.arxiv_parse", "parse_arxiv_feed")
    works = _known(universe, "arxiv")
    assert works
    ids = ",".join(work.arxiv_id or "" for work in works)
    records = parse(client.get(f"{sim.url_for('arxiv_api')}/api/query", params={"id_list": ids}).text)
    assert [r.arxiv_id for r in records] == [w.arxiv_id for w in works]
    for work, record in zip(works, records, strict=True):
        assert record.title == work.display_title
        assert record.arxiv_version == work.versions[-1].version
        assert record.year == work.versions[0].year
        assert _displays(record.authors) == _expected_displays(work)
        published = work.related.published_doi if work.related else None
        assert record.related_dois == ((published,) if published else ())


def test_arxiv_error_feed_is_recognised(sim: SimulatorServer, client: httpx.Client) -> None:
    parse_atom = _parser("aletheia.sources.arxiv_parse", "parse_arxiv_atom")
    feed = parse_atom(
        client.get(f"{sim.url_for('arxiv_api')}/api/query", params={"id_list": "nonsense"}).text
    )
    assert feed.entries == ()
    assert feed.errors == ("incorrect id format for nonsense",)


def _pubmed_expectations(record: WorkRecord, work: SimWork) -> None:
    assert record.title == work.display_title
    assert record.year == work.year
    assert record.doi == work.doi
    assert record.pmid == work.pmid
    assert record.pmcid == work.pmcid
    assert bool(record.retraction_notices) == work.retracted


def test_pubmed_efetch(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse = _parser("aletheia.sources.pubmed", "parse_efetch_xml")
    works = _known(universe, "pubmed")
    assert works
    ids = ",".join(work.pmid or "" for work in works)
    records = parse(
        client.get(
            f"{sim.url_for('pubmed')}/entrez/eutils/efetch.fcgi", params={"db": "pubmed", "id": ids}
        ).text
    )
    assert [r.pmid for r in records] == [w.pmid for w in works]
    for work, record in zip(works, records, strict=True):
        _pubmed_expectations(record, work)
        assert [(a.given, a.family, a.literal) for a in record.authors] == [
            (a.given, a.family, a.literal) for a in work.authors
        ]


def test_pubmed_esummary_and_esearch(sim: SimulatorServer, client: httpx.Client, universe: Universe) -> None:
    parse_summary = _parser("aletheia.sources.pubmed", "parse_esummary_json")
    parse_search = _parser("aletheia.sources.pubmed", "parse_esearch")
    works = _known(universe, "pubmed")
    ids = ",".join([*(work.pmid or "" for work in works), "1"])
    base = f"{sim.url_for('pubmed')}/entrez/eutils"
    records = parse_summary(
        client.get(f"{base}/esummary.fcgi", params={"db": "pubmed", "id": ids, "retmode": "json"}).json()
    )
    assert len(records) == len(works)  # the unknown uid is left out
    for work, record in zip(works, records, strict=True):
        _pubmed_expectations(record, work)
        assert [a.family or a.literal for a in record.authors] == [
            a.family or a.literal for a in work.authors
        ]
    found = parse_search(
        client.get(
            f"{base}/esearch.fcgi",
            params={"db": "pubmed", "term": "graphene aerogels[ti]", "retmode": "json"},
        ).json()
    )
    assert found == ["29876543"]
    found_xml = parse_search(
        client.get(f"{base}/esearch.fcgi", params={"db": "pubmed", "term": "zebrafish"}).text
    )
    assert found_xml == ["31234567"]
