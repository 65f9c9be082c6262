"""The simulator serves the source noise real records show, and the real parsers read it back.

Venue aliases, a series beside the proceedings, a repository copy as OpenAlex's primary location,
ISSNs, DBLP keys and a published venue only Semantic Scholar knows (docs/simulator.md): each is
served in the shape the real API uses, and `parse_*` turns it into the `WorkRecord` fields
(`venue_aliases`, `other_venues`, `issn`, `dblp_key`, `published_venue`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia.sources.crossref import parse_crossref_message
from aletheia.sources.openalex import parse_openalex_work
from aletheia.sources.semantic_scholar import PAPER_FIELDS
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from aletheia.sources.simulator import SimulatorServer, Universe
from aletheia.sources.simulator.work import SimWork

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "simulator" / "noise_universe.jsonl"
ECCV_DOI = "10.1007/978-3-030-58452-8_13"
JMLR_DOI = "10.5555/jmlr.2012.0042"
MLJ_DOI = "10.1007/s10994-019-00001-x"


@pytest.fixture(scope="module")
def universe() -> Universe:
    return Universe.from_jsonl(UNIVERSE)


def crossref(sim: SimulatorServer, client: httpx.Client, doi: str) -> tuple[dict[str, Any], Any]:
    payload = client.get(f"{sim.url_for('crossref')}/works/{doi}").json()
    (record,) = parse_crossref_message(payload)
    return payload["message"], record


def openalex(sim: SimulatorServer, client: httpx.Client, doi: str) -> tuple[dict[str, Any], Any]:
    payload = client.get(f"{sim.url_for('openalex')}/works/doi:{doi}").json()
    return payload, parse_openalex_work(payload)


def s2(sim: SimulatorServer, client: httpx.Client, paper_id: str) -> tuple[dict[str, Any], Any]:
    payload = client.get(
        f"{sim.url_for('semantic_scholar')}/graph/v1/paper/{paper_id}",
        params={"fields": ",".join(PAPER_FIELDS)},
    ).json()
    return payload, parse_s2_paper(payload)


def test_crossref_series_short_titles_and_issns(sim: SimulatorServer, client: httpx.Client) -> None:
    item, record = crossref(sim, client, ECCV_DOI)
    assert item["container-title"] == [
        "Computer Vision \u2013 ECCV 2020",
        "Lecture Notes in Computer Science",
    ]
    assert item["short-container-title"] == ["ECCV 2020"]
    assert item["ISSN"] == ["0302-9743", "1611-3349"]
    assert record.venue == "Computer Vision \u2013 ECCV 2020"
    assert record.other_venues == ("Lecture Notes in Computer Science",)
    assert record.venue_aliases == ("ECCV 2020",)
    assert record.issn == ("0302-9743", "1611-3349")


def test_openalex_series_location_and_source_names(sim: SimulatorServer, client: httpx.Client) -> None:
    work, record = openalex(sim, client, ECCV_DOI)
    names = [(loc["source"]["display_name"], loc["source"]["type"]) for loc in work["locations"]]
    assert names[:2] == [
        ("Computer Vision \u2013 ECCV 2020", "conference"),
        ("Lecture Notes in Computer Science", "book series"),
    ]
    source = work["primary_location"]["source"]
    assert source["abbreviated_title"] == "ECCV 2020" and source["issn"] == ["0302-9743", "1611-3349"]
    assert record.venue == "Computer Vision \u2013 ECCV 2020" and not record.is_preprint
    assert record.other_venues == ("Lecture Notes in Computer Science",)
    assert record.venue_aliases == ("ECCV 2020",)
    assert record.issn == ("0302-9743", "1611-3349")


def test_openalex_repository_primary(sim: SimulatorServer, client: httpx.Client) -> None:
    work, record = openalex(sim, client, JMLR_DOI)
    primary = work["primary_location"]
    assert primary["source"]["type"] == "repository" and primary["is_published"] is False
    assert primary["source"]["display_name"] == "Lancaster EPrints (Lancaster University)"
    assert work["locations"][1]["source"]["display_name"] == "Journal of Machine Learning Research"
    assert record.venue == record.published_venue == "Journal of Machine Learning Research"
    assert not record.is_preprint and record.work_type == "journal-article"
    assert record.other_venues == ("Lancaster EPrints (Lancaster University)",)
    assert record.venue_aliases == ("J. Mach. Learn. Res.", "JMLR")
    assert record.issn == ("1532-4435",)


def test_semantic_scholar_aliases_dblp_and_issn(sim: SimulatorServer, client: httpx.Client) -> None:
    paper, record = s2(sim, client, f"DOI:{ECCV_DOI}")
    assert paper["publicationVenue"]["alternate_names"] == ["ECCV 2020"]
    assert paper["publicationVenue"]["issn"] == "0302-9743"
    assert paper["publicationVenue"]["alternate_issns"] == ["1611-3349"]
    assert paper["externalIds"]["DBLP"] == "conf/eccv/CarionMSUKZ20"
    assert record.venue_aliases == ("ECCV 2020",)
    assert record.issn == ("0302-9743", "1611-3349")
    assert record.dblp_key == "conf/eccv/CarionMSUKZ20"
    assert record.published_venue == "Computer Vision \u2013 ECCV 2020"


def test_a_venue_only_semantic_scholar_knows(sim: SimulatorServer, client: httpx.Client) -> None:
    paper, record = s2(sim, client, "ARXIV:1706.03762")
    assert paper["venue"] == paper["publicationVenue"]["name"] == "Neural Information Processing Systems"
    assert paper["publicationVenue"]["alternate_names"] == ["NeurIPS", "NIPS"]
    assert record.arxiv_id == "1706.03762" and not record.is_preprint
    assert record.venue == record.published_venue == "Neural Information Processing Systems"
    assert record.dblp_key == "conf/nips/VaswaniSPUJGKP17"
    # arXiv, the only other source that knows it, sees a preprint with no venue.
    feed = client.get(f"{sim.url_for('arxiv_api')}/api/query", params={"id_list": "1706.03762"}).text
    assert "arxiv.org/abs/1706.03762" in feed
    assert "journal_ref" not in feed and "Neural Information Processing Systems" not in feed


def test_the_fields_are_overridable_per_source(sim: SimulatorServer, client: httpx.Client) -> None:
    item, record = crossref(sim, client, MLJ_DOI)
    assert item["short-container-title"] == ["Machine Learning"]  # Crossref's view has no aliases
    assert record.venue_aliases == ()
    work, oa = openalex(sim, client, MLJ_DOI)
    assert work["primary_location"]["source"]["display_name"] == "Zenodo"
    assert oa.venue == "Machine Learning" and oa.issn == ("0885-6125",) and oa.other_venues == ("Zenodo",)
    assert oa.venue_aliases == ("Mach. Learn.",)
    _, paper = s2(sim, client, f"DOI:{MLJ_DOI}")
    assert paper.venue_aliases == ("Mach. Learn.",) and paper.issn == ()


def test_the_new_fields_default_to_no_noise() -> None:
    work = SimWork(title="Plain")
    assert (work.venue_aliases, work.series, work.repository_primary) == ((), None, None)
    assert (work.dblp_key, work.issn, work.s2_publication_venue) == (None, (), None)
    with pytest.raises(ValueError, match="ISSN"):
        SimWork(title="Bad", issn=("12345678",))
