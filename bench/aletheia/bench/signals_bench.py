"""Issue 13: how often the integrity signals fire on real data (`aletheia bench signals`).

Nearly everything in ../shared/data is genuine, published work, so every `ai_generated_suspect`
here is a false alarm to be read by hand; the figure must stay near zero. Measured on:

- the real papers of `documents/`: the 49 unarXive full texts (title, abstract, body and section
  headings as unarXive gives them), the arXiv/ACL PDFs and the one-paper-many-formats PDFs and text
  (pypdfium2 text, headings as `pdf_reading` finds them);
- the real bibliographies: HALLMARK's 1,119 entries and the ICLR 2026 references (titles), and
  every recorded source record with a title (Crossref, OpenAlex, Semantic Scholar, ... in
  `api-samples/` and the ICLR `api_cache/`), with its abstract where the record has one.

Each indicator is counted on its own too (a theory paper without a methods section is common and
must not fire alone), with the matched phrases listed for reading.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aletheia.bench.common import SHARED_DATA, json_objects, machine
from aletheia.core.paper_mill import (
    MIN_SECTIONS,
    WorkText,
    ai_generated_signal,
    has_methods_section,
    other_indicators,
)
from aletheia.core.records import CitedReference
from aletheia.core.signals import CitedWork, cohort_signal
from aletheia.core.tortured import tortured_table

DOCUMENTS = SHARED_DATA / "documents"
BENCHMARKS = SHARED_DATA / "benchmarks"


class _Tally:
    """Counts over one corpus: items, fired, each indicator, the phrases seen."""

    def __init__(self) -> None:
        self.items = 0
        self.fired: list[str] = []
        self.indicators: Counter[str] = Counter()
        self.phrases: Counter[str] = Counter()
        self.with_headings = 0
        self.no_methods: list[str] = []
        # Items where an indicator other than authorship held: for a cited work's title and
        # abstract, those whose authors `pipeline/authorship.py` would ask OpenAlex about.
        self.other_indicator = 0

    def add(self, name: str, text: WorkText) -> None:
        self.items += 1
        signal = ai_generated_signal(text)
        for part in text.parts.values():
            for m in tortured_table().find(part):
                self.phrases[m.phrase] += 1
        if any(tortured_table().find(p) for p in text.parts.values()):
            self.indicators["tortured_phrases"] += 1
        if text.headings is not None and len(text.headings) >= MIN_SECTIONS:
            self.with_headings += 1
            if not has_methods_section(text.headings):
                self.indicators["no_methods_section"] += 1
                self.no_methods.append(name)
        if signal is not None:
            self.fired.append(name)
        if other_indicators(text):
            self.other_indicator += 1

    def figures(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "fired": len(self.fired),
            "fired_rate": round(len(self.fired) / (self.items or 1), 4),
            "fired_on": self.fired,
            "indicator_alone": dict(self.indicators),
            "with_section_headings": self.with_headings,
            "no_methods_section_on": self.no_methods,
            "phrases_seen": dict(self.phrases.most_common()),
            "other_indicator_held": self.other_indicator,
        }


def _headings(sections: Iterator[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.strip() for s in sections if s and s.strip()))


def unarxive_papers(base: Path = DOCUMENTS) -> Iterator[tuple[str, WorkText]]:
    path = base / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            paper = json.loads(line)
            abstract = paper.get("abstract") or {}
            body = paper.get("body_text") or []
            parts = {
                "title": str((paper.get("metadata") or {}).get("title") or ""),
                "abstract": str(abstract.get("text") or "") if isinstance(abstract, dict) else str(abstract),
                "full_text": "\n".join(str(p.get("text") or "") for p in body),
            }
            yield (
                f"arXiv:{paper.get('paper_id')}",
                WorkText(
                    parts={k: v for k, v in parts.items() if v},
                    headings=_headings(p.get("section") for p in body),
                ),
            )


def full_text_documents(base: Path = DOCUMENTS) -> Iterator[tuple[str, WorkText]]:
    """The PDFs and text papers, read as a bibliography job reads a full-text input: the text the
    input parsers extract for the references (`iter_references(on_text=...)`: pypdfium2 for PDFs),
    then `document_signals.body_of` (body before the References heading, detected headings)."""
    from aletheia.config import get_settings
    from aletheia.core.bibliography import InputError
    from aletheia.pipeline.documents.inputs import NoReferencesFound, iter_references
    from aletheia.pipeline.documents.signals import FULL_TEXT_SUFFIXES, body_of

    settings = get_settings()
    folders = (base / "arxiv-pdfs", base / "one-paper-many-formats")
    paths = sorted(
        p
        for folder in folders
        if folder.is_dir()
        for p in folder.rglob("*")
        if p.suffix.lower() in FULL_TEXT_SUFFIXES and not p.name.startswith(("SOURCE", "LICENSE"))
    )
    for path in paths:
        check = _TextKept()
        try:
            for _ in iter_references([path], max_bytes=settings.max_input_bytes, on_text=check.observe):
                pass
        except NoReferencesFound:
            pass  # a paper without a reference list is still a paper: its text was seen
        except InputError:
            continue  # unreadable as an input: `aletheia verify` would refuse it, nothing to check
        work = body_of(check.text) if check.text is not None else None
        if work is not None:
            yield path.name, work


class _TextKept:
    """The text the input parsers hand over (the bench keeps it to report what was read)."""

    text: str | None = None

    def observe(self, _name: str, text: str) -> None:
        self.text = text


def _records(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object with a title in a recorded response (Crossref's title is a list)."""
    return (obj for obj in json_objects(node) if obj.get("title"))


def _abstract(record: dict[str, Any]) -> str:
    inverted = record.get("abstract_inverted_index")
    if isinstance(inverted, dict):
        at = sorted((i, word) for word, places in inverted.items() for i in places if isinstance(i, int))
        return " ".join(word for _, word in at)
    value = record.get("abstract")
    return value if isinstance(value, str) else ""


def recorded_records(base: Path = SHARED_DATA) -> Iterator[tuple[str, WorkText]]:
    folders = (base / "api-samples", BENCHMARKS / "iclr2026-real-bibliographies" / "api_cache")
    seen: set[str] = set()
    for path in sorted(p for folder in folders if folder.is_dir() for p in folder.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        for record in _records(data):
            title = record["title"]
            title = " ".join(title) if isinstance(title, list) else str(title)
            abstract = _abstract(record)
            key = (title + abstract[:80]).casefold()
            if key in seen:
                continue
            seen.add(key)
            parts = {"title": title, **({"abstract": abstract} if abstract else {})}
            yield f"{path.parent.name}/{path.name}: {title[:80]}", WorkText(parts=parts)


def bibliography_titles(base: Path = BENCHMARKS) -> Iterator[tuple[str, WorkText]]:
    hallmark = base / "hallmark-dev" / "dev_public.jsonl"
    if hallmark.is_file():
        for line in hallmark.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            title = (entry.get("fields") or {}).get("title")
            if title:
                yield f"hallmark/{entry.get('bibtex_key')}", WorkText(parts={"title": title})
    for path in sorted((base / "iclr2026-real-bibliographies" / "papers").glob("*/bibliography.json")):
        for i, item in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            if item.get("title"):
                yield f"iclr/{path.parent.name}:{i}", WorkText(parts={"title": str(item["title"])})


def run(*, iclr: bool = False) -> dict[str, Any]:
    if not DOCUMENTS.is_dir():
        raise FileNotFoundError(f"the shared data is not at {SHARED_DATA}")
    corpora = {
        "unarxive_full_texts": unarxive_papers(),
        "pdfs_and_text": full_text_documents(),
        "recorded_source_records": recorded_records(),
        "bibliography_titles": bibliography_titles(),
    }
    out: dict[str, Any] = {
        "benchmark": "signals",
        "machine": machine(),
        "tortured_phrases": len(tortured_table()),
    }
    for name, items in corpora.items():
        tally = _Tally()
        for key, text in items:
            tally.add(key, text)
        out[name] = tally.figures()
    if iclr:
        out["iclr"] = iclr_signals()
    return out


def format_report(f: dict[str, Any]) -> str:
    lines = [f"ai_generated_suspect on real data ({f['tortured_phrases']} tortured phrases in the table)"]
    for name in ("unarxive_full_texts", "pdfs_and_text", "recorded_source_records", "bibliography_titles"):
        c = f[name]
        lines.append(
            f"  {name}: fired {c['fired']} of {c['items']} ({100 * c['fired_rate']:.2f} %); "
            f"alone: tortured phrase in {c['indicator_alone'].get('tortured_phrases', 0)}, "
            f"no methods section in {c['indicator_alone'].get('no_methods_section', 0)} "
            f"of {c['with_section_headings']} with headings; an indicator besides authorship in "
            f"{c['other_indicator_held']}"
        )
        if c["fired_on"]:
            lines.append("    fired on: " + "; ".join(c["fired_on"][:10]))
        if c["phrases_seen"]:
            lines.append("    phrases seen: " + ", ".join(f"{p} ({n})" for p, n in c["phrases_seen"].items()))
    if "iclr" in f:
        i = f["iclr"]
        lines.append(
            f"ICLR 2026: {i['references']} references in {i['papers']} papers; predatory list entries "
            f"{i['predatory_list_entries']}; reference signals {i['reference_signals'] or 'none'}; "
            f"cohort_concentrated in {i['cohort_papers']} papers; authors asked of OpenAlex for "
            f"{i['authorship_asked']} references"
        )
        for paper, c in i["cohorts"].items():
            who = ", ".join(a["name"] for a in c["authors"][:4])
            lines.append(
                f"    {paper}: {len(c['references'])} of {c['verified']} verified ({c['share']:.0%}): {who}"
            )
        lines.append(
            f"  on the cited author lists: {i['cohort_papers_cited_authors']} papers: "
            + "; ".join(f"{p} {c['share']:.0%}" for p, c in i["cohorts_cited_authors"].items())
        )
    return "\n".join(lines)


def _iclr_outcomes(seed: int, concurrency: int) -> tuple[list[CitedReference], list[Any]]:
    """The author-written ICLR 2026 references and their outcomes against the realbib universe."""
    from aletheia.bench.common import requests_twice_against
    from aletheia.bench.iclr_bench import derived_universe
    from aletheia.bench.iclr_reader import ICLR_DIR, read_all

    gold = read_all(ICLR_DIR)
    _, _, records, _ = derived_universe(gold, seed)
    outcomes, _, _ = requests_twice_against(records, gold, concurrency, name="signals")
    return gold, outcomes


def _cited_author_cohorts(gold: list[CitedReference]) -> dict[str, Any]:
    """The cohort rule on the cited (author-written, real) author lists: the bench universe serves a
    list cut with "and others" with invented co-authors, who connect references that share none."""
    cited_lists: dict[str, list[CitedWork]] = {}
    for ref in gold:
        cited_lists.setdefault(ref.key.split(":", 1)[0], []).append(
            CitedWork(key=ref.key, authors=ref.authors)
        )
    return {
        paper: cohort.evidence for paper, works in cited_lists.items() if (cohort := cohort_signal(works))
    }


def iclr_signals(seed: int = 10, concurrency: int = 32) -> dict[str, Any]:
    """The per-reference and per-document signals on the ICLR 2026 bibliographies, verified as
    `aletheia bench realbib --iclr` verifies them (same universe, same seed): how many references
    get `predatory_source`, `corrected`, `expression_of_concern`, `ai_generated_suspect`, and
    which papers get `cohort_concentrated` (with the cluster)."""
    from aletheia.pipeline.predatory import active_predatory_list
    from aletheia.pipeline.reports.formats import reference_json
    from aletheia.pipeline.reports.signals import cited_work, document_signals

    gold, outcomes = _iclr_outcomes(seed, concurrency)
    by_kind: Counter[str] = Counter()
    papers: dict[str, list[dict[str, Any]]] = {}
    for outcome in outcomes:
        entry = reference_json(outcome)
        by_kind.update(s["kind"] for s in entry["signals"])
        papers.setdefault(outcome.cited.key.split(":", 1)[0], []).append(entry)
    cohorts = {
        paper: found[0]["evidence"]
        for paper, entries in papers.items()
        if (found := document_signals(cited_work(e) for e in entries))
    }
    by_cited = _cited_author_cohorts(gold)
    return {
        "references": len(outcomes),
        "papers": len(papers),
        "cohort_papers_cited_authors": len(by_cited),
        "cohorts_cited_authors": by_cited,
        "predatory_list_entries": len(active_predatory_list()),
        # References whose authors were asked of OpenAlex (another paper-mill indicator fired)
        "authorship_asked": sum(1 for o in outcomes if o.evidence.authorship is not None),
        "reference_signals": dict(by_kind.most_common()),
        "cohort_papers": len(cohorts),
        "cohorts": cohorts,
    }
