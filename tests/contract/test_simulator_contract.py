"""The simulator's responses have the shapes of the real, recorded ones in ../shared/data/api-samples.

Each test collects the structure of the recorded responses (keys, element paths, value types) and
checks that everything the simulator sends appears there too, so a parser that reads the samples
reads the simulator. Skipped when ../shared is absent.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from aletheia.sources.safe_xml import parse_untrusted_xml
from aletheia.sources.simulator import SimulatorServer, Universe

pytestmark = pytest.mark.shared

ATOM = "{http://www.w3.org/2005/Atom}"


def _xml(text: str | bytes) -> ET.Element:
    return parse_untrusted_xml(text, source="test", allow_doctype=True)


@pytest.fixture(scope="module")
def samples(shared_data: Path) -> Path:
    return shared_data / "api-samples"


# --- Crossref --------------------------------------------------------------------------------------


def _crossref_recordings(samples: Path) -> list[dict[str, Any]]:
    recordings = []
    for path in sorted((samples / "crossref" / "habanero-sessions").glob("*.json")):
        recordings.extend(json.loads(path.read_text(encoding="utf-8")))
    return recordings


def test_crossref_work_keys_are_real_keys(
    samples: Path, sim: SimulatorServer, client: httpx.Client, universe: Universe
) -> None:
    work_keys: set[str] = set()
    author_keys: set[str] = set()
    envelopes: dict[str, set[str]] = {}
    for recording in _crossref_recordings(samples):
        payload = recording.get("json")
        if not isinstance(payload, dict) or payload.get("message-type") not in ("work", "work-list"):
            continue
        envelopes[payload["message-type"]] = set(payload)
        message = payload["message"]
        items = [message] if payload["message-type"] == "work" else message["items"]
        if payload["message-type"] == "work-list":
            envelopes["work-list-message"] = set(message)
        for item in items:
            work_keys |= set(item)
            for author in item.get("author", []):
                author_keys |= set(author)
    assert work_keys, "no recorded Crossref works found"

    for work in universe.catalog("crossref").works:
        payload = client.get(f"{sim.url_for('crossref')}/works/{work.doi}").json()
        assert set(payload) == envelopes["work"]
        message = payload["message"]
        assert set(message) <= work_keys, set(message) - work_keys
        for author in message.get("author", []):
            assert set(author) <= author_keys
        for name in ("issued", "published", "created", "deposited", "indexed"):
            assert isinstance(message[name]["date-parts"][0], list)
    listing = client.get(f"{sim.url_for('crossref')}/works", params={"query": "graph"}).json()
    assert set(listing) == envelopes["work-list"]
    assert set(listing["message"]) == envelopes["work-list-message"]


def test_crossref_404_is_the_recorded_one(samples: Path, sim: SimulatorServer, client: httpx.Client) -> None:
    recorded = next(
        r
        for r in _crossref_recordings(samples)
        if r["status"]["code"] == 404
        and re.fullmatch(r"https://api\.crossref\.org/works/10\.[^/]+/[^/]+", r["uri"])
    )
    response = client.get(f"{sim.url_for('crossref')}/works/10.5555/notarealdoi")
    assert response.status_code == 404
    assert response.text == recorded["text"]
    assert response.headers["content-type"].split(";")[0] == recorded["content_type"][0]


def test_crossref_validation_failure_is_the_recorded_shape(
    samples: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    recorded = next(
        r["json"]
        for r in _crossref_recordings(samples)
        if r["status"]["code"] == 400 and isinstance(r.get("json"), dict)
    )
    payload = client.get(f"{sim.url_for('crossref')}/works", params={"rows": "things"}).json()
    assert set(payload) == set(recorded)
    assert set(payload["message"][0]) == set(recorded["message"][0])


# --- OpenAlex --------------------------------------------------------------------------------------


def test_openalex_works_have_every_recorded_field(
    samples: Path, sim: SimulatorServer, client: httpx.Client, universe: Universe
) -> None:
    recorded: list[dict[str, Any]] = []
    for path in sorted((samples / "openalex" / "refchecker-cache").glob("*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        recorded.extend(payload if isinstance(payload, list) else [payload])
    assert recorded
    top = set().union(*(set(w) for w in recorded))
    authorship = set().union(*(set(a) for w in recorded for a in w["authorships"]))
    location = set().union(*(set(loc) for w in recorded for loc in w["locations"]))
    open_access = set().union(*(set(w["open_access"]) for w in recorded))
    id_kinds = set().union(*(set(w["ids"]) for w in recorded)) | {"pmcid"}

    for work in universe.catalog("openalex").works:
        simulated = client.get(f"{sim.url_for('openalex')}/works/doi:{work.doi}").json()
        assert top <= set(simulated), top - set(simulated)
        assert set(simulated["ids"]) <= id_kinds
        assert set(simulated["open_access"]) == open_access
        for entry in simulated["authorships"]:
            assert set(entry) == authorship
        for entry in simulated["locations"]:
            assert set(entry) == location
        assert simulated["id"].startswith("https://openalex.org/W")
        assert simulated["doi"] == f"https://doi.org/{work.doi}"


# --- Semantic Scholar ------------------------------------------------------------------------------


def _s2_interactions(samples: Path) -> Iterator[tuple[str, int, str]]:
    for path in sorted((samples / "semantic-scholar" / "semanticscholar-tests" / "data").glob("*.yaml")):
        cassette = yaml.safe_load(path.read_text(encoding="utf-8"))
        for interaction in cassette.get("interactions", []):
            response = interaction["response"]
            body = response.get("body") or response.get("content")
            text = body.get("string") if isinstance(body, dict) else body
            status = (response.get("status") or {}).get("code") or response.get("status_code")
            yield interaction["request"]["uri"], int(status), str(text)


def test_s2_paper_fields_have_the_recorded_types(
    samples: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    recorded = json.loads(
        (samples / "semantic-scholar" / "semanticscholar-tests" / "data" / "Paper.json").read_text()
    )
    fields = [name for name in recorded if name != "paperId"]
    paper = client.get(
        f"{sim.url_for('semantic_scholar')}/graph/v1/paper/DOI:10.5555/jcp.2019.0417",
        params={"fields": ",".join(fields)},
    ).json()
    assert set(paper) == set(recorded)
    for name, value in paper.items():
        if value is not None and recorded[name] is not None:
            assert type(value) is type(recorded[name]), name
    assert set(paper["journal"]) <= set(recorded["journal"])
    assert set(paper["authors"][0]) <= set(recorded["authors"][0])


def test_s2_envelopes_are_the_recorded_ones(
    samples: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    shapes: dict[str, set[frozenset[str]]] = {"search": set(), "match": set(), "error": set()}
    for uri, status, text in _s2_interactions(samples):
        try:
            payload = json.loads(text)
        except ValueError:
            continue
        if "/paper/search/match" in uri and status == 200:
            shapes["match"].add(frozenset(payload))
        elif "/paper/search?" in uri and status == 200:
            shapes["search"].add(frozenset(payload))
        elif status == 404 and isinstance(payload, dict):
            shapes["error"].add(frozenset(payload))
    base = f"{sim.url_for('semantic_scholar')}/graph/v1/paper"
    for query in ("graph sketches", "no such words here"):
        payload = client.get(f"{base}/search", params={"query": query, "fields": "title"}).json()
        assert frozenset(payload) in shapes["search"]
    match = client.get(
        f"{base}/search/match", params={"query": "graph sketches streaming algorithms for connectivity"}
    )
    assert frozenset(match.json()) in shapes["match"]
    assert set(match.json()["data"][0]) == {"paperId", "title", "matchScore"}
    assert frozenset(client.get(f"{base}/DOI:10.5555/none").json()) in shapes["error"]


# --- arXiv -----------------------------------------------------------------------------------------


def test_arxiv_feed_elements_are_recorded_elements(
    samples: Path, sim: SimulatorServer, client: httpx.Client, universe: Universe
) -> None:
    feed_tags: set[str] = set()
    entry_tags: set[str] = set()
    link_shapes: set[tuple[str | None, str | None, str | None]] = set()
    header_lines: set[str] = set()
    for path in sorted((samples / "arxiv" / "arxivpy-tests" / "fixtures").glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))["body"]
        header_lines.add(body.split("\n", 2)[0] + "\n" + body.split("\n", 2)[1])
        root = _xml(body)
        feed_tags |= {child.tag for child in root}
        for entry in root.findall(f"{ATOM}entry"):
            entry_tags |= {child.tag for child in entry}
            for link in entry.findall(f"{ATOM}link"):
                link_shapes.add((link.get("rel"), link.get("type"), link.get("title")))
    ids = ",".join(w.arxiv_id or "" for w in universe.catalog("arxiv").works)
    for params in ({"id_list": ids}, {"id_list": "abc"}, {"search_query": "all:sparse"}):
        text = client.get(f"{sim.url_for('arxiv_api')}/api/query", params=params).text
        assert "\n".join(text.split("\n", 2)[:2]) in header_lines
        root = _xml(text)
        assert {child.tag for child in root} <= feed_tags
        for entry in root.findall(f"{ATOM}entry"):
            assert {child.tag for child in entry} <= entry_tags
            for link in entry.findall(f"{ATOM}link"):
                assert (link.get("rel"), link.get("type"), link.get("title")) in link_shapes


# --- PubMed ----------------------------------------------------------------------------------------


def _paths(element: ET.Element, prefix: str = "") -> set[str]:
    here = f"{prefix}/{element.tag}"
    found = {here}
    for child in element:
        found |= _paths(child, here)
    return found


def test_pubmed_efetch_paths_are_recorded_paths(
    samples: Path, sim: SimulatorServer, client: httpx.Client, universe: Universe
) -> None:
    recorded: set[str] = set()
    attributes: dict[str, set[str]] = {}
    for path in sorted((samples / "pubmed" / "metapub-tests" / "fixtures" / "pmid_xml").glob("*.xml")):
        root = _xml(path.read_bytes())
        recorded |= _paths(root)
        for element in root.iter():
            attributes.setdefault(element.tag, set()).update(element.attrib)
    ids = ",".join(w.pmid or "" for w in universe.catalog("pubmed").works)
    text = client.get(
        f"{sim.url_for('pubmed')}/entrez/eutils/efetch.fcgi", params={"db": "pubmed", "id": ids}
    ).text
    root = _xml(text)
    simulated = _paths(root)
    # CommentsCorrections (retraction links) are documented but absent from these samples.
    documented = {p for p in simulated if "/CommentsCorrectionsList" in p}
    assert simulated - documented <= recorded, (simulated - documented) - recorded
    for element in root.iter():
        if element.tag not in ("CommentsCorrections",):
            assert set(element.attrib) <= attributes.get(element.tag, set()), element.tag


def test_pubmed_esearch_and_esummary_xml_are_recorded_shapes(
    samples: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    entrez = samples / "pubmed" / "biopython-tests" / "Entrez"
    search_paths = set().union(*(_paths(_xml(p.read_bytes())) for p in entrez.glob("esearch*.xml")))
    base = f"{sim.url_for('pubmed')}/entrez/eutils"
    search = _xml(client.get(f"{base}/esearch.fcgi", params={"db": "pubmed", "term": "zebrafish"}).text)
    assert _paths(search) <= search_paths
    # A DocSum's own items (the recorded ArticleIds lists are of records old enough to have only a
    # PMID, so the id types inside them are not compared).
    recorded_items: set[str] = set()
    for path in entrez.glob("esummary*.xml"):
        for docsum in _xml(path.read_bytes()).iter("DocSum"):
            recorded_items |= {item.get("Name") or "" for item in docsum.findall("Item")}
    summary = _xml(client.get(f"{base}/esummary.fcgi", params={"db": "pubmed", "id": "31234567"}).text)
    first = summary.find("DocSum")
    assert first is not None
    names = {item.get("Name") or "" for item in first.findall("Item")}
    assert names <= recorded_items, names - recorded_items
