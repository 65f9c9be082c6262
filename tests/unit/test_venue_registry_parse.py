"""The venue registries' pure parsers (issue 21) on small fixtures in the documented shapes:
OpenAlex sources, DBLP venue hits (a list, a lone object, none), Crossref journals (a list, one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.venue_registry_parse import (
    parse_crossref_journals,
    parse_dblp_venues,
    parse_openalex_sources,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "venue_registry"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_openalex_sources_keep_every_name_the_registry_gives() -> None:
    journal, conference = parse_openalex_sources(fixture("openalex_sources_search.json"))
    assert journal.source is SourceName.OPENALEX and journal.source_id == "S4210191234"
    assert journal.name == "Neural Networks" and journal.abbreviation == "Neural Netw."
    assert journal.alternate_names == (
        "Neural Netw",
        "Neural networks : the official journal of the International Neural Network Society",
    )
    assert journal.issn == ("0893-6080", "1879-2782") and journal.kind == "journal"
    # An alternate title equal to the display name is not repeated; no ISSN is none.
    assert conference.alternate_names == ("NeurIPS",) and conference.issn == ()
    assert conference.kind == "conference" and "NeurIPS" in conference.names


def test_openalex_single_source_and_shapes_it_refuses() -> None:
    one = fixture("openalex_sources_search.json")["results"][0]
    assert [r.name for r in parse_openalex_sources(one)] == ["Neural Networks"]
    assert parse_openalex_sources({"meta": {"count": 0}, "results": []}) == []
    for bad in ({"meta": {}}, [], None, {"results": ["S1"]}):
        with pytest.raises(SourceParseError):
            parse_openalex_sources(bad)


def test_dblp_venue_hits_split_the_acronym_from_the_name() -> None:
    icml, jmlr = parse_dblp_venues(fixture("dblp_venues_search.json"))
    assert icml.source is SourceName.DBLP and icml.name == "International Conference on Machine Learning"
    assert icml.abbreviation == "ICML" and icml.kind == "Conference or Workshop"
    assert icml.source_id == "https://dblp.org/db/conf/icml/"
    # The name as DBLP prints it is one more form a citation may copy.
    assert icml.alternate_names == ("International Conference on Machine Learning (ICML)",)
    assert jmlr.name == "Journal of Machine Learning Research" and jmlr.abbreviation is None
    assert jmlr.alternate_names == () and jmlr.kind == "Journal"


def test_dblp_lone_hit_is_an_object_and_no_hit_is_absent() -> None:
    (tmlr,) = parse_dblp_venues(fixture("dblp_venues_single.json"))
    # No `acronym` member: the trailing parenthesis is read as one.
    assert tmlr.name == "Transactions on Machine Learning Research" and tmlr.abbreviation == "TMLR"
    assert parse_dblp_venues(fixture("dblp_venues_empty.json")) == []
    assert parse_dblp_venues({"result": {"status": {"@code": "200"}}}) == []
    for bad in ({}, {"result": []}, {"result": {"hits": []}}, {"result": {"hits": {"hit": [{"x": 1}]}}}):
        with pytest.raises(SourceParseError):
            parse_dblp_venues(bad)


def test_dblp_parenthesis_that_is_not_the_acronym_stays_in_the_name() -> None:
    payload = {
        "result": {
            "hits": {
                "hit": [
                    {"info": {"venue": "Web Intelligence (WI)", "acronym": "WI-IAT", "type": "Journal"}},
                    {"info": {"venue": "Advances in Computers (volume series)", "type": "Series"}},
                ]
            }
        }
    }
    wi, series = parse_dblp_venues(payload)
    assert wi.name == "Web Intelligence (WI)" and wi.abbreviation == "WI-IAT"
    assert series.name == "Advances in Computers (volume series)" and series.abbreviation is None


def test_crossref_journal_list_and_single_journal() -> None:
    nn, tnnls = parse_crossref_journals(fixture("crossref_journals_query.json"))
    assert nn.source is SourceName.CROSSREF and nn.name == "Neural Networks"
    assert nn.issn == ("0893-6080", "1879-2782") and nn.source_id == "0893-6080" and nn.kind == "journal"
    # Entities decoded; ISSNs from `ISSN` and `issn-type`, cleaned and each once.
    assert tnnls.name == "IEEE Transactions on Neural Networks & Learning Systems"
    assert tnnls.issn == ("2162-237X", "2162-2388")
    (nc,) = parse_crossref_journals(fixture("crossref_journal.json"))
    assert nc.name == "Neural Computation" and nc.issn == ("0899-7667", "1530-888X")


def test_crossref_refuses_other_envelopes() -> None:
    failure = {"status": "failed", "message-type": "validation-failure", "message": []}
    work_list = {"status": "ok", "message-type": "work-list", "message": {"items": []}}
    for bad in (failure, work_list, {"message-type": "journal-list", "message": {}}, None):
        with pytest.raises(SourceParseError):
            parse_crossref_journals(bad)


def test_every_fixture_is_read_by_a_test() -> None:
    # A fixture no test reads is dead weight, or a shape nobody checks any more.
    this_module = Path(__file__).read_text(encoding="utf-8")
    unused = [p.name for p in FIXTURES.glob("*.json") if f'"{p.name}"' not in this_module]
    assert unused == []
