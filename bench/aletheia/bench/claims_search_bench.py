"""`aletheia bench claims --mode search`: asked to find a paper itself, does `cite` cite the right one?

(Issue 29.)

`--mode named` (the default, `claims_bench`) judges each (claim, paper) pair the set gives, as
`aletheia cite CLAIM --paper ID` does. Here the claim is given alone, as `aletheia cite CLAIM` is:

- the search: the set's whole corpus (SciFact's 5,183 abstracts, Citation-Integrity's 3,063 cited
  passages) stands in for Semantic Scholar and OpenAlex. Each query the lexical reasoner makes
  returns the corpus's `SEARCH_RESULTS` best documents by BM25 over title and text, as a source's
  search returns its best hits;
- then the pipeline's own steps: the lexical reasoner's ranking (`rank_candidates`), and for at most
  `MAX_CANDIDATES_TRIED` candidates in rank order the evidence step (`judge_evidence`, offline
  judge): a support cites that paper, a contradiction refuses (`ContradictedClaim`), neither reads
  the next candidate; none left refuses (`NoSupportingExcerpts`). A support whose excerpts do not
  name every word of the claim's subject and predicate is withheld, as the pipeline withholds it
  for a paper it found itself (`claim_found_by_search`), and the next candidate is read. This is
  `stages.read_and_judge` without the sources.

Reported per set: the claims cited, and of the citations, those whose paper the set does **not**
label as supporting the claim (labelled contradicting, cited by the claim's author without evidence
(NEI), or not linked to the claim at all), every one listed with the excerpt quoted; the claims the
set labels contradicted that got any citation; and of the `ContradictedClaim` refusals, how many
were made on a sentence the set annotates as the evidence that contradicts the claim (the rest were
refused on a sentence the annotators did not mark: the reason given may not be the one that holds).

A paper the annotators did not link to a claim may still support it (SciFact's annotation is not
exhaustive); such a citation is counted as wrong all the same, and listed so that it can be read.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aletheia.bench.claims_bench import (
    DATASETS,
    SPLIT_FILES,
    Split,
    abstract_paper,
    clean_claim,
    is_rationale,
    percent,
    read_corpus,
)
from aletheia.core.claim_judge import ExcerptJudgement
from aletheia.core.excerpts import PaperText
from aletheia.core.lexical_ranking import content_terms
from aletheia.core.records import SourceName, WorkRecord
from aletheia.pipeline.claims.claim_state import MAX_CANDIDATES_TRIED
from aletheia.pipeline.claims.judge import ClaimJudge, RuleJudge, found_by_search_gaps, judge_evidence
from aletheia.pipeline.claims.model import Candidate
from aletheia.pipeline.claims.reasoner import ClaimReasoner, LexicalReasoner

SEARCH_RESULTS: Final = 10  # documents one query returns (a source's first page of hits)
_K1: Final = 1.2
_B: Final = 0.75


@dataclass(frozen=True)
class Document:
    doc_id: int
    title: str
    sentences: tuple[str, ...]


# Citation-Integrity's documents are the sentences of a cited paper gathered for one citing
# sentence: the documents of one paper share the thousands of their ids (31017 and 31042 are two of
# paper 31's). Sampled pairs of documents with the same thousands share a sentence in 1,133 of
# 2,997, with different thousands in 0 of 2,966; the corpus has 100 such papers. A citation of one
# of a paper's documents cites that paper.
DOCUMENTS_PER_PAPER: Final = {"citation_integrity": 1000}


@dataclass(frozen=True)
class SearchClaim:
    claim_id: int
    claim: str
    labels: dict[int, str]  # doc id -> SUPPORT | REFUTE | NEI (cited without evidence)
    rationale: dict[int, tuple[str, ...]]  # doc id -> the annotated evidence sentences
    per_paper: int = 1  # documents of one paper share `doc_id // per_paper` (DOCUMENTS_PER_PAPER)

    def paper_label(self, doc_id: int) -> str:
        """The label of the paper the document belongs to: SUPPORT when one of its documents is
        labelled so for this claim, else REFUTE, NEI, or unlinked."""
        found = {
            label for doc, label in self.labels.items() if doc // self.per_paper == doc_id // self.per_paper
        }
        return next((label for label in ("SUPPORT", "REFUTE", "NEI") if label in found), "unlinked")


class CorpusIndex:
    """BM25 over the corpus's documents (title and text), the bench's stand-in for a source search."""

    def __init__(self, documents: dict[int, Document]) -> None:
        self.documents = documents
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths: dict[int, int] = {}
        for doc_id, doc in documents.items():
            terms = content_terms(f"{doc.title} {' '.join(doc.sentences)}")
            self.lengths[doc_id] = len(terms)
            for term, count in Counter(terms).items():
                self.postings[term].append((doc_id, count))
        self.average = sum(self.lengths.values()) / max(len(self.lengths), 1)

    def search(self, query: str, limit: int = SEARCH_RESULTS) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        total = len(self.documents)
        for term in set(content_terms(query)):
            posting = self.postings.get(term, ())
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc_id, count in posting:
                norm = count + _K1 * (1 - _B + _B * self.lengths[doc_id] / self.average)
                scores[doc_id] += idf * count * (_K1 + 1) / norm
        return [doc_id for doc_id, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]]

    def record(self, doc_id: int) -> WorkRecord:
        doc = self.documents[doc_id]
        return WorkRecord(
            source=SourceName.SEMANTIC_SCHOLAR,
            source_id=str(doc_id),
            title=doc.title or None,
            abstract=" ".join(doc.sentences),
        )

    def paper(self, doc_id: int) -> PaperText:
        return abstract_paper(self.documents[doc_id].sentences)


def load(dataset: str, split: Split) -> tuple[CorpusIndex | None, list[SearchClaim]]:
    folder = DATASETS[dataset]
    if not (folder / "corpus.jsonl").is_file():
        return None, []
    documents = {
        doc_id: Document(doc_id, row.get("title") or "", tuple(row.get("abstract") or ()))
        for doc_id, row in read_corpus(folder).items()
    }
    claims: list[SearchClaim] = []
    for name in SPLIT_FILES[split]:
        with (folder / name).open(encoding="utf-8") as handle:
            for row in map(json.loads, handle):
                claim = clean_claim(row["claim"])
                if not claim:
                    continue
                labels: dict[int, str] = {}
                rationale: dict[int, tuple[str, ...]] = {}
                for doc_id in row.get("cited_doc_ids") or []:
                    labels[int(doc_id)] = "NEI"
                for key, sets in (row.get("evidence") or {}).items():
                    doc = documents.get(int(key))
                    found = {s["label"] for s in sets}
                    labels[int(key)] = "REFUTE" if "REFUTE" in found else "SUPPORT"
                    if doc is not None:
                        rationale[int(key)] = tuple(
                            doc.sentences[i]
                            for s in sets
                            for i in s.get("sentences", ())
                            if 0 <= i < len(doc.sentences)
                        )
                per_paper = DOCUMENTS_PER_PAPER.get(dataset, 1)
                claims.append(SearchClaim(int(row["id"]), claim, labels, rationale, per_paper))
    return CorpusIndex(documents), claims


@dataclass
class SearchTally:
    claims: int = 0
    contradicted_claims: int = 0  # claims the set labels REFUTE for some paper and SUPPORT for none
    contradicted_claims_cited: int = 0
    cited: int = 0
    cited_right: int = 0
    refused_contradicted: int = 0
    refused_on_evidence: int = 0  # ... on a sentence annotated as the evidence that contradicts
    refused_no_support: int = 0
    no_candidates: int = 0
    # Supports the judge found on a paper the search found, withheld because the excerpt does not
    # name every word the claim needs (`claim_found_by_search`), and of them those labelled SUPPORT.
    withheld: int = 0
    wrong_paper: int = 0  # wrong citations whose paper is not labelled supporting either
    withheld_labelled_supporting: int = 0
    wrong: list[dict[str, Any]] = field(default_factory=list)
    contradicted_refusals: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "claims": self.claims,
            "cited": self.cited,
            "cited_right": self.cited_right,
            "cited_wrong": len(self.wrong),
            "wrong_share": share(len(self.wrong), self.cited),
            # ... counted by the paper, not by the set's document (`DOCUMENTS_PER_PAPER`)
            "cited_wrong_paper": self.wrong_paper,
            "wrong_paper_share": share(self.wrong_paper, self.cited),
            "contradicted_claims": self.contradicted_claims,
            "contradicted_claims_cited": self.contradicted_claims_cited,
            "contradicted_claims_cited_share": share(
                self.contradicted_claims_cited, self.contradicted_claims
            ),
            "refused_contradicted": self.refused_contradicted,
            "refused_contradicted_on_evidence": self.refused_on_evidence,
            "refused_contradicted_on_evidence_share": share(
                self.refused_on_evidence, self.refused_contradicted
            ),
            "refused_no_support": self.refused_no_support,
            "no_candidates": self.no_candidates,
            "withheld": self.withheld,
            "withheld_labelled_supporting": self.withheld_labelled_supporting,
            "wrong_citations": self.wrong,
        }


def _refused_as_contradicted(
    item: SearchClaim, doc_id: int, against: ExcerptJudgement, tally: SearchTally
) -> None:
    on_evidence = item.labels.get(doc_id) == "REFUTE" and is_rationale(
        against.excerpt, item.rationale.get(doc_id, ())
    )
    tally.refused_contradicted += 1
    tally.refused_on_evidence += int(on_evidence)
    tally.contradicted_refusals.append(
        {
            "claim_id": item.claim_id,
            "claim": item.claim,
            "doc_id": doc_id,
            "label": item.labels.get(doc_id, "unlinked"),
            "on_evidence": on_evidence,
            "excerpt": against.excerpt,
            "reasons": list(against.reasons),
        }
    )


async def search_claim(
    item: SearchClaim, index: CorpusIndex, reasoner: ClaimReasoner, judge: ClaimJudge, tally: SearchTally
) -> None:
    """One claim through the search, the ranking and the evidence step (see the module docstring)."""
    tally.claims += 1
    labels = set(item.labels.values())
    contradicted = "REFUTE" in labels and "SUPPORT" not in labels
    tally.contradicted_claims += int(contradicted)
    extracted = await reasoner.extract_claim(item.claim, None)

    async def search(query: str, year_hint: int | None) -> list[Candidate]:
        return [Candidate.of(index.record(doc_id)) for doc_id in index.search(query)]

    ranking = await reasoner.rank_candidates(extracted, [], search)
    if not ranking.ranked:
        tally.no_candidates += 1
        return
    for candidate in ranking.ranked[:MAX_CANDIDATES_TRIED]:
        doc_id = int(candidate.record.source_id or 0)
        judged = await judge_evidence(extracted.assertion, index.paper(doc_id), reasoner, judge)
        verdict = judged.judgement
        if verdict.contradicting:
            _refused_as_contradicted(item, doc_id, verdict.contradicting[0], tally)
            return
        if verdict.supported and found_by_search_gaps(judged, candidate.record.title):
            tally.withheld += 1
            tally.withheld_labelled_supporting += int(item.labels.get(doc_id) == "SUPPORT")
            continue
        if verdict.supported:
            tally.cited += 1
            tally.contradicted_claims_cited += int(contradicted)
            label = item.labels.get(doc_id, "unlinked")
            if label == "SUPPORT":
                tally.cited_right += 1
            else:
                paper_label = item.paper_label(doc_id)
                tally.wrong_paper += int(paper_label != "SUPPORT")
                tally.wrong.append(
                    {
                        "claim_id": item.claim_id,
                        "claim": item.claim,
                        "doc_id": doc_id,
                        "title": candidate.record.title,
                        "label": label,
                        "paper_label": paper_label,
                        "excerpts": [j.excerpt for j in verdict.supporting],
                    }
                )
            return
    tally.refused_no_support += 1


def run_search(
    *,
    split: Split = "held_out",
    datasets: tuple[str, ...] = tuple(DATASETS),
    judge: ClaimJudge | None = None,
    reasoner: ClaimReasoner | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """The search-mode figures for one split, with every wrong citation listed."""
    judge = judge or RuleJudge()
    reasoner = reasoner or LexicalReasoner()
    figures: dict[str, Any] = {
        "mode": "search",
        "split": split,
        "judge": judge.name,
        "reasoner": reasoner.name,
        "sets": {},
    }
    started = time.perf_counter()
    for dataset in datasets:
        index, claims = load(dataset, split)
        if index is None:
            figures["sets"][dataset] = {"skipped": f"{DATASETS[dataset]} is absent"}
            continue
        tally = SearchTally()

        async def all_claims(chosen: list[SearchClaim], index: CorpusIndex, tally: SearchTally) -> None:
            for item in chosen:
                await search_claim(item, index, reasoner, judge, tally)

        asyncio.run(all_claims(claims[:limit] if limit else claims, index, tally))
        figures["sets"][dataset] = tally.as_json()
        figures["sets"][dataset]["contradicted_refusals"] = tally.contradicted_refusals
    figures["seconds"] = round(time.perf_counter() - started, 2)
    return figures


def format_search_report(figures: dict[str, Any]) -> str:
    lines = [
        f"claims bench, search mode, split {figures['split']}, judge {figures['judge']},"
        f" reasoner {figures['reasoner']} ({figures['seconds']} s)",
        "| set | claims | cited | cited, paper not labelled supporting (by the set's document; by paper)"
        " | contradicted claims cited"
        " | ContradictedClaim refusals on a labelled evidence sentence | NoSupportingExcerpts"
        " | supports withheld by the search rule (labelled supporting) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    listed: list[str] = []
    for dataset, sets in figures["sets"].items():
        if "skipped" in sets:
            lines.append(f"| {dataset} | skipped: {sets['skipped']} | | | | | | |")
            continue
        lines.append(
            f"| {dataset} | {sets['claims']} | {sets['cited']}"
            f" | {sets['cited_wrong']}/{sets['cited']} ({percent(sets['wrong_share'])});"
            f" by paper {sets['cited_wrong_paper']}/{sets['cited']} ({percent(sets['wrong_paper_share'])})"
            f" | {sets['contradicted_claims_cited']}/{sets['contradicted_claims']}"
            f" ({percent(sets['contradicted_claims_cited_share'])})"
            f" | {sets['refused_contradicted_on_evidence']}/{sets['refused_contradicted']}"
            f" ({percent(sets['refused_contradicted_on_evidence_share'])})"
            f" | {sets['refused_no_support']}"
            f" | {sets['withheld']} ({sets['withheld_labelled_supporting']}) |"
        )
        for case in sets["wrong_citations"]:
            listed.append(
                f"- {dataset} claim {case['claim_id']} -> doc {case['doc_id']} ({case['label']};"
                f" its paper {case['paper_label']}):"
                f" {case['claim']!r} quoted with {case['excerpts'][0]!r}"
            )
    if listed:
        lines += ["", "citations whose paper is not labelled as supporting the claim:", *listed]
    return "\n".join(lines)


def write_cases(figures: dict[str, Any], path: Path) -> None:
    """Every wrong citation and every contradiction refusal, one JSON line each, to read case by case."""
    rows = []
    for dataset, sets in figures["sets"].items():
        for kind in ("wrong_citations", "contradicted_refusals"):
            rows += [{"dataset": dataset, "kind": kind, **case} for case in sets.get(kind, ())]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
