"""The embedded pipeline against the loopback simulator: a universe of varied works, the references
that cite them (and some that cite nothing), settings with small timeouts, and a run.

Used by the fault, audit and hostile-input tests; no Redis or PostgreSQL needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.reports.formats import CollectingSink
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.verify import verify_to_sink
from aletheia.sources.simulator import SimulatorServer, SimWork, Universe

TOPICS = (
    "glacier retreat", "protein folding", "urban heat islands", "coral bleaching", "soil microbiomes",
    "tidal energy", "language acquisition", "graph sparsification", "sleep spindles", "bird migration",
)  # fmt: skip
SURNAMES = ("Okafor", "Lindqvist", "Haddad", "Moreau", "Tanaka", "Kowalczyk", "Ribeiro", "Nguyen", "Adeyemi")

# Generous limits: the simulator runs unlimited, so our own buckets must not be what is measured.
FAST_LIMITS = SourceLimits(rate=2000, burst=200, concurrency=32, search_rate=2000)


def work_record(i: int, kind: str) -> dict[str, Any]:
    """Work number `i` of one of four kinds: `doi` (Crossref, OpenAlex, S2), `arxiv` (arXiv, S2),
    `pmid` (PubMed, OpenAlex, Crossref via its DOI), `search` (no identifier: OpenAlex and S2 only,
    found by title search)."""
    topic = TOPICS[i % len(TOPICS)]
    record: dict[str, Any] = {
        "title": f"Seasonal variation in {topic}: evidence from cohort {i} of the northern survey",
        "authors": [
            {"given": "Imani", "family": f"{SURNAMES[i % len(SURNAMES)]}{i}"},
            {"given": "Jonas", "family": SURNAMES[(i + 3) % len(SURNAMES)]},
        ],
        "year": 2001 + i % 22,
        "venue": "Journal of Field Observations",
    }
    if kind == "doi":
        record["doi"] = f"10.5555/fault.{i}"
    elif kind == "arxiv":
        record["arxiv_id"] = f"21{i % 12 + 1:02d}.{10000 + i:05d}"
        record["type"] = "posted-content"
        record["venue"] = None
    elif kind == "pmid":
        record["pmid"] = str(30_000_000 + i)
        record["doi"] = f"10.5555/med.{i}"
        record["sources"] = ["pubmed", "openalex", "crossref", "semantic_scholar"]
    elif kind == "search":
        record["type"] = "proceedings-article"
        record["venue"] = "Workshop on Field Methods"
        record["sources"] = ["openalex", "semantic_scholar"]
    else:
        raise ValueError(kind)
    return record


KINDS = ("doi", "doi", "arxiv", "pmid", "search")


def make_works(count: int) -> list[dict[str, Any]]:
    return [work_record(i, KINDS[i % len(KINDS)]) for i in range(count)]


def cite(record: dict[str, Any], key: str) -> CitedReference:
    """The reference a careful author writes for `record`: every field right."""
    authors = tuple(Author(given=a["given"], family=a["family"]) for a in record["authors"])
    return CitedReference(
        key=key,
        entry_type="article",
        title=record["title"],
        authors=authors,
        year=record["year"],
        venue=record.get("venue"),
        doi=record.get("doi"),
        arxiv_id=record.get("arxiv_id"),
        pmid=record.get("pmid"),
        origin=f"test:{key}",
    )


def invented(i: int) -> CitedReference:
    """A reference to nothing: an invented DOI on an invented title (or no identifier at all)."""
    title = f"Quantum entanglement of breakfast cereals under lunar gravity, part {i}"
    authors = (Author(given="Ann", family=f"Nobody{i}"),)
    if i % 2:
        return CitedReference(key=f"fake{i}", title=title, authors=authors, year=2015, origin=f"test:fake{i}")
    return CitedReference(
        key=f"fake{i}",
        title=title,
        authors=authors,
        year=2015,
        doi=f"10.5555/invented.{i}",
        origin=f"test:fake{i}",
    )


def references(works: list[dict[str, Any]], invented_count: int) -> list[CitedReference]:
    refs = [cite(w, f"ref{i}") for i, w in enumerate(works)]
    refs += [invented(j) for j in range(invented_count)]
    return refs


def universe(works: Iterable[dict[str, Any]]) -> Universe:
    return Universe([SimWork.model_validate(w) for w in works])


def sim_settings(tmp_path: Path, sim: SimulatorServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": f"sqlite:///{tmp_path / 'aletheia.sqlite3'}",
        "crossref_url": sim.url_for("crossref"),
        "openalex_url": sim.url_for("openalex"),
        "semantic_scholar_url": sim.url_for("semantic_scholar"),
        "arxiv_api_url": sim.url_for("arxiv_api"),
        "arxiv_url": sim.url_for("arxiv"),
        "pubmed_url": sim.url_for("pubmed"),
        "dblp_url": sim.url_for("dblp"),
        "acl_anthology_url": sim.url_for("acl_anthology"),
        **{f"{s}_url": sim.url_for(s) for s in ("open_library", "google_books", "perseus", "ccel")},
        "mailto": "tests@example.org",
        "http_timeout": 0.5,
        "http_attempts": 4,
        "circuit_failure_threshold": 5,
        "circuit_reset_seconds": 0.3,
        "coalesce_window_ms": 2.0,
        **{
            f"{s}_limits": FAST_LIMITS
            for s in (
                *("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp", "acl_anthology"),
                *("open_library", "google_books", "perseus", "ccel"),
            )
        },
        "pubmed_limits_with_key": FAST_LIMITS,
        # The universe's open-access links name hosts outside the simulator: never fetched here.
        "oa_fulltext": False,
    }
    values.update(overrides)
    return Settings(**values)


class ReportSummary(dict[str, Any]):
    """The summary `aletheia verify` printed (its job's report summary), read as attributes."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_json(self) -> dict[str, Any]:
        return dict(self)


@dataclass
class Run:
    runtime: Runtime
    summary: ReportSummary
    references: list[dict[str, Any]]
    document: dict[str, Any]


def run_embedded(
    settings: Settings,
    refs: Iterable[CitedReference | InputProblem],
    *,
    concurrency: int = 32,
    bundled: bool = False,
) -> Run:
    """`aletheia verify` in-process: the same `verify_to_sink` the CLI calls."""
    if not bundled:
        # The bundled snapshot of real records would only slow the first run down.
        original = Runtime.ensure_bundled_snapshot
        Runtime.ensure_bundled_snapshot = lambda self: None  # type: ignore[method-assign]
    try:
        runtime = Runtime.open(settings)
    finally:
        if not bundled:
            Runtime.ensure_bundled_snapshot = original  # type: ignore[method-assign]
    sink = CollectingSink()
    run = verify_to_sink(runtime, refs, sink, input_description={"inputs": ["test"]}, concurrency=concurrency)
    return Run(
        runtime=runtime,
        summary=ReportSummary(run.summary),
        references=sink.references,
        document=sink.document(),
    )
