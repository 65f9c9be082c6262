"""The source simulator: universe schema, every endpoint's shape, search, limits, faults, counters.

Most tests talk to a real loopback server with plain httpx; the limit and fault statistics run the
app directly (no sockets) with a fake clock, so they are fast and exact.
"""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config.settings import Settings
from aletheia.sources.safe_xml import parse_untrusted_xml
from aletheia.sources.simulator import (
    SimulatorApp,
    SimulatorConfig,
    SimulatorServer,
    SimWork,
    Universe,
    UniverseError,
    env_for,
    universe_from_records,
)
from aletheia.sources.simulator.http import Request
from aletheia.sources.simulator.limits import TokenBucket, retry_after_header
from aletheia.sources.simulator.search import BoolOp, Clause, parse_query, tokenize

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


# --- the universe ----------------------------------------------------------------------------------


def test_universe_reads_the_documented_schema(universe: Universe) -> None:
    assert len(universe) == 10
    article = universe.works[0]
    assert article.doi == "10.5555/jcp.2019.0417"  # DOIs are case-insensitive: stored lower-cased
    assert article.known_by == {"crossref", "openalex", "semantic_scholar", "pubmed"}
    preprint = universe.works[2]
    assert preprint.known_by == {"arxiv", "semantic_scholar"}
    assert [v.version for v in preprint.versions] == [1, 2]
    survey = universe.works[7]
    assert survey.known_by == {"semantic_scholar"}


def test_overrides_give_one_source_its_own_view(universe: Universe) -> None:
    coral = universe.works[8]
    assert coral.view("semantic_scholar").year == 2016
    assert coral.view("crossref").year == 2017
    assert coral.view("openalex").title == "Measuring coral reef resilience using drone imagery"
    # Derived ids do not depend on the view.
    assert coral.view("semantic_scholar").derived_s2_id == coral.derived_s2_id


def test_arxiv_id_with_version_implies_the_versions() -> None:
    work = SimWork.model_validate({"title": "T", "year": 2020, "arxiv_id": "arXiv:2001.00001v3"})
    assert work.arxiv_id == "2001.00001"
    assert [v.version for v in work.versions] == [1, 2, 3]


def test_a_bad_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"title": "Fine"}\n{"title": "Typo", "yaer": 2020}\n', encoding="utf-8")
    with pytest.raises(UniverseError, match=r"bad\.jsonl:2"):
        Universe.from_jsonl(path)


def test_an_override_of_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fields"):
        SimWork.model_validate({"title": "T", "overrides": {"crossref": {"yeer": 1}}})


def test_universe_from_records_writes_a_file_that_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "u.jsonl"
    built = universe_from_records(
        [{"title": "Alpha Beta", "doi": "10.5555/ab", "year": 2001, "authors": [{"family": "Gamma"}]}], path
    )
    again = Universe.from_jsonl(path)
    assert again.works == built.works
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["doi"] == "10.5555/ab"


def test_a_retracted_work_gets_a_crossref_notice_even_when_unlisted() -> None:
    built = universe_from_records([{"title": "Gone", "doi": "10.5555/gone", "year": 2010, "retracted": True}])
    notices = built.catalog("crossref").notices_for["10.5555/gone"]
    notice = built.catalog("crossref").works[notices[0]]
    assert notice.title == "Retraction Note: Gone"
    assert notice.year == 2011


# --- Crossref --------------------------------------------------------------------------------------


def test_crossref_work_envelope_and_fields(sim: SimulatorServer, client: httpx.Client) -> None:
    response = client.get(sim.url_for("crossref") + "/works/10.5555/JCP.2019.0417")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    payload = response.json()
    assert {k: payload[k] for k in ("status", "message-type", "message-version")} == {
        "status": "ok",
        "message-type": "work",
        "message-version": "1.0.0",
    }
    message = payload["message"]
    assert message["title"] == ["Circadian Regulation of Hepatic Lipid Metabolism in Zebrafish"]
    assert message["container-title"] == ["Journal of Comparative Physiology"]
    assert message["author"][0] == {
        "given": "Maria",
        "family": "Okonkwo",
        "sequence": "first",
        "affiliation": [],
    }
    assert message["author"][1]["sequence"] == "additional"
    assert message["issued"]["date-parts"][0][0] == 2019
    assert message["DOI"] == "10.5555/jcp.2019.0417"
    assert message["score"] == 1.0
    assert (message["volume"], message["issue"], message["page"]) == ("42", "3", "211-229")
    assert message["abstract"].startswith("<jats:p>We describe")


def test_crossref_unknown_doi_is_a_plain_text_404(sim: SimulatorServer, client: httpx.Client) -> None:
    response = client.get(sim.url_for("crossref") + "/works/10.5555/no-such-work")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == "Resource not found."
    # A DOI only Semantic Scholar knows is not Crossref's either.
    assert client.get(sim.url_for("crossref") + "/works/10.48550/arxiv.2103.04512").status_code == 404


def test_crossref_percent_encoded_doi_path(sim: SimulatorServer, client: httpx.Client) -> None:
    response = client.get(sim.url_for("crossref") + "/works/10.5555%2Fcir.2021.88")
    assert response.status_code == 200
    assert response.json()["message"]["relation"]["has-preprint"][0] == {
        "id-type": "arxiv",
        "id": "2103.04512",
        "asserted-by": "object",
    }


def test_crossref_bibliographic_search_ranks_the_cited_work_first(
    sim: SimulatorServer, client: httpx.Client
) -> None:
    params = {"query.bibliographic": "Okonkwo circadian hepatic lipid zebrafish 2019", "rows": "3"}
    response = client.get(sim.url_for("crossref") + "/works", params=params)
    message = response.json()["message"]
    assert response.json()["message-type"] == "work-list"
    assert message["items-per-page"] == 3
    assert message["query"] == {"start-index": 0, "search-terms": None}
    items = message["items"]
    assert items[0]["DOI"] == "10.5555/jcp.2019.0417"
    assert all(items[i]["score"] >= items[i + 1]["score"] for i in range(len(items) - 1))
    assert items[0]["score"] > 30  # Crossref-like magnitude
    assert items[0]["score"] > 2 * items[1]["score"]


def test_crossref_date_filters_and_select(sim: SimulatorServer, client: httpx.Client) -> None:
    params = {"filter": "from-pub-date:2019,until-pub-date:2020-12-31", "select": "DOI,title", "rows": "20"}
    message = client.get(sim.url_for("crossref") + "/works", params=params).json()["message"]
    dois = {item["DOI"] for item in message["items"]}
    assert dois == {"10.5555/jcp.2019.0417", "10.5555/lrh.2020.77", "10.5555/mat.2019.ret1"}
    assert all(set(item) == {"DOI", "title"} for item in message["items"])
    assert message["total-results"] == 3


def test_crossref_updates_filter_finds_the_retraction_notice(
    sim: SimulatorServer, client: httpx.Client
) -> None:
    params = {"filter": "updates:10.5555/mat.2018.311"}
    items = client.get(sim.url_for("crossref") + "/works", params=params).json()["message"]["items"]
    assert [item["DOI"] for item in items] == ["10.5555/mat.2019.ret1"]
    update = items[0]["update-to"][0]
    assert (update["DOI"], update["type"], update["label"]) == (
        "10.5555/mat.2018.311",
        "retraction",
        "Retraction",
    )
    work = client.get(sim.url_for("crossref") + "/works/10.5555/mat.2018.311").json()["message"]
    assert work["updated-by"][0]["DOI"] == "10.5555/mat.2019.ret1"


@pytest.mark.parametrize(
    ("params", "kind"),
    [
        ({"filter": "no-such-filter:1"}, "filter-not-available"),
        ({"rows": "lots"}, "integer-not-valid"),
        ({"query.title": "x"}, "parameter-not-allowed"),
    ],
)
def test_crossref_validation_failures(
    sim: SimulatorServer, client: httpx.Client, params: dict[str, str], kind: str
) -> None:
    response = client.get(sim.url_for("crossref") + "/works", params=params)
    assert response.status_code == 400
    payload = response.json()
    assert payload["status"] == "failed"
    assert payload["message-type"] == "validation-failure"
    assert payload["message"][0]["type"] == kind


# --- OpenAlex --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "identifier",
    [
        "doi:10.5555/lrh.2020.77",
        "https://doi.org/10.5555/lrh.2020.77",
        "10.5555/LRH.2020.77",
        "pmid:32000111",
    ],
)
def test_openalex_single_work_by_any_id(sim: SimulatorServer, client: httpx.Client, identifier: str) -> None:
    work = client.get(sim.url_for("openalex") + "/works/" + identifier).json()
    assert work["doi"] == "https://doi.org/10.5555/lrh.2020.77"
    assert work["ids"]["pmid"] == "https://pubmed.ncbi.nlm.nih.gov/32000111"
    assert work["authorships"][0]["author"]["display_name"] == "Influenza Burden Collaborators"
    assert work["publication_year"] == 2020
    again = client.get(sim.url_for("openalex") + "/works/" + work["id"].rsplit("/", 1)[-1]).json()
    assert again["id"] == work["id"]


def test_openalex_list_envelope_and_doi_filter(sim: SimulatorServer, client: httpx.Client) -> None:
    params = {
        "filter": "doi:10.5555/lrh.2020.77|https://doi.org/10.5555/mat.2018.311|10.5555/none",
        "per-page": "50",
    }
    payload = client.get(sim.url_for("openalex") + "/works", params=params).json()
    assert set(payload) == {"meta", "results", "group_by"}
    assert payload["meta"]["count"] == 2
    assert payload["meta"]["per_page"] == 50
    retracted = next(w for w in payload["results"] if w["doi"].endswith("mat.2018.311"))
    assert retracted["is_retracted"] is True


def test_openalex_title_search_needs_every_word(sim: SimulatorServer, client: httpx.Client) -> None:
    url = sim.url_for("openalex") + "/works"
    hits = client.get(url, params={"filter": "title.search:coral reef drone"}).json()["results"]
    assert [w["title"] for w in hits] == [
        "Measuring coral reef resilience using drone imagery"
    ]  # the override
    assert "relevance_score" in hits[0]
    none = client.get(url, params={"filter": "title.search:coral reef satellite"}).json()
    assert none["meta"]["count"] == 0 and none["results"] == []


def test_openalex_errors(sim: SimulatorServer, client: httpx.Client) -> None:
    missing = client.get(sim.url_for("openalex") + "/works/doi:10.5555/none")
    assert missing.status_code == 404
    assert missing.json()["error"] == "404 Not Found"
    bad = client.get(sim.url_for("openalex") + "/works", params={"filter": "colour:blue"})
    assert bad.status_code == 400
    assert "colour is not a valid field" in bad.json()["message"]


def test_openalex_arxiv_only_work_gets_arxivs_datacite_doi() -> None:
    built = universe_from_records(
        [{"title": "Only On arXiv", "arxiv_id": "2201.00007", "sources": ["openalex"]}]
    )
    with SimulatorServer(built, SimulatorConfig.unlimited()) as server, httpx.Client() as http:
        results = http.get(server.url_for("openalex") + "/works", params={"search": "arxiv only"}).json()[
            "results"
        ]
    assert results[0]["doi"] == "https://doi.org/10.48550/arxiv.2201.00007"
    assert results[0]["primary_location"]["landing_page_url"] == "http://arxiv.org/abs/2201.00007"


# --- Semantic Scholar ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "identifier",
    ["DOI:10.5555/jcp.2019.0417", "10.5555/jcp.2019.0417", "PMID:31234567", "PMCID:6543210"],
)
def test_s2_paper_by_id(sim: SimulatorServer, client: httpx.Client, identifier: str) -> None:
    params = {"fields": "title,year,externalIds,authors"}
    paper = client.get(
        sim.url_for("semantic_scholar") + "/graph/v1/paper/" + identifier, params=params
    ).json()
    assert list(paper) == ["paperId", "title", "year", "externalIds", "authors"]
    assert paper["externalIds"]["DOI"] == "10.5555/jcp.2019.0417"
    assert paper["externalIds"]["PubMed"] == "31234567"
    assert paper["authors"][1]["name"] == "Lars Erik Pettersson"
    by_corpus = client.get(
        sim.url_for("semantic_scholar") + f"/graph/v1/paper/CorpusId:{paper['externalIds']['CorpusId']}"
    ).json()
    assert by_corpus == {"paperId": paper["paperId"], "title": paper["title"]}  # default fields


def test_s2_override_and_s2_only_work(sim: SimulatorServer, client: httpx.Client) -> None:
    base = sim.url_for("semantic_scholar") + "/graph/v1/paper/"
    coral = client.get(base + "DOI:10.5555/mar.2017.12", params={"fields": "year"}).json()
    assert coral["year"] == 2016
    match = client.get(
        base + "search/match", params={"query": "survey of citation hallucination in language models"}
    )
    assert match.status_code == 200
    hit = match.json()["data"][0]
    assert hit["title"] == "A Survey of Citation Hallucination in Language Models"
    assert hit["matchScore"] > 0


def test_s2_not_found_shapes(sim: SimulatorServer, client: httpx.Client) -> None:
    base = sim.url_for("semantic_scholar") + "/graph/v1/paper/"
    missing = client.get(base + "DOI:10.5555/none")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Paper with id DOI:10.5555/none not found"}
    no_match = client.get(
        base + "search/match", params={"query": "an entirely different paper about volcanoes"}
    )
    assert no_match.status_code == 404
    assert no_match.json() == {"error": "Title match not found"}
    bad_field = client.get(base + "DOI:10.5555/jcp.2019.0417", params={"fields": "title,colour"})
    assert bad_field.status_code == 400
    assert bad_field.json() == {"error": "Unrecognized or unsupported fields: [colour]"}


def test_s2_batch_keeps_order_with_null_for_unknown(sim: SimulatorServer, client: httpx.Client) -> None:
    ids = ["ARXIV:2103.04512", "DOI:10.5555/none", "PMID:32000111"]
    response = client.post(
        sim.url_for("semantic_scholar") + "/graph/v1/paper/batch",
        params={"fields": "title"},
        json={"ids": ids},
    )
    papers = response.json()
    assert len(papers) == 3
    assert papers[1] is None
    assert papers[0]["title"] == "Sparse Attention Kernels for Long Document Retrieval"
    assert papers[2]["title"] == "Global Burden of Seasonal Influenza: A Modelling Study"


def test_s2_search_shapes(sim: SimulatorServer, client: httpx.Client) -> None:
    url = sim.url_for("semantic_scholar") + "/graph/v1/paper/search"
    found = client.get(url, params={"query": "graph sketches streaming connectivity", "limit": "1"}).json()
    assert found["total"] >= 1 and found["offset"] == 0
    assert found["data"][0]["title"] == "Graph Sketches: Streaming Algorithms for Connectivity"
    empty = client.get(url, params={"query": "zzzz qqqq"}).json()
    assert empty == {"total": 0, "offset": 0}  # no "data" key, as S2 answers


# --- arXiv -----------------------------------------------------------------------------------------


def _feed(text: str) -> ET.Element:
    return _xml(text)


def _xml(text: str | bytes) -> ET.Element:
    return parse_untrusted_xml(text, source="test", allow_doctype=True)


def test_arxiv_id_list_serves_the_latest_version(sim: SimulatorServer, client: httpx.Client) -> None:
    response = client.get(sim.url_for("arxiv_api") + "/api/query", params={"id_list": "2103.04512"})
    assert response.status_code == 200
    assert response.text.startswith("<?xml version='1.0' encoding='UTF-8'?>\n<feed")
    feed = _feed(response.text)
    entry = feed.find(f"{ATOM}entry")
    assert entry is not None
    assert entry.findtext(f"{ATOM}id") == "http://arxiv.org/abs/2103.04512v2"
    assert entry.findtext(f"{ATOM}published", "").startswith("2021-03-")  # v1, in the id's month
    assert entry.findtext(f"{ATOM}updated", "").startswith("2021-06-")  # v2
    assert entry.findtext(f"{ARXIV}doi") == "10.5555/cir.2021.88"
    assert (
        entry.findtext(f"{ARXIV}journal_ref")
        == "Proceedings of the Conference on Information Retrieval (2021)"
    )
    assert [a.findtext(f"{ATOM}name") for a in entry.findall(f"{ATOM}author")] == [
        "Wei Zhang",
        "Amara Diallo",
    ]
    assert [c.get("term") for c in entry.findall(f"{ATOM}category")] == ["cs.IR", "cs.CL"]
    assert feed.findtext(f"{OPENSEARCH}totalResults") == "1"
    v1 = _feed(client.get(sim.url_for("arxiv_api") + "/api/query", params={"id_list": "2103.04512v1"}).text)
    assert v1.findtext(f"{ATOM}entry/{ATOM}id") == "http://arxiv.org/abs/2103.04512v1"


def test_arxiv_old_style_id(sim: SimulatorServer, client: httpx.Client) -> None:
    feed = _feed(
        client.get(sim.url_for("arxiv_api") + "/api/query", params={"id_list": "hep-th/9901001"}).text
    )
    assert feed.findtext(f"{ATOM}entry/{ATOM}id") == "http://arxiv.org/abs/hep-th/9901001v1"


def test_arxiv_unknown_and_malformed_ids(sim: SimulatorServer, client: httpx.Client) -> None:
    unknown = client.get(sim.url_for("arxiv_api") + "/api/query", params={"id_list": "0000.0000"})
    assert unknown.status_code == 200
    feed = _feed(unknown.text)
    assert feed.findtext(f"{OPENSEARCH}totalResults") == "0"
    assert feed.find(f"{ATOM}entry") is None
    malformed = client.get(sim.url_for("arxiv_api") + "/api/query", params={"id_list": "abc"})
    assert malformed.status_code == 400
    error = _feed(malformed.text).find(f"{ATOM}entry")
    assert error is not None
    assert error.findtext(f"{ATOM}id") == "https://arxiv.org/api/errors#incorrect_id_format_for_abc"
    assert error.findtext(f"{ATOM}title") == "Error"
    assert error.findtext(f"{ATOM}summary") == "incorrect id format for abc"


def test_arxiv_search_query(sim: SimulatorServer, client: httpx.Client) -> None:
    url = sim.url_for("arxiv_api") + "/api/query"
    phrase = _feed(client.get(url, params={"search_query": 'ti:"sparse attention kernels"'}).text)
    assert [e.findtext(f"{ATOM}id") for e in phrase.findall(f"{ATOM}entry")] == [
        "http://arxiv.org/abs/2103.04512v2"
    ]
    wrong_order = _feed(client.get(url, params={"search_query": 'ti:"kernels sparse attention"'}).text)
    assert wrong_order.findtext(f"{OPENSEARCH}totalResults") == "0"
    fields = _feed(client.get(url, params={"search_query": "au:petrov AND ti:boundary"}).text)
    assert fields.findtext(f"{ATOM}entry/{ATOM}id") == "http://arxiv.org/abs/hep-th/9901001v1"
    excluded = _feed(client.get(url, params={"search_query": "au:zhang ANDNOT ti:sparse"}).text)
    assert excluded.findtext(f"{OPENSEARCH}totalResults") == "0"


def test_arxiv_site_abs_html_pdf(sim: SimulatorServer, client: httpx.Client) -> None:
    site = sim.url_for("arxiv")
    abs_page = client.get(site + "/abs/2103.04512")
    assert abs_page.status_code == 200
    assert (
        '<meta name="citation_title" content="Sparse Attention Kernels for Long Document Retrieval" />'
        in abs_page.text
    )
    html = client.get(site + "/html/2103.04512v1")
    assert html.status_code == 200 and 'class="ltx_document' in html.text
    pdf = client.get(site + "/pdf/2103.04512")
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-1.4") and pdf.content.rstrip().endswith(b"%%EOF")
    assert b"Sparse Attention Kernels" in pdf.content
    assert client.get(site + "/pdf/2103.04512v9").status_code == 404
    assert client.get(site + "/abs/2999.99999").status_code == 404


def test_arxiv_pdf_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.7 stored bytes")
    records = [{"title": "Stored", "arxiv_id": "2202.00002", "year": 2022, "fulltext_pdf_path": "paper.pdf"}]
    built = universe_from_records(records, tmp_path / "u.jsonl")
    with SimulatorServer(built, SimulatorConfig.unlimited()) as server, httpx.Client() as http:
        assert http.get(server.url_for("arxiv") + "/pdf/2202.00002").content == b"%PDF-1.7 stored bytes"


# --- PubMed ----------------------------------------------------------------------------------------


def _eutils(sim: SimulatorServer, name: str) -> str:
    return sim.url_for("pubmed") + f"/entrez/eutils/{name}.fcgi"


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ('"circadian regulation of hepatic lipid"[ti]', ["31234567"]),
        ("Okonkwo M[au]", ["31234567"]),
        ("Pettersson LE[au] AND 2019[dp]", ["31234567"]),
        ("Pettersson LX[au]", []),
        ("10.5555/lrh.2020.77[doi]", ["32000111"]),
        ("influenza OR graphene", ["32000111", "29876543"]),
        ("retracted publication[pt]", ["29876543"]),
        ("2018:2019[dp] NOT graphene", ["31234567"]),
    ],
)
def test_pubmed_esearch_json(
    sim: SimulatorServer, client: httpx.Client, term: str, expected: list[str]
) -> None:
    payload = client.get(
        _eutils(sim, "esearch"), params={"db": "pubmed", "term": term, "retmode": "json"}
    ).json()
    result = payload["esearchresult"]
    assert payload["header"]["type"] == "esearch"
    assert result["idlist"] == expected
    assert result["count"] == str(len(expected))
    if not expected:
        assert result["warninglist"]["outputmessages"] == ["No items found."]


def test_pubmed_esearch_xml(sim: SimulatorServer, client: httpx.Client) -> None:
    text = client.get(_eutils(sim, "esearch"), params={"db": "pubmed", "term": "zebrafish"}).text
    root = _xml(text)
    assert root.tag == "eSearchResult"
    assert [e.text for e in root.findall("IdList/Id")] == ["31234567"]
    assert root.findtext("Count") == "1"


def test_pubmed_esummary_json_with_an_unknown_uid(sim: SimulatorServer, client: httpx.Client) -> None:
    params = {"db": "pubmed", "id": "29876543,99999999", "retmode": "json"}
    result = client.get(_eutils(sim, "esummary"), params=params).json()["result"]
    assert result["uids"] == ["29876543", "99999999"]
    assert result["99999999"] == {"uid": "99999999", "error": "cannot get document summary"}
    doc = result["29876543"]
    assert doc["title"] == "Rapid Synthesis of Graphene Aerogels at Ambient Pressure."
    assert [a["name"] for a in doc["authors"]] == ["Liu C", "Adeyemi O"]
    assert "Retracted Publication" in doc["pubtype"]
    assert doc["references"][0]["reftype"] == "Retraction in"
    assert {"idtype": "doi", "idtypen": 3, "value": "10.5555/mat.2018.311"} in doc["articleids"]


def test_pubmed_efetch_xml(sim: SimulatorServer, client: httpx.Client) -> None:
    response = client.post(
        _eutils(sim, "efetch"), data={"db": "pubmed", "id": "31234567,1", "retmode": "xml"}
    )
    assert "<!DOCTYPE PubmedArticleSet" in response.text
    root = _xml(response.text)
    assert root.tag == "PubmedArticleSet"
    articles = root.findall("PubmedArticle")
    assert len(articles) == 1
    article = articles[0]
    assert article.findtext("MedlineCitation/PMID") == "31234567"
    assert article.findtext("MedlineCitation/Article/ArticleTitle") == (
        "Circadian Regulation of Hepatic Lipid Metabolism in Zebrafish."
    )
    forenames = [e.text for e in article.findall("MedlineCitation/Article/AuthorList/Author/ForeName")]
    assert forenames == ["Maria", "Lars Erik"]
    assert article.findtext("MedlineCitation/Article/AuthorList/Author[2]/Initials") == "LE"
    ids = {e.get("IdType"): e.text for e in article.findall("PubmedData/ArticleIdList/ArticleId")}
    assert ids == {"pubmed": "31234567", "pmc": "PMC6543210", "doi": "10.5555/jcp.2019.0417"}
    empty = client.get(_eutils(sim, "efetch"), params={"db": "pubmed", "id": ""})
    assert empty.status_code == 400 and "<eFetchResult>" in empty.text


# --- routing, control endpoints, settings ---------------------------------------------------------


def test_env_for_points_every_setting_at_the_simulator(
    sim: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env_for(sim.base_url).items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.crossref_url == sim.base_url + "/crossref"
    assert settings.openalex_url == sim.base_url + "/openalex"
    assert settings.semantic_scholar_url == sim.base_url + "/s2"
    assert settings.arxiv_api_url == sim.base_url + "/arxiv-api"
    assert settings.arxiv_url == sim.base_url + "/arxiv"
    assert settings.pubmed_url == sim.base_url + "/pubmed"
    # Every source's base URL setting, the ones added later included: a source the simulator does
    # not cover would send tests and demos to the real host.
    source_urls = {
        name: getattr(settings, name)
        for name in Settings.model_fields
        if name.endswith("_url") and name not in {"database_url", "broker_url", "redis_url"}
    }
    assert source_urls, "no source URL settings found"
    not_simulated = {name: url for name, url in source_urls.items() if not url.startswith(sim.base_url)}
    assert not not_simulated, f"source URL settings the simulator does not serve: {not_simulated}"


def test_unknown_route_and_source_name(sim: SimulatorServer, client: httpx.Client) -> None:
    assert client.get(sim.base_url + "/scopus/search").status_code == 404
    with pytest.raises(ValueError, match="no source"):
        sim.url_for("scopus")


def test_control_endpoints_change_limits_at_run_time(universe: Universe) -> None:
    with SimulatorServer(universe, SimulatorConfig.unlimited()) as server, httpx.Client() as http:
        work = server.url_for("crossref") + "/works/10.5555/jcp.2019.0417"
        assert http.get(work).status_code == 200
        patch = {"sources": {"crossref": {"rate": 0.001, "burst": 1}}}
        assert (
            http.post(server.base_url + "/_sim/config", json=patch).json()["sources"]["crossref"]["rate"]
            == 0.001
        )
        assert [http.get(work).status_code for _ in range(2)] == [200, 429]
        stats = http.get(server.base_url + "/_sim/stats").json()
        crossref = stats["sources"]["crossref"]
        assert crossref["requests"] == 3
        assert crossref["by_status"] == {"200": 2, "429": 1}
        assert crossref["rate_limited"] == 1
        assert crossref["ids_requested"] == {"10.5555/jcp.2019.0417": 3}
        assert (
            http.post(
                server.base_url + "/_sim/config", json={"sources": {"crossref": {"rate": -1}}}
            ).status_code
            == 400
        )
        assert http.post(server.base_url + "/_sim/reset").json() == {"status": "ok"}
        assert server.stats()["sources"]["crossref"]["requests"] == 0


# --- rate limits and concurrency ----------------------------------------------------------------------


def test_exceeding_a_tight_limit_is_429_with_retry_after(universe: Universe) -> None:
    config = SimulatorConfig.unlimited().with_source("semantic_scholar", rate=0.01, burst=2)
    with SimulatorServer(universe, config) as server, httpx.Client() as http:
        url = server.url_for("semantic_scholar") + "/graph/v1/paper/PMID:31234567"
        statuses = [http.get(url) for _ in range(3)]
        assert [r.status_code for r in statuses] == [200, 200, 429]
        assert int(statuses[2].headers["retry-after"]) >= 1
        assert statuses[2].json()["code"] == "429"
        assert server.source_stats("semantic_scholar")["rate_limited"] == 1


def test_crossref_search_has_its_own_bucket(universe: Universe) -> None:
    config = SimulatorConfig.unlimited().with_source(
        "crossref", rate=100, burst=100, search_rate=0.01, search_burst=1
    )
    with SimulatorServer(universe, config) as server, httpx.Client() as http:
        search = server.url_for("crossref") + "/works?query.bibliographic=zebrafish"
        single = server.url_for("crossref") + "/works/10.5555/jcp.2019.0417"
        assert [http.get(search).status_code, http.get(search).status_code] == [200, 429]
        assert http.get(single).status_code == 200
        assert http.get(single).headers["x-rate-limit-limit"] == "100"


async def test_concurrency_beyond_the_cap_is_429(universe: Universe) -> None:
    config = SimulatorConfig.unlimited().with_source("crossref", concurrency=1, latency_ms=150)
    with SimulatorServer(universe, config) as server:
        async with httpx.AsyncClient() as http:
            url = server.url_for("crossref") + "/works/10.5555/jcp.2019.0417"
            responses = await asyncio.gather(*(http.get(url) for _ in range(3)))
        codes = sorted(r.status_code for r in responses)
        assert codes[0] == 200 and 429 in codes
        stats = server.source_stats("crossref")
        assert stats["concurrency_limited"] == codes.count(429)
        assert stats["max_in_flight"] >= 2


def test_token_bucket_refills_with_the_clock() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=2, clock=lambda: now[0])
    assert [bucket.try_take(), bucket.try_take()] == [0.0, 0.0]
    assert bucket.try_take() == pytest.approx(0.5)
    now[0] = 0.5
    assert bucket.try_take() == 0.0
    assert retry_after_header(0.2) == "1" and retry_after_header(2.5) == "3"


# --- faults ----------------------------------------------------------------------------------------


def _request(path: str) -> Request:
    return Request.build("GET", path, {})


async def _run_faults(universe: Universe, seed: int, n: int = 200) -> list[tuple[str, int]]:
    config = SimulatorConfig.unlimited(seed=seed).with_source(
        "openalex", faults={"error_500": 0.1, "error_503": 0.1, "malformed": 0.1, "hang": 0.05, "reset": 0.05}
    )
    app = SimulatorApp(universe, config)
    outcomes: list[tuple[str, int]] = []
    for _ in range(n):
        response = await app.handle(_request("/openalex/works/doi:10.5555/lrh.2020.77"))
        if response.action != "respond":
            outcomes.append((response.action, 0))
        elif response.status == 200:
            try:
                json.loads(response.body)
                outcomes.append(("ok", 200))
            except json.JSONDecodeError:
                outcomes.append(("malformed", 200))
        else:
            outcomes.append(("error", response.status))
    stats = app.stats.source("openalex")
    assert stats["requests"] == n
    assert stats["faults_injected"] == sum(1 for kind, _ in outcomes if kind != "ok")
    return outcomes


async def test_fault_rates_are_roughly_as_configured_and_seeded(universe: Universe) -> None:
    outcomes = await _run_faults(universe, seed=7)
    counts = Counter(outcomes)
    # 200 draws at p=0.1: mean 20, sd ~4.2; at p=0.05: mean 10, sd ~3.1.
    for key, (low, high) in {
        ("error", 500): (8, 34),
        ("error", 503): (8, 34),
        ("malformed", 200): (8, 34),
        ("hang", 0): (2, 20),
        ("reset", 0): (2, 20),
    }.items():
        assert low <= counts[key] <= high, (key, counts)
    assert await _run_faults(universe, seed=7) == outcomes
    assert await _run_faults(universe, seed=8) != outcomes


async def test_per_kind_fault_rates(universe: Universe) -> None:
    config = SimulatorConfig.unlimited().with_source(
        "crossref", faults_by_kind={"search": {"error_503": 1.0}}
    )
    app = SimulatorApp(universe, config)
    single = await app.handle(_request("/crossref/works/10.5555/jcp.2019.0417"))
    search = await app.handle(_request("/crossref/works?query.bibliographic=zebrafish"))
    assert (single.status, search.status) == (200, 503)


def test_transport_faults_reach_the_client(universe: Universe) -> None:
    base = SimulatorConfig.unlimited()
    url_path = "/graph/v1/paper/PMID:31234567"
    with SimulatorServer(universe, base) as server, httpx.Client(timeout=0.1) as http:
        url = server.url_for("semantic_scholar") + url_path
        server.configure({"sources": {"semantic_scholar": {"faults": {"reset": 1.0}}}})
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            http.get(url)
        server.configure(
            {"sources": {"semantic_scholar": {"faults": {"reset": 0.0, "hang": 1.0}, "hang_seconds": 0.2}}}
        )
        with pytest.raises(httpx.ReadTimeout):
            http.get(url)
        server.configure({"sources": {"semantic_scholar": {"faults": {"hang": 0.0, "malformed": 1.0}}}})
        malformed = http.get(url)
        assert malformed.status_code == 200
        with pytest.raises(json.JSONDecodeError):
            malformed.json()
        server.configure({"sources": {"semantic_scholar": {"faults": {"malformed": 0.0, "error_500": 1.0}}}})
        assert http.get(url).status_code == 500
        faults = server.source_stats("semantic_scholar")["faults"]
        assert faults == {"error_500": 1, "hang": 1, "malformed": 1, "reset": 1}


# --- under load ------------------------------------------------------------------------------------


async def test_many_concurrent_requests_all_answered(universe: Universe) -> None:
    with SimulatorServer(universe, SimulatorConfig.unlimited()) as server:
        limits = httpx.Limits(max_connections=20)
        async with httpx.AsyncClient(limits=limits, timeout=10) as http:
            urls = [
                server.url_for("crossref") + "/works/10.5555/jcp.2019.0417",
                server.url_for("openalex") + "/works?filter=title.search:graphene",
                server.url_for("pubmed") + "/entrez/eutils/esummary.fcgi?db=pubmed&id=32000111&retmode=json",
                server.url_for("arxiv_api") + "/api/query?id_list=2103.04512",
            ]
            responses = await asyncio.gather(*(http.get(urls[i % len(urls)]) for i in range(200)))
        assert {r.status_code for r in responses} == {200}
        assert server.stats()["totals"]["requests"] == 200


# --- search internals ------------------------------------------------------------------------------


def test_pubmed_tag_applies_to_the_run_of_words_before_it() -> None:
    node = parse_query("deep learning[ti] AND smith j[au]", "pubmed")
    assert node == BoolOp("AND", Clause("ti", "deep learning"), Clause("au", "smith j"))


def test_arxiv_prefixes_phrases_and_andnot() -> None:
    node = parse_query('ti:"graph sketches" ANDNOT au:del_maestro', "arxiv")
    assert node == BoolOp("NOT", Clause("ti", "graph sketches", phrase=True), Clause("au", "del maestro"))


def test_tokenize_folds_accents_stems_plurals_and_drops_stop_words() -> None:
    assert tokenize("The Networks of Schrödinger's Cats") == ["network", "schrodinger", "cat"]


@given(st.text())
def test_tokenize_is_idempotent(text: str) -> None:
    tokens = tokenize(text)
    assert tokenize(" ".join(tokens)) == tokens
