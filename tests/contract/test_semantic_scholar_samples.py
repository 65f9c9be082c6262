"""Every recorded Semantic Scholar response in ../shared parses, or is recognised as not a paper.

Sources: the semanticscholar library's vcrpy cassettes and JSON fixtures, and refchecker's cache of
real API answers. A file or an endpoint this test does not know fails it, so a new recording is
never silently left unparsed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.records import WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared

# Endpoints whose answers hold no paper records (author, dataset and snippet APIs).
NOT_PAPER_ENDPOINTS = (
    re.compile(r"^/graph/v1/author(/|$)"),
    re.compile(r"^/graph/v1/paper/.+/authors$"),
    re.compile(r"^/datasets/v1/"),
    re.compile(r"^/graph/v1/snippet/search$"),
)
NOT_PAPER_FILES = {
    "Dataset.json": "dataset description",
    "DatasetDiff.json": "dataset diff listing",
    "Release.json": "dataset release listing",
    "debug_output.txt": "the library's debug log, not a response",
}


def s2_dir(shared_data: Path) -> Path:
    return shared_data / "api-samples" / "semantic-scholar"


def interactions(cassette: Path) -> Iterator[tuple[str, int, Any]]:
    """(URL path, status, decoded JSON body) of each recorded interaction, in either vcr format."""
    for interaction in yaml.safe_load(cassette.read_text(encoding="utf-8"))["interactions"]:
        response = interaction["response"]
        if "body" in response:
            text, status = response["body"]["string"], int(response["status"]["code"])
        else:
            text, status = response["content"], int(response["status_code"])
        yield urlsplit(interaction["request"]["uri"]).path, status, json.loads(text)


def papers_in_response(path: str, body: Any) -> list[Any] | None:
    """The paper objects an endpoint's answer holds; None for an endpoint that holds none."""
    if any(pattern.search(path) for pattern in NOT_PAPER_ENDPOINTS):
        return None
    if path == "/graph/v1/paper/batch":
        assert isinstance(body, list)
        return [paper for paper in body if paper is not None]
    if path.startswith("/graph/v1/paper/search"):  # search, search/bulk, search/match
        return list(body.get("data", []))
    if path.endswith("/citations"):
        return [item["citingPaper"] for item in body["data"]]
    if path.endswith("/references"):
        return [item["citedPaper"] for item in body["data"]]
    if path.startswith("/graph/v1/paper/"):
        return [body]
    if path.startswith("/recommendations/v1/papers"):
        return list(body["recommendedPapers"])
    pytest.fail(f"unrecognised Semantic Scholar endpoint {path}")


def check_paper(payload: dict[str, Any]) -> None:
    record = parse_s2_paper(payload)
    assert_precision_fields_well_typed(record)
    # The open-access PDF is kept for the full-text chain; S2's empty `url` ("") is no link.
    pdf = ((payload.get("openAccessPdf") or {}).get("url") or "").strip()
    assert record.urls.get("oa_pdf") == (pdf or None)
    venue = payload.get("publicationVenue") or {}
    for alias in venue.get("alternate_names") or []:
        if (
            normalize_whitespace(alias)
            and normalize_whitespace(alias).casefold() != (record.venue or "").casefold()
        ):
            assert normalize_whitespace(alias) in record.venue_aliases, (alias, record.venue_aliases)
    if venue.get("issn"):
        assert venue["issn"].upper() in record.issn
    if payload.get("paperId") is not None:  # null for papers outside the S2 corpus
        assert record.source_id is not None and re.fullmatch(r"[0-9a-f]{40}", record.source_id)
    title = payload.get("title")
    if isinstance(title, str) and title.strip():
        assert record.title == normalize_whitespace(title)
    if payload.get("year") is not None:
        assert record.year is not None and 1600 <= record.year <= 2030
    names = [a.get("name") for a in payload.get("authors") or [] if a.get("name")]
    assert len(record.authors) == len(names) - (1 if record.authors_truncated else 0)
    for author in record.authors:
        assert author.family or author.literal, payload.get("authors")
    external = payload.get("externalIds") or {}
    if external.get("DOI"):
        assert record.doi is not None and record.doi.startswith("10.")
        assert record.doi == record.doi.lower()
    if external.get("ArXiv"):
        assert record.arxiv_id is not None and clean_arxiv_id(record.arxiv_id) is not None
    if external.get("PubMed"):
        assert record.pmid == str(int(external["PubMed"]))
    assert record.dblp_key == (external.get("DBLP") or None)
    # S2 merges a preprint with its published version: a paper it places at a venue is a
    # published record, arXiv id or not.
    assert not record.is_preprint
    if record.published_venue is not None:
        assert record.published_venue in {
            venue.get("name"),
            (payload.get("journal") or {}).get("name"),
            payload.get("venue"),
        }


def test_every_cassette(shared_data: Path) -> None:
    cassettes = sorted((s2_dir(shared_data) / "semanticscholar-tests" / "data").glob("*.yaml"))
    assert len(cassettes) > 40
    parsed = 0
    for cassette in cassettes:
        for path, status, body in interactions(cassette):
            if status != 200:
                # Errors (400 bad fields, 403, 404 not found) carry a message, never a paper.
                assert set(body) & {"error", "message"}, (cassette.name, body)
                continue
            papers = papers_in_response(path, body)
            for paper in papers or []:
                check_paper(paper)
                parsed += 1
    assert parsed > 1000


def test_json_fixtures(shared_data: Path) -> None:
    data = s2_dir(shared_data) / "semanticscholar-tests" / "data"
    for path in sorted(p for p in data.iterdir() if p.suffix != ".yaml"):
        if path.name in NOT_PAPER_FILES:
            continue
        body = json.loads(path.read_text(encoding="utf-8"))
        if path.name in {"Paper.json", "PaperWithNullValues.json"}:
            papers = [body]
        elif path.name == "Citation.json":
            papers = [body["citingPaper"]]
        elif path.name == "Reference.json":
            papers = [body["citedPaper"]]
        elif path.name == "Author.json":
            papers = body["papers"]  # an author object embeds full paper records
        else:
            pytest.fail(f"unrecognised fixture {path.name}")
        for paper in papers:
            check_paper(paper)

    turing = parse_s2_paper(json.loads((data / "Paper.json").read_text(encoding="utf-8")))
    assert turing.title == "Computing Machinery and Intelligence"
    assert turing.doi == "10.1093/mind/lix.236.433"
    assert turing.year == 1950
    assert [a.family for a in turing.authors] == ["Turing"]
    assert turing.work_type == "journal-article"
    assert turing.urls["dblp"] == "https://dblp.org/rec/journals/x/Turing50"


def test_refchecker_cache(shared_data: Path) -> None:
    files = sorted((s2_dir(shared_data) / "refchecker-cache").glob("*.json"))
    assert files
    scored = 0
    for path in files:
        body = json.loads(path.read_text(encoding="utf-8"))
        for paper in body if isinstance(body, list) else [body]:
            check_paper(paper)
            if "matchScore" in paper:
                scored += 1
                assert parse_s2_paper(paper).score == pytest.approx(paper["matchScore"])
    assert scored > 0


def test_open_access_pdfs_are_kept(shared_data: Path) -> None:
    """The recorded answers name open-access copies on publishers' and repositories' hosts (MDPI,
    Frontiers, Wiley, journal systems) and, despite the field's name, pages too (a doi.org link, a
    PMC article page: the full-text chain sniffs what a link answers). Each is the record's
    `oa_pdf` (`check_paper` checks every paper; this checks that the samples hold enough of them
    to mean something)."""
    data = s2_dir(shared_data)
    payloads: list[Any] = []
    for path in sorted((data / "refchecker-cache").glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        payloads.extend(body if isinstance(body, list) else [body])
    for cassette in sorted((data / "semanticscholar-tests" / "data").glob("*.yaml")):
        for path, status, body in interactions(cassette):
            if status == 200:
                payloads.extend(papers_in_response(path, body) or [])
    kept = [url for paper in payloads if (url := parse_s2_paper(paper).urls.get("oa_pdf"))]
    assert len(kept) >= 100
    assert all(url.startswith(("http://", "https://")) for url in kept)
    assert sum("arxiv.org" not in url for url in kept) >= 50
    assert any(url.startswith("https://doi.org/") for url in kept)


def test_refchecker_cache_precision_fields(shared_data: Path) -> None:
    """The real answers carry alternate names, ISSNs, DBLP keys and published venues: they are read."""
    records: list[WorkRecord] = []
    for path in sorted((s2_dir(shared_data) / "refchecker-cache").glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        records.extend(parse_s2_paper(paper) for paper in (body if isinstance(body, list) else [body]))
    assert sum(1 for r in records if r.venue_aliases) >= 10
    assert sum(1 for r in records if r.issn) >= 5
    assert sum(1 for r in records if r.dblp_key) >= 10
    assert any(r.dblp_key and r.dblp_key.startswith("conf/") for r in records)
    # Papers S2 knows by an arXiv id and places at a venue: published, with that venue.
    published_with_arxiv = [r for r in records if r.arxiv_id and r.published_venue]
    assert published_with_arxiv
    assert all(not r.is_preprint and r.venue for r in published_with_arxiv)
