"""Claims benchmark: the lexical evidence path on SciFact and Citation-Integrity, PDF text extraction
speed, and `aletheia check` on a 10,000-file repository.

    python bench/claims_bench.py [--out bench/out/claims.json] [--split dev]

Reads ../shared/data (skips a section whose data is absent). No network, no model.

1. Evidence (SciFact, Citation-Integrity; claims against the abstract they cite): Aletheia's
   deterministic path *accepts* a (claim, abstract) pair when the abstract is a plausible
   candidate (at least half of the claim's content terms in it, the ranking gate) and at least one
   proposed excerpt passes the verbatim check (the evidence gate). Reported:
   - supported claims: how often the proposed excerpts include a gold rationale sentence
     (`rationale_hit`), and how often the pair is accepted at all;
   - contradicted claims (label REFUTE) against their own abstract: how often it is wrongly
     accepted;
   - claims whose abstract is not the right one: the cited abstract of a claim with no evidence in
     it (SciFact's NEI), a random other abstract of the corpus, and the most similar other abstract
     (the non-cited document holding most of the claim's terms): how often wrongly accepted.
2. PDF text (model-free path, pypdfium2): pages per second in one worker process, no cache.
3. `check_citations` on a generated repository of 10,000 files (200 of them citing 50 artifacts).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from aletheia.bench.claims_bench import clean_claim  # noqa: E402
from aletheia.core.excerpts import PaperText, TextBlock, match_key  # noqa: E402
from aletheia.core.lexical_ranking import content_terms  # noqa: E402
from aletheia.pipeline.claims.reasoner import LexicalReasoner  # noqa: E402


@dataclass
class Rate:
    hits: int = 0
    total: int = 0

    def add(self, hit: bool) -> None:
        self.total += 1
        self.hits += int(hit)

    def as_dict(self) -> dict[str, Any]:
        share = self.hits / self.total if self.total else None
        return {"rate": round(share, 4) if share is not None else None, "n": self.total, "hits": self.hits}


@dataclass
class EvidenceResult:
    rationale_hit: Rate = field(default_factory=Rate)
    supported_accepted: Rate = field(default_factory=Rate)
    refuted_accepted: Rate = field(default_factory=Rate)
    nei_accepted: Rate = field(default_factory=Rate)
    random_wrong_accepted: Rate = field(default_factory=Rate)
    nearest_wrong_accepted: Rate = field(default_factory=Rate)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            name: getattr(self, name).as_dict() for name in self.__dataclass_fields__ if name != "seconds"
        } | {"seconds": round(self.seconds, 2)}


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _paper(doc: dict[str, Any]) -> PaperText:
    return PaperText(
        blocks=(TextBlock(text=" ".join(doc["abstract"]), section="Abstract"),), origin="abstract"
    )


async def _judge(reasoner: LexicalReasoner, claim: str, doc: dict[str, Any]) -> tuple[bool, list[str]]:
    """(accepted, proposed excerpts) for a claim against one abstract, as the pipeline decides."""
    from aletheia.core.excerpts import locate_excerpt
    from aletheia.core.lexical_ranking import coverage

    terms = list(dict.fromkeys(content_terms(claim)))
    relevance = coverage(terms, f"{doc.get('title') or ''} {' '.join(doc['abstract'])}")
    paper = _paper(doc)
    proposals = await reasoner.propose_excerpts(claim, paper)
    verified = [p for p in proposals if locate_excerpt(p, paper) is not None]
    return relevance >= reasoner.min_relevance and bool(verified), verified


def _includes_gold(proposals: list[str], doc: dict[str, Any], sentence_ids: set[int]) -> bool:
    gold = [match_key(doc["abstract"][i]) for i in sentence_ids if i < len(doc["abstract"])]
    keys = [match_key(p) for p in proposals]
    return any(g and (g in k or k in g) for g in gold for k in keys)


async def evidence_benchmark(claims_path: Path, corpus_path: Path, seed: int = 7) -> EvidenceResult:
    started = time.perf_counter()
    corpus = {doc["doc_id"]: doc for doc in _jsonl(corpus_path)}
    doc_terms = {
        doc_id: set(content_terms(doc.get("title", "") + " " + " ".join(doc["abstract"])))
        for doc_id, doc in corpus.items()
    }
    ids = sorted(corpus)
    rng = random.Random(seed)
    reasoner = LexicalReasoner()
    result = EvidenceResult()
    for row in _jsonl(claims_path):
        claim = clean_claim(row["claim"])
        cited = [doc_id for doc_id in row.get("cited_doc_ids", []) if doc_id in corpus]
        evidence = {int(k): v for k, v in row.get("evidence", {}).items()}
        for doc_id, sets in evidence.items():
            if doc_id not in corpus:
                continue
            doc = corpus[doc_id]
            accepted, proposals = await _judge(reasoner, claim, doc)
            label = sets[0]["label"]
            if label == "SUPPORT":
                gold = {i for s in sets for i in s["sentences"]}
                result.supported_accepted.add(accepted)
                result.rationale_hit.add(_includes_gold(proposals, doc, gold))
            elif label in ("REFUTE", "CONTRADICT"):
                result.refuted_accepted.add(accepted)
        for doc_id in cited:
            if doc_id not in evidence:
                result.nei_accepted.add((await _judge(reasoner, claim, corpus[doc_id]))[0])
        if not cited:
            continue
        wrong = rng.choice(ids)
        while wrong in cited:
            wrong = rng.choice(ids)
        result.random_wrong_accepted.add((await _judge(reasoner, claim, corpus[wrong]))[0])
        terms = set(content_terms(claim))
        nearest = max((d for d in ids if d not in cited), key=lambda d: (len(terms & doc_terms[d]), -d))
        result.nearest_wrong_accepted.add((await _judge(reasoner, claim, corpus[nearest]))[0])
    result.seconds = time.perf_counter() - started
    return result


def pdf_benchmark(directory: Path) -> dict[str, Any]:
    from aletheia.config import Settings
    from aletheia.pipeline.documents.fulltext import convert_document

    files = sorted(directory.glob("**/*.pdf"))
    per_file: list[dict[str, Any]] = []
    pages = 0
    seconds = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch), docling_artifacts_path=None)
        for path in files:
            data = path.read_bytes()
            started = time.perf_counter()
            paper = convert_document(data, "pdf", settings=settings, cache_dir=Path(scratch) / path.stem)
            took = time.perf_counter() - started
            pages += paper.pages or 0
            seconds += took
            per_file.append({"file": path.name, "pages": paper.pages, "seconds": round(took, 4)})
    return {
        "files": len(per_file),
        "pages": pages,
        "seconds": round(seconds, 3),
        "pages_per_second_per_worker": round(pages / seconds, 1) if seconds else None,
        "per_file": per_file,
    }


def check_benchmark(
    files: int = 10_000, artifacts: int = 50, citing: int = 200, runs: int = 5
) -> dict[str, Any]:
    from aletheia.pipeline.artifact_checks.link_check import check_citations

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        slugs = _write_artifacts(root, artifacts)
        filler = "def f(x):\n    return x + 1\n" * 20
        for n in range(files - artifacts):
            folder = root / "src" / f"pkg{n % 100}"
            folder.mkdir(parents=True, exist_ok=True)
            text = filler
            if n < citing:
                text = (
                    f"# research(2026-05): claim {n}\n"  # aletheia-check: ignore
                    f"# see docs/citations/{slugs[n % artifacts]}.md\n" + filler
                )
            (folder / f"module{n}.py").write_text(text, encoding="utf-8")
        timings = []
        report = None
        for _ in range(runs):
            report = check_citations(root)
            timings.append(report.seconds)
        assert report is not None and report.ok, report.problems[:3] if report else None
        return {
            "files": report.files_scanned,
            "references": report.references,
            "artifacts": report.artifacts_checked,
            "seconds_median": round(statistics.median(timings), 3),
            "seconds_max": round(max(timings), 3),
            "runs": runs,
        }


def _write_artifacts(root: Path, artifacts: int) -> list[str]:
    """`artifacts` citation artifacts of synthetic works under `root`; their slugs."""
    from aletheia.core.artifacts import CitationArtifact, Excerpt, Triangulation, frontmatter_from_record
    from aletheia.core.records import Author, SourceName, WorkRecord
    from aletheia.core.render import body_from_record
    from aletheia.pipeline.claims.verify_and_cite import write_citation_artifact

    slugs = []
    for n in range(artifacts):
        work = WorkRecord(
            source=SourceName.SEMANTIC_SCHOLAR,
            title=f"Synthetic Work Number {n}",
            authors=(Author(given="Ada", family=f"Author{n}"),),
            year=2024,
            doi=f"10.5555/bench.{n}",
            abstract="An abstract.",
        )
        front = frontmatter_from_record(
            work,
            sources_consulted=[SourceName.SEMANTIC_SCHOLAR, SourceName.OPENALEX],
            triangulation=Triangulation(
                primary_source=SourceName.SEMANTIC_SCHOLAR,
                secondary_source=SourceName.OPENALEX,
                decisive_fields_agreed=True,
            ),
            verified_at=datetime.now(UTC),
            verification_version="1.0",
            claim_supported="A claim.",
        )
        body = body_from_record(work, [Excerpt(text="An abstract.", location="Abstract")])
        path = write_citation_artifact(root, CitationArtifact(frontmatter=front, body=body))
        slugs.append(path.stem)
    return slugs


def main() -> None:
    import asyncio

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "claims.json")
    parser.add_argument("--split", default="dev", choices=["train", "dev", "test"])
    args = parser.parse_args()
    results: dict[str, Any] = {"command": " ".join(["python", *sys.argv]), "split": args.split}
    datasets = {
        "scifact": (SHARED / "benchmarks" / "scifact", "claims_{}.jsonl", "corpus.jsonl"),
        "citation_integrity": (
            SHARED / "benchmarks" / "citation-integrity" / "data" / "citint",
            "claims_{}.jsonl",
            "corpus.jsonl",
        ),
    }
    for name, (folder, claims, corpus) in datasets.items():
        claims_path = folder / claims.format(args.split)
        if not claims_path.is_file():
            print(f"{name}: skipped ({claims_path} is absent)")
            continue
        outcome = asyncio.run(evidence_benchmark(claims_path, folder / corpus))
        results[name] = outcome.as_dict()
        print(name, json.dumps(results[name], indent=1))
    pdfs = SHARED / "documents" / "arxiv-pdfs"
    if pdfs.is_dir():
        results["pdf_text"] = pdf_benchmark(pdfs)
        print("pdf_text", {k: v for k, v in results["pdf_text"].items() if k != "per_file"})
    else:
        print("pdf_text: skipped (no arxiv-pdfs)")
    results["check"] = check_benchmark()
    print("check", results["check"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
