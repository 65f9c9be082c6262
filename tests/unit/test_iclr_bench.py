"""The ICLR 2026 bench's reader, its noise measurement and its universe derivation (issue 10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aletheia.bench.iclr_reader import read_paper, reference_from_item
from aletheia.bench.iclr_universe import non_scholarly_reason, universe_for_iclr
from aletheia.bench.noise import NoiseModel, TitleIndex, measure
from aletheia.bench.noise_apply import apply_noise
from aletheia.bench.recorded_records import RealRecord
from aletheia.core.records import CitedReference
from aletheia.sources.simulator import universe_from_records


def _item(**over: object) -> dict[str, object]:
    item: dict[str, object] = {
        "url": "",
        "cited_url": "",
        "arxiv_url": "",
        "doi": None,
        "year": 2021,
        "authors": ["Gaon An", "Seungyong Moon", "Jang-Hyun Kim", "Hyun Oh Song"],
        "venue": "Advances in Neural Information Processing Systems",
        "title": "Uncertainty-based offline reinforcement learning with diversified q-ensemble",
        "raw_text": "",
        "type": "other",
    }
    item.update(over)
    return item


def test_reader_maps_arxiv_venue_to_no_claim_and_reads_the_id() -> None:
    ref = reference_from_item(
        _item(
            venue="arXiv",
            url="https://arxiv.org/abs/2110.01548v2",
            arxiv_url="https://arxiv.org/abs/2110.01548v2",
        ),
        key="p:1",
    )
    assert ref.venue is None
    assert ref.arxiv_id == "2110.01548" and ref.arxiv_version == 2
    assert ref.entry_type == "article"
    assert ref.authors[3].family == "Song" and ref.authors[3].given == "Hyun Oh"
    assert ref.url == "https://arxiv.org/abs/2110.01548v2"


def test_reader_truncation_dois_and_entry_types() -> None:
    ref = reference_from_item(
        _item(
            authors=["Tom Brown", "Benjamin Mann", "et al."],
            venue="Nature",
            raw_text="Tom Brown*Benjamin Mann*et al.#T#Nature#2020#10.1038/s41586-020-2649-2",
        ),
        key="p:2",
    )
    assert ref.authors_truncated and len(ref.authors) == 2
    assert ref.doi == "10.1038/s41586-020-2649-2"
    web = reference_from_item(_item(venue="n.d.", url="https://qwenlm.github.io/blog/qwen2.5/"), key="p:3")
    assert web.venue is None and web.entry_type == "misc"
    book = reference_from_item(_item(venue="MIT Press", title="Deep Learning"), key="p:4")
    assert book.entry_type == "book"
    arxiv_doi = reference_from_item(
        _item(venue="arXiv Preprint", raw_text="A#T#arXiv Preprint#2024#10.48550/arXiv.2411.02862"), key="p:5"
    )
    assert arxiv_doi.arxiv_id == "2411.02862" and arxiv_doi.venue is None


def test_reader_reads_a_paper_directory(tmp_path: Path) -> None:
    paper = tmp_path / "openreview_abc"
    paper.mkdir()
    (paper / "bibliography.json").write_text(json.dumps([_item(), _item(title="Second")]), encoding="utf-8")
    refs = read_paper(paper)
    assert [r.key for r in refs] == ["abc:1", "abc:2"]


def _refs() -> list[CitedReference]:
    items = [
        _item(),
        _item(
            title="Attention is all you need",
            authors=["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit"],
            venue="Proc NeurIPS",
            year=2017,
        ),
        _item(
            title="Deep reinforcement learning at the edge of the statistical precipice",
            venue="Proc NeurIPS",
            arxiv_url="https://arxiv.org/abs/2108.13264",
            url="https://arxiv.org/abs/2108.13264",
        ),
        _item(
            title="Opencompass: A universal evaluation platform",
            authors=["OpenCompass Contributors"],
            venue="GitHub",
            url="https://github.com/open-compass/opencompass",
        ),
        _item(
            title="Llama 3 model card",
            authors=["AI@Meta"],
            venue="",
            url="https://github.com/meta-llama/llama3/blob/main/MODEL_CARD.md",
        ),
        _item(
            title="Pattern Recognition and Machine Learning",
            authors=["Christopher M. Bishop"],
            venue="Springer",
            year=2006,
        ),
        _item(
            title="Alzheimer study of things",
            authors=["Alzheimer's Disease Neuroimaging Initiative", "Jane Doe"],
            venue="Neurology",
            year=2019,
        ),
    ]
    return [reference_from_item(item, key=f"p:{i}") for i, item in enumerate(items, start=1)]


def test_non_scholarly_references_get_no_work() -> None:
    refs = _refs()
    records, info = universe_for_iclr(refs, seed=3)
    assert set(info["non_scholarly"]) == {"p:4", "p:5", "p:6"}
    cited = {r["meta"]["cited"] for r in records}
    assert not cited & {"p:4", "p:5", "p:6"}
    assert {"p:1", "p:2", "p:3", "p:7"} <= cited
    universe_from_records(records)  # valid SimWorks
    assert non_scholarly_reason(refs[0]) is None


def test_the_derivation_is_deterministic_given_the_seed() -> None:
    model = NoiseModel(venue_aliases=1.0, dblp_key=1.0, single_source=0.5, author_count_differs=1.0)
    a, _ = universe_for_iclr(_refs(), seed=5, model=model)
    b, _ = universe_for_iclr(_refs(), seed=5, model=model)
    assert a == b
    c, _ = universe_for_iclr(_refs(), seed=6, model=NoiseModel(single_source=0.5))
    assert a != c


def test_noise_kinds_are_applied_at_rate_one() -> None:
    ref = _refs()[1]
    record: dict[str, Any] = {
        "title": "Attention is all you need",
        "authors": [{"given": "A", "family": f"N{i}"} for i in range(4)],
        "year": 2017,
        "venue": "Advances in Neural Information Processing Systems 30",
        "type": "proceedings-article",
        "doi": "10.5555/x.1",
    }
    everything = NoiseModel(
        venue_aliases=1.0,
        series=1.0,
        repository_primary=1.0,
        dblp_key=1.0,
        author_count_differs=1.0,
        single_source=0.0,
    )
    apply_noise(record, ref, everything, seed=1)
    assert record["venue_aliases"][0] == "NeurIPS"
    assert record["overrides"]["crossref"]["venue_aliases"] == []
    assert (
        record["series"] and record["repository_primary"] and record["dblp_key"].startswith("conf/neurips/")
    )
    assert len(record["overrides"]["semantic_scholar"]["authors"]) == 3
    universe_from_records([record])
    one = dict(record, overrides={}, meta={})
    apply_noise(
        one,
        ref,
        NoiseModel(
            single_source=1.0,
            venue_aliases=0,
            dblp_key=0,
            series=0,
            repository_primary=0,
            openalex_repository_only=0,
            author_count_differs=0,
        ),
        seed=1,
    )
    assert len(one["sources"]) == 1


def test_consortium_written_as_a_person_at_crossref() -> None:
    ref = _refs()[6]
    records, _ = universe_for_iclr(
        [ref], seed=1, model=NoiseModel(consortium_as_person=1.0, single_source=0.0)
    )
    authors = records[0]["overrides"]["crossref"]["authors"]
    assert authors[0] == {"given": "Alzheimer's Disease Neuroimaging", "family": "Initiative"}


def test_a_real_record_replaces_the_citation() -> None:
    real = RealRecord(
        source="crossref",
        title="Uncertainty-Based Offline Reinforcement Learning with Diversified Q-Ensemble",
        authors=({"given": "Gaon", "family": "An"}, {"given": "Hyun Oh", "family": "Song"}),
        year=2021,
        venue="Advances in Neural Information Processing Systems 34",
        doi="10.5555/real.1",
        work_type="proceedings-article",
    )
    records, info = universe_for_iclr(_refs()[:1], seed=1, real=TitleIndex([real]))
    assert info["real"] == ["p:1"]
    assert records[0]["title"] == real.title and records[0]["doi"] == "10.5555/real.1"
    assert len(records[0]["authors"]) == 2


def test_measure_counts_series_and_author_lists() -> None:
    a = RealRecord(
        source="crossref",
        title="A long enough title",
        authors=({"family": "X"},),
        doi="10.1/a",
        venues=("P", "LNCS"),
    )
    b = RealRecord(
        source="openalex",
        title="A long enough title",
        authors=({"family": "X"}, {"family": "Y"}),
        doi="10.1/a",
    )
    rates = measure([a, b], ["A long enough title"])
    assert (rates["series"].count, rates["series"].total) == (1, 1)
    assert (rates["author_count_differs"].count, rates["author_count_differs"].total) == (1, 1)
    assert rates["single_source"].total == 1 and rates["single_source"].count == 0
    assert rates["author_count_differs"].applied == pytest.approx(2 / 3)


def test_pdf_artefacts_are_not_in_the_sources_view() -> None:
    # The universe derivation repairs citations with the product's own repair (`_repaired`).
    from aletheia.core.text import repair_pdf_name, repair_pdf_text

    assert repair_pdf_name("Rafael Br ¨uschweiler") == "Rafael Brüschweiler"
    assert repair_pdf_name("Frank No ´e") == "Frank Noé"
    assert repair_pdf_name("Paul A V olberding") == "Paul A Volberding"
    assert repair_pdf_text("force ﬁelds") == "force fields"
    assert repair_pdf_text("A survey of things") == "A survey of things"


def test_a_garbled_cited_name_is_served_whole() -> None:
    ref = reference_from_item(_item(authors=["Rafael Br ¨uschweiler", "Paul A V olberding"]), key="p:9")
    records, _ = universe_for_iclr([ref], seed=1, model=NoiseModel(single_source=0.0))
    assert records[0]["authors"][:2] == [
        {"given": "Rafael", "family": "Brüschweiler"},
        {"given": "Paul A", "family": "Volberding"},
    ]


def test_flagged_share_is_split_by_where_the_records_come_from() -> None:
    # Issue 21: a record derived from its citation agrees with it by construction, so the
    # references with real recorded answers are counted apart (one title cited twice, one work).
    from collections import Counter

    from aletheia.bench.iclr_bench import origin_figures, record_origins

    gold = [
        CitedReference(key="p:1", title="A Real Paper"),
        CitedReference(key="q:7", title="A real paper"),  # the same title in another paper
        CitedReference(key="p:2", title="A Derived Paper"),
    ]
    origins = record_origins(gold, {"real": ["p:1"], "derived": ["p:2"]})
    assert origins == {"a real paper": "real_record", "a derived paper": "derived"}
    figures = origin_figures(
        {
            "real_record": Counter({"flagged": 1, "not flagged": 1, "metadata_error": 1, "verified": 1}),
            "derived": Counter({"not flagged": 3, "verified": 3}),
            "non_scholarly": Counter(),
        }
    )
    assert figures["real_record"] == {
        "references": 2,
        "flagged": 1,
        "flagged_rate": 0.5,
        "statuses": {"metadata_error": 1, "verified": 1},
    }
    assert figures["derived"]["flagged_rate"] == 0.0 and figures["non_scholarly"]["references"] == 0


def test_the_flagged_tsv_names_recorded_sources_and_copies() -> None:
    from aletheia.bench.iclr_bench import recorded_and_copied

    gold = [CitedReference(key="p:1", title="Developing ChemDFM")]
    records: list[dict[str, Any]] = [
        {
            "title": "Developing ChemDFM",
            "sources": ["semantic_scholar", "crossref", "openalex"],
            "meta": {"cited": "p:1", "real": ["semantic_scholar"]},
        },
        {"title": "A derived work", "sources": ["openalex"], "meta": {"cited": "p:2"}},
    ]
    assert recorded_and_copied(records, gold) == {
        "developing chemdfm": " (recorded: semantic_scholar; copies: crossref, openalex)"
    }
