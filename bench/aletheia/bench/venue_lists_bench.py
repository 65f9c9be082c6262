"""Issue 21, item 6: how often `questionable_venue` fires on real bibliographies.

    python -m aletheia.bench.venue_lists_bench [--json out.json]

No network. Every reference of the real bibliographies in ../shared/data is matched against the
shipped lists (`aletheia.core.questionable_venues`) on what it cites (ISSN field, URL, venue
name), and every recorded source record (the ICLR `api_cache/`, and `api-samples/`: Crossref,
OpenAlex, Semantic Scholar, DBLP answers recorded by other tools' test suites) on what the source
publishes (ISSNs, landing URL, venue name), as the report does for a matched work. Almost all of
this is genuine, mainstream work: each hit is listed, to be read by hand.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aletheia.bench.common import SHARED_DATA, json_objects
from aletheia.core.bibliography import parse_text
from aletheia.core.questionable_venues import questionable_venue_signals, questionable_venues
from aletheia.core.records import CitedReference, SourceName, WorkRecord

BIB_DIR = SHARED_DATA / "documents" / "bibtex-real"
ICLR_DIR = SHARED_DATA / "benchmarks" / "iclr2026-real-bibliographies"
HALLMARK = SHARED_DATA / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"


def bibtex_real(base: Path = BIB_DIR) -> Iterator[CitedReference]:
    """Every entry of every .bib file (a file's @strings from the sets' string files are not
    needed: venue names that stay macros simply do not match)."""
    for path in sorted(base.rglob("*.bib")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for item in parse_text(text, origin=str(path.relative_to(base))):
            if isinstance(item, CitedReference):
                yield item


def iclr_references(base: Path = ICLR_DIR) -> Iterator[CitedReference]:
    from aletheia.bench.iclr_reader import read_all

    yield from read_all(base)


def hallmark_references(path: Path = HALLMARK) -> Iterator[tuple[CitedReference, str]]:
    """HALLMARK dev entries with their label (`VALID` or the hallucination type)."""
    from aletheia.bench.hallmark_bench import load, parse_entries

    entries = load(path)
    labels = {e["bibtex_key"]: str(e.get("hallucination_type") or e.get("label") or "") for e in entries}
    refs, _ = parse_entries(entries)
    for ref in refs:
        if isinstance(ref, CitedReference):
            yield ref, labels.get(ref.key, "")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def recorded_records(folder: Path) -> Iterator[tuple[str, WorkRecord]]:
    """What each recorded work-level object publishes of its venue: Crossref `ISSN`,
    `container-title`, `resource.primary.URL`; OpenAlex `source.issn`, `source.display_name`,
    `landing_page_url`; Semantic Scholar `venue`, `journal.name`, `publicationVenue`. (Read
    straight from the JSON: a measurement of the lists, not of the parsers.)"""
    for path in sorted(folder.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        for n, obj in enumerate(json_objects(data)):
            issn = [*_strings(obj.get("ISSN")), *_strings(obj.get("issn"))]
            venues = [
                *_strings(obj.get("container-title")),
                *_strings(obj.get("venue")),
                *(_strings(obj.get("display_name")) if obj.get("type") in ("journal", "conference") else []),
            ]
            journal = obj.get("journal")
            if isinstance(journal, dict):
                venues += _strings(journal.get("name"))
            landing = _strings(obj.get("landing_page_url")) or _strings((obj.get("primary") or {}).get("URL"))
            if not (issn or venues or landing):
                continue
            yield (
                f"{path.parent.name}/{path.name}#{n}",
                WorkRecord(
                    source=SourceName.CROSSREF,
                    title="(recorded)",
                    issn=tuple(issn),
                    venue=venues[0] if venues else None,
                    other_venues=tuple(venues[1:]),
                    urls={"landing": landing[0]} if landing else {},
                ),
            )


class _Tally:
    def __init__(self) -> None:
        self.items = 0
        self.hits: list[dict[str, Any]] = []
        self.by: Counter[str] = Counter()

    def add(self, name: str, cited: CitedReference | None, records: tuple[WorkRecord, ...] = ()) -> None:
        self.items += 1
        for signal in questionable_venue_signals(cited, records):
            ev = signal.evidence
            self.by[f"{ev['list']}/{ev['matched_on']}"] += 1
            self.hits.append(
                {
                    "item": name,
                    "list": ev["list"],
                    "matched_on": ev["matched_on"],
                    "value": ev["value"],
                    "listed_name": ev["listed_name"],
                    "reason": ev.get("reason"),
                }
            )

    def figures(self) -> dict[str, Any]:
        items = {h["item"] for h in self.hits}
        return {
            "items": self.items,
            "with_signal": len(items),
            "rate": round(len(items) / (self.items or 1), 4),
            "by_list_and_match": dict(self.by.most_common()),
            "hits": self.hits,
        }


def run() -> dict[str, Any]:
    if not SHARED_DATA.is_dir():
        raise FileNotFoundError(f"the shared data is not at {SHARED_DATA}")
    table = questionable_venues()
    out: dict[str, Any] = {
        "benchmark": "venue_lists",
        "lists": [{"list": v.id, "date": v.date, "licence": v.licence} for v in table.lists],
        "entries": len(table),
    }
    corpora: dict[str, _Tally] = {}
    tally = corpora.setdefault("bibtex_real", _Tally())
    for ref in bibtex_real():
        tally.add(f"{ref.origin or ''}:{ref.key}", ref)
    tally = corpora.setdefault("iclr2026_references", _Tally())
    for ref in iclr_references():
        tally.add(ref.key, ref)
    if HALLMARK.is_file():
        valid, other = (
            corpora.setdefault("hallmark_valid", _Tally()),
            corpora.setdefault("hallmark_other", _Tally()),
        )
        for ref, label in hallmark_references():
            (valid if label.upper() in ("VALID", "") else other).add(f"{ref.key} ({label})", ref)
    for name, folder in (
        ("iclr_api_cache", ICLR_DIR / "api_cache"),
        ("api_samples", SHARED_DATA / "api-samples"),
    ):
        tally = corpora.setdefault(f"recorded_{name}", _Tally())
        for item, record in recorded_records(folder):
            tally.add(item, None, (record,))
    out.update({name: t.figures() for name, t in corpora.items()})
    return out


def format_report(f: dict[str, Any]) -> str:
    lines = [f"questionable_venue on real data ({f['entries']} listed venues: {f['lists']})"]
    for name, c in f.items():
        if not isinstance(c, dict) or "items" not in c:
            continue
        lines.append(
            f"  {name}: {c['with_signal']} of {c['items']} ({100 * c['rate']:.2f} %) "
            f"{c['by_list_and_match'] or ''}"
        )
        lines.extend(
            f"    {h['item']}: {h['list']} by {h['matched_on']} {h['value']!r} -> {h['listed_name']!r}"
            f"{' (' + h['reason'] + ')' if h['reason'] else ''}"
            for h in c["hits"][:25]
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="questionable_venue on real data (issue 21, item 6)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    figures = run()
    print(format_report(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
