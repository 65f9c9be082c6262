"""`aletheia bench claims --mode search` on a corpus written here: the search, the pipeline's ranking
and evidence step, and the tally of wrong citations and contradiction refusals (issue 29)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from aletheia.bench import claims_bench
from aletheia.bench.claims_search_bench import (
    CorpusIndex,
    Document,
    SearchClaim,
    SearchTally,
    format_search_report,
    run_search,
    search_claim,
    write_cases,
)
from aletheia.pipeline.claims.judge import RuleJudge
from aletheia.pipeline.claims.reasoner import LexicalReasoner

DOCS = {
    1: Document(
        1,
        "PD-L1 and outcome",
        ("High PD-L1 expression is associated with better outcomes in breast cancer.",),
    ),
    2: Document(
        2,
        "Aldehyde dehydrogenase in tumours",
        (
            "We studied 300 tumours.",
            "ALDH1 expression is associated with better outcomes in breast cancer.",
        ),
    ),
    3: Document(
        3,
        "Statins and fractures",
        ("Statin use decreased the risk of hip fracture in older women.",),
    ),
}


def _run(item: SearchClaim) -> SearchTally:
    tally = SearchTally()
    asyncio.run(search_claim(item, CorpusIndex(DOCS), LexicalReasoner(), RuleJudge(), tally))
    return tally


def test_the_search_cites_the_paper_that_names_the_claims_protein() -> None:
    item = SearchClaim(
        7, "ALDH1 expression is associated with better breast cancer outcomes", {2: "SUPPORT"}, {}
    )
    tally = _run(item)
    assert tally.cited == tally.cited_right == 1 and tally.wrong == []


def test_a_citation_of_a_paper_not_labelled_supporting_is_listed() -> None:
    # The set links the claim to no paper: the citation the search finds is counted wrong and listed.
    item = SearchClaim(8, "ALDH1 expression is associated with better breast cancer outcomes", {}, {})
    tally = _run(item)
    assert tally.cited == 1 and [case["doc_id"] for case in tally.wrong] == [2]
    assert tally.wrong[0]["label"] == "unlinked"


def test_a_contradiction_refusal_is_checked_against_the_labelled_evidence() -> None:
    sentence = DOCS[3].sentences[0]
    item = SearchClaim(
        9, "Statin use increases the risk of hip fracture in older women", {3: "REFUTE"}, {3: (sentence,)}
    )
    tally = _run(item)
    assert tally.contradicted_claims == 1 and tally.contradicted_claims_cited == 0
    assert (tally.refused_contradicted, tally.refused_on_evidence) == (1, 1)


def test_run_search_reads_a_corpus_and_reports_each_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    corpus = [{"doc_id": k, "title": d.title, "abstract": list(d.sentences)} for k, d in DOCS.items()]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in corpus), encoding="utf-8")
    claims = [
        {
            "id": 1,
            "claim": "ALDH1 expression is associated with better breast cancer outcomes",
            "cited_doc_ids": [1],
        },
        {
            "id": 2,
            "claim": "Statin use increases the risk of hip fracture in older women",
            "evidence": {"3": [{"sentences": [0], "label": "REFUTE"}]},
            "cited_doc_ids": [3],
        },
    ]
    (folder / "claims_test.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in claims), encoding="utf-8"
    )
    monkeypatch.setitem(claims_bench.DATASETS, "scifact", folder)
    monkeypatch.setitem(claims_bench.DATASETS, "citation_integrity", tmp_path / "absent")
    figures = run_search(split="held_out")
    sets = figures["sets"]["scifact"]
    assert sets["claims"] == 2 and sets["cited_wrong"] == 1
    assert sets["contradicted_claims"] == 1 and sets["contradicted_claims_cited"] == 0
    assert "skipped" in figures["sets"]["citation_integrity"]
    report = format_search_report(figures)
    assert "scifact claim 1 -> doc 2 (unlinked; its paper unlinked)" in report
    write_cases(figures, tmp_path / "cases.jsonl")
    kinds = [json.loads(line)["kind"] for line in (tmp_path / "cases.jsonl").read_text().splitlines()]
    assert kinds.count("wrong_citations") == 1
