"""Questionable venues end to end (issue 21, item 6): through the embedded pipeline against the
loopback simulator, a reference to a work in a journal DOAJ withdrew for practice, and one whose
URL is a hijacked journal's counterfeit site, get the `questionable_venue` signal in the JSON and
HTML reports — and exactly the verdict they get without the lists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.reports import signals as report_signals
from aletheia.pipeline.reports.html import render_html
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import run_embedded, sim_settings, universe

# A work (invented, DOI under the test prefix) in MDPI's "Water", ISSN 2073-4441: withdrawn from
# DOAJ on 2024-11-22, "Journal not adhering to Best practice" (the shipped table).
IN_WATER: dict[str, Any] = {
    "title": "Seasonal nitrate retention in restored floodplain wetlands of the lower basin",
    "authors": [{"given": "Ines", "family": "Falkenrath"}, {"given": "Tomas", "family": "Okereke"}],
    "year": 2023,
    "venue": "Water",
    "issn": ["2073-4441"],
    "doi": "10.5555/water.2023.118",
}
ELSEWHERE: dict[str, Any] = {
    "title": "Urban heat islands and bird migration corridors in coastal cities",
    "authors": [{"given": "Kofi", "family": "Adeyemi"}],
    "year": 2015,
    "venue": "Journal of Field Observations",
    "doi": "10.5555/filler.2",
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe([IN_WATER, ELSEWHERE]), SimulatorConfig.unlimited(seed=5)) as server:
        yield server


def cite(work: dict[str, Any], key: str, **kw: Any) -> CitedReference:
    values: dict[str, Any] = {
        "key": key,
        "entry_type": "article",
        "title": work["title"],
        "authors": tuple(Author(given=a["given"], family=a["family"]) for a in work["authors"]),
        "year": work["year"],
        "venue": work["venue"],
        "doi": work["doi"],
        "origin": f"test:{key}",
        **kw,
    }
    return CitedReference(**values)


def _references(sim: SimulatorServer, tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    sim.reset()
    refs = [
        cite(IN_WATER, "water"),
        # The authentic work, cited at a hijacked journal's counterfeit site (the 2018 list).
        cite(ELSEWHERE, "hijacked", url="http://chm.tomaspubs.com/index.php/article/12"),
        cite(ELSEWHERE, "clean"),
    ]
    run = run_embedded(sim_settings(tmp_path, sim), refs)
    return run.references, run.document


def _verdict(ref: dict[str, Any]) -> tuple[Any, ...]:
    return (ref["verdict"], ref["severity"], tuple(ref["reasons"]), ref["p_valid"], ref["notes"])


def test_listed_venues_get_the_signal_and_keep_their_verdict(
    sim: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    references, document = _references(sim, tmp_path / "with")
    by_key = {r["key"]: r for r in references}

    water = [s for s in by_key["water"]["signals"] if s["kind"] == "questionable_venue"]
    assert len(water) == 1, by_key["water"]["signals"]
    ev = water[0]["evidence"]
    assert ev["list"] == "doaj_withdrawn" and ev["listed_name"] == "Water"
    assert ev["matched_on"] == "issn" and ev["value"] == "2073-4441"
    assert ev["reason"] == "Journal not adhering to Best practice" and ev["listed_on"] == "2024-11-22"
    assert ev["licence"] == "CC BY-SA 4.0" and "DOAJ" in ev["attribution"]
    assert ev["before_listing"] is True  # published 2023, withdrawn 2024
    assert by_key["water"]["verdict"] == "verified", by_key["water"]

    [hijacked] = [s for s in by_key["hijacked"]["signals"] if s["kind"] == "questionable_venue"]
    assert hijacked["evidence"]["entry_kind"] == "hijacked" and hijacked["evidence"]["matched_on"] == "site"
    assert hijacked["evidence"]["authentic_name"].startswith("Açoreana")
    assert not [s for s in by_key["clean"]["signals"] if s["kind"] == "questionable_venue"]

    lists = {q["list"]: q for q in document["summary"]["signal_data"]["questionable_venues"]}
    assert (
        lists["doaj_withdrawn"]["licence"] == "CC BY-SA 4.0"
        and lists["stop_predatory_journals"]["date"] == "2018-01-10"
    )
    page = render_html(document)
    assert 'data-signal="questionable_venue"' in page and "DOAJ withdrew Water on 2024-11-22" in page
    assert "hijacked copy of Açoreana" in page

    # The same run without the lists: every verdict, severity, reason and probability is the same.
    monkeypatch.setattr(report_signals, "questionable_venue_signals", lambda *_a, **_k: [])
    without, _ = _references(sim, tmp_path / "without")
    assert [_verdict(r) for r in without] == [_verdict(r) for r in references]
    assert not [s for r in without for s in r["signals"] if s["kind"] == "questionable_venue"]
