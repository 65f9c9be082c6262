"""The two source sets of the formats bench (`formats_bench`), each with the universe its own
benchmark builds: `iclr` (the author-written ICLR 2026 references, as `aletheia bench realbib
--iclr` derives their universe) and `hallmark` (HALLMARK dev, the entries that parse on their own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aletheia.bench.common import DataMissing
from aletheia.bench.formats_render import reference_bibtex
from aletheia.bench.hallmark_bench import DATASET, build_universe, entry_bibtex, load, parse_entries
from aletheia.bench.iclr_bench import derived_universe
from aletheia.bench.iclr_reader import ICLR_DIR, read_all

__all__ = ["SETS", "SourceSet", "hallmark_set", "iclr_set"]

SETS = ("iclr", "hallmark")


@dataclass
class SourceSet:
    """One set ready to render and verify: `.bib` entries in order, what each entry is, and the
    simulator universe its own benchmark builds."""

    name: str
    entries: list[tuple[str, str]]  # (key, BibTeX entry)
    labels: dict[str, str]  # key -> "genuine" or the planted error's type
    titles: dict[str, str]
    records: list[dict[str, Any]]
    concurrency: int
    notes: dict[str, Any] = field(default_factory=dict)


def iclr_set(limit: int | None, seed: int = 10) -> SourceSet:
    if not (ICLR_DIR / "papers").is_dir():
        raise DataMissing(f"the ICLR 2026 bibliographies are not at {ICLR_DIR}")
    gold = read_all(ICLR_DIR)[:limit] if limit else read_all(ICLR_DIR)
    # The universe exactly as `aletheia bench realbib --iclr` builds it (same seed, same noise).
    _, _, records, info = derived_universe(gold, seed)
    return SourceSet(
        name="iclr",
        entries=[(r.key, reference_bibtex(r, r.key)) for r in gold],
        labels=dict.fromkeys((r.key for r in gold), "genuine"),
        titles={r.key: r.title or "" for r in gold},
        records=records,
        concurrency=32,
        notes={"seed": seed, "non_scholarly": len(info["non_scholarly"]), "real_record": len(info["real"])},
    )


def hallmark_set(limit: int | None) -> SourceSet:

    if not DATASET.is_file():
        raise DataMissing(f"HALLMARK dev is not at {DATASET}")
    entries = load(DATASET)[:limit] if limit else load(DATASET)
    records, _ = build_universe(entries)
    _, problems = parse_entries(entries)
    kept = [e for e in entries if e["bibtex_key"] not in problems]
    return SourceSet(
        name="hallmark",
        entries=[(e["bibtex_key"], entry_bibtex(e)) for e in kept],
        labels={
            e["bibtex_key"]: "genuine" if e["label"] == "VALID" else e["hallucination_type"] for e in kept
        },
        titles={e["bibtex_key"]: e["fields"].get("title", "") for e in kept},
        records=records,
        concurrency=64,
        notes={"left_out_input_problems": len(problems)},
    )
