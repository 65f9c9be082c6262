"""Source trust (core/trust.py, seed 003): the table names every source, keeps the seed's order,
and a field's evidence carries its source's level."""

from __future__ import annotations

import pytest

from aletheia.core.records import SourceName
from aletheia.core.source_facts import SOURCE_FACTS
from aletheia.core.trust import is_decisive, parse_trust, trust_of, trust_rank, trust_table
from aletheia.core.verdicts import FieldEvidence


def test_every_source_has_a_trust_level() -> None:
    table = trust_table()
    assert {s.value for s in SourceName} <= set(table.sources), "add the source's record to source_facts.py"
    assert {facts.trust for facts in SOURCE_FACTS.values()} <= set(table.levels)


def test_the_seed_order_holds() -> None:
    order = [
        SourceName.CROSSREF,  # DOI registry
        SourceName.PUBMED,  # curated index
        SourceName.OPENALEX,  # aggregator index
        "tavily",  # search hit
        "web",  # web page
        "llm",  # model output
    ]
    ranks = [trust_rank(s) for s in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert trust_of(SourceName.ARXIV) == "curated_index" and trust_of(SourceName.DBLP) == "curated_index"
    assert trust_of(SourceName.SEMANTIC_SCHOLAR) == "aggregator_index"


def test_decisive_from_the_aggregator_level_and_unknown_is_the_lowest() -> None:
    assert is_decisive(SourceName.CROSSREF) and is_decisive(SourceName.OPENALEX)
    assert is_decisive(SourceName.LIBRARY)
    assert not is_decisive("web") and not is_decisive("llm") and not is_decisive("brave_search")
    assert trust_of("a_source_nobody_listed") == "model_output" and not is_decisive("a_source_nobody_listed")
    assert trust_of(None) is None and not is_decisive(None)


def test_a_table_with_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the table"):
        parse_trust({"levels": [{"level": "a"}], "decisive_from": "a", "sources": {"x": "b"}})


def test_field_evidence_names_its_trust_in_the_json_and_reads_back() -> None:
    ev = FieldEvidence(cited="x", found="x", source=SourceName.CROSSREF, decisive=True, agrees=True)
    dumped = ev.model_dump(mode="json")
    assert dumped["trust"] == "doi_registry"
    assert FieldEvidence.model_validate(dumped) == ev
