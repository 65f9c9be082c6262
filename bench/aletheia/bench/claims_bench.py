"""`aletheia bench claims`: is a claim cited only when its paper's own words support it? (issue 19)

Two sets of real, expert-labelled (claim, paper) pairs from `../shared/data/benchmarks/`:

- SciFact: claims labelled SUPPORT / CONTRADICT (REFUTE) against a cited abstract, with the
  rationale sentences annotated; a cited abstract with no evidence is NEI.
- Citation-Integrity: real citing sentences (markers removed) against the cited paper's sentences,
  SUPPORT / REFUTE.

Each pair goes through the claim's evidence step exactly as `aletheia cite CLAIM --paper ID` runs it
on a paper whose only readable text is what the set gives (the abstract, or the cited sentences):
the reasoner's quotes located verbatim, the paper's sentences that speak to the claim, every one
judged (`claim_judge.judge_evidence`). A pair is *cited* when the judgement supports the claim.

Figures, per set and split: contradicted pairs cited (the bound is 2%), supported pairs cited, NEI
pairs cited, and of the supported pairs cited, how often a supporting excerpt is an annotated
rationale sentence. The `held_out` split is each set's `claims_test.jsonl`, never looked at while
the rules were written; `dev` is train + dev.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from aletheia.bench.common import SHARED_DATA, machine
from aletheia.core.excerpts import PaperText, TextBlock, match_key
from aletheia.pipeline.claims.judge import ClaimJudge, RuleJudge, judge_evidence
from aletheia.pipeline.claims.reasoner import ClaimReasoner, LexicalReasoner

Split = Literal["dev", "held_out"]
SPLIT_FILES: Final[dict[str, tuple[str, ...]]] = {
    "dev": ("claims_train.jsonl", "claims_dev.jsonl"),
    "held_out": ("claims_test.jsonl",),
}
DATASETS: Final = {
    "scifact": SHARED_DATA / "benchmarks" / "scifact",
    "citation_integrity": SHARED_DATA / "benchmarks" / "citation-integrity" / "data" / "citint",
}
# Citation-Integrity's citing sentences hold markers for the citations: `[<|cit|>]`, `(<|multi_cit|>)`.
_MARKERS: Final = re.compile(r"\[?\(?<\|[a-z_]+\|>\)?\]?|\(\s*\)|\[\s*[,\s\d]*\]")


def clean_claim(text: str) -> str:
    return re.sub(r"\s+", " ", _MARKERS.sub("", text)).strip().rstrip(" ,;")


@dataclass(frozen=True)
class Pair:
    dataset: str
    claim_id: int
    claim: str
    doc_id: int
    label: str  # SUPPORT | REFUTE | NEI
    rationale: tuple[str, ...]  # annotated sentences (SciFact and Citation-Integrity)
    sentences: tuple[str, ...]  # the paper's text the set gives
    title: str = ""


def read_corpus(folder: Path) -> dict[int, dict[str, Any]]:
    """The set's documents (`corpus.jsonl`) by doc id."""
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        return {int(row["doc_id"]): row for row in map(json.loads, handle)}


def load_pairs(dataset: str, split: Split) -> list[Pair]:
    """Every (claim, cited document) pair of the split; empty when the data is absent."""
    folder = DATASETS[dataset]
    if not (folder / "corpus.jsonl").is_file():
        return []
    corpus = read_corpus(folder)
    pairs: list[Pair] = []
    for name in SPLIT_FILES[split]:
        with (folder / name).open(encoding="utf-8") as handle:
            for row in map(json.loads, handle):
                claim = clean_claim(row["claim"])
                evidence = row.get("evidence") or {}
                for doc_id in row.get("cited_doc_ids") or []:
                    doc = corpus.get(int(doc_id))
                    if doc is None or not claim:
                        continue
                    sets = evidence.get(str(doc_id)) or []
                    labels = {s["label"] for s in sets}
                    label = "NEI" if not labels else ("REFUTE" if "REFUTE" in labels else "SUPPORT")
                    sentences = tuple(doc.get("abstract") or ())
                    rationale = tuple(
                        sentences[i] for s in sets for i in s.get("sentences", ()) if 0 <= i < len(sentences)
                    )
                    pairs.append(
                        Pair(
                            dataset,
                            int(row["id"]),
                            claim,
                            int(doc_id),
                            label,
                            rationale,
                            sentences,
                            doc.get("title") or "",
                        )
                    )
    return pairs


def abstract_paper(sentences: tuple[str, ...]) -> PaperText:
    """The set's text as the pipeline sees an abstract-only paper (one block, section Abstract)."""
    return PaperText(
        blocks=(TextBlock(text=" ".join(sentences), section="Abstract", paragraph=1),), origin="abstract"
    )


def paper_of(pair: Pair) -> PaperText:
    return abstract_paper(pair.sentences)


@dataclass
class Tally:
    pairs: Counter[str] = field(default_factory=Counter)
    cited: Counter[str] = field(default_factory=Counter)
    refused_contradicted: Counter[str] = field(default_factory=Counter)
    # Contradicted pairs refused on a sentence the set annotates as the evidence against the claim.
    refused_on_evidence: int = 0
    rationale_hits: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for label in ("REFUTE", "SUPPORT", "NEI"):
            total = self.pairs[label]
            cited = self.cited[label]
            out[label] = {
                "pairs": total,
                "cited": cited,
                "cited_share": round(cited / total, 4) if total else None,
                "refused_as_contradicted": self.refused_contradicted[label],
            }
        refused = self.refused_contradicted["REFUTE"]
        out["REFUTE"]["refused_on_evidence"] = self.refused_on_evidence
        out["REFUTE"]["refused_on_evidence_share"] = (
            round(self.refused_on_evidence / refused, 4) if refused else None
        )
        supported_cited = self.cited["SUPPORT"]
        out["SUPPORT"]["rationale_hits"] = self.rationale_hits
        out["SUPPORT"]["rationale_share"] = (
            round(self.rationale_hits / supported_cited, 4) if supported_cited else None
        )
        return out


def is_rationale(excerpt: str, rationale: tuple[str, ...]) -> bool:
    key = match_key(excerpt)
    return any(key in match_key(r) or match_key(r) in key for r in rationale)


async def _run_pairs(pairs: list[Pair], reasoner: ClaimReasoner, judge: ClaimJudge, tally: Tally) -> None:
    for pair in pairs:
        judged = await judge_evidence(pair.claim, paper_of(pair), reasoner, judge)
        verdict = judged.judgement
        tally.pairs[pair.label] += 1
        if verdict.contradicting:
            tally.refused_contradicted[pair.label] += 1
            if pair.label == "REFUTE" and is_rationale(verdict.contradicting[0].excerpt, pair.rationale):
                tally.refused_on_evidence += 1
        if verdict.supported:
            tally.cited[pair.label] += 1
            if pair.label == "SUPPORT" and any(
                is_rationale(j.excerpt, pair.rationale) for j in verdict.supporting
            ):
                tally.rationale_hits += 1
            if pair.label == "REFUTE":
                tally.misses.append(
                    {
                        "dataset": pair.dataset,
                        "claim_id": pair.claim_id,
                        "claim": pair.claim,
                        "supporting": [j.excerpt for j in verdict.supporting],
                    }
                )


def pair_stream(split: Split, datasets: tuple[str, ...]) -> Iterator[tuple[str, list[Pair]]]:
    for dataset in datasets:
        yield dataset, load_pairs(dataset, split)


def run(
    *,
    split: Split = "held_out",
    datasets: tuple[str, ...] = tuple(DATASETS),
    judge: ClaimJudge | None = None,
    reasoner: ClaimReasoner | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """The figures for one split (see the module docstring)."""
    judge = judge or RuleJudge()
    reasoner = reasoner or LexicalReasoner()
    figures: dict[str, Any] = {"split": split, "judge": judge.name, "reasoner": reasoner.name, "sets": {}}
    started = time.perf_counter()
    misses: list[dict[str, Any]] = []
    for dataset, pairs in pair_stream(split, datasets):
        if not pairs:
            figures["sets"][dataset] = {"skipped": f"{DATASETS[dataset]} is absent"}
            continue
        tally = Tally()
        asyncio.run(_run_pairs(pairs[:limit] if limit else pairs, reasoner, judge, tally))
        figures["sets"][dataset] = tally.as_json()
        misses.extend(tally.misses)
    figures["seconds"] = round(time.perf_counter() - started, 2)
    figures["contradicted_cited"] = misses
    figures["machine"] = machine()
    return figures


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def format_report(figures: dict[str, Any]) -> str:
    lines = [
        f"claims bench, split {figures['split']}, judge {figures['judge']}, reasoner {figures['reasoner']}"
        f" ({figures['seconds']} s)",
        "| set | contradicted pairs cited | supported pairs cited | rationale among cited | NEI cited"
        " | supported refused as contradicted | contradicted refused on a labelled evidence sentence |",
        "|---|---|---|---|---|---|---|",
    ]
    for dataset, sets in figures["sets"].items():
        if "skipped" in sets:
            lines.append(f"| {dataset} | skipped: {sets['skipped']} | | | | | |")
            continue
        refute, support, nei = sets["REFUTE"], sets["SUPPORT"], sets["NEI"]
        wrongly_refused = support["refused_as_contradicted"] / support["pairs"] if support["pairs"] else None
        lines.append(
            f"| {dataset} | {refute['cited']}/{refute['pairs']} ({percent(refute['cited_share'])})"
            f" | {support['cited']}/{support['pairs']} ({percent(support['cited_share'])})"
            f" | {support['rationale_hits']}/{support['cited']} ({percent(support['rationale_share'])})"
            f" | {nei['cited']}/{nei['pairs']} ({percent(nei['cited_share'])})"
            f" | {support['refused_as_contradicted']}/{support['pairs']}"
            f" ({percent(wrongly_refused)})"
            f" | {refute['refused_on_evidence']}/{refute['refused_as_contradicted']}"
            f" ({percent(refute['refused_on_evidence_share'])}) |"
        )
    return "\n".join(lines)
