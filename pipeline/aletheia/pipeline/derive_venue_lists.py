"""Derive the shipped questionable-venue tables from the published lists (issue 21, item 6).

    python -m aletheia.pipeline.derive_venue_lists [--shared ../shared/data/venue-lists] [--out DIR]
    python -m aletheia.pipeline.derive_venue_lists --check   # the shipped tables are what it derives

Reads `doaj-withdrawn/` (DOAJ's withdrawn journals with the reason, CC BY-SA 4.0) and
`stop-predatory-journals/` (the 2018 lists, MIT) — their SOURCE.txt and LICENSE first — and writes
`doaj_withdrawn.json.gz` and `stop_predatory_journals.json.gz` into `aletheia/core/data/venue_lists/`
(read at run time by `aletheia.core.questionable_venues`). The rules it applies are data, reviewed
in `aletheia/pipeline/data/venue_list_rules.json`: which DOAJ reasons are removals for practice
(the only ones kept), which files of the 2018 lists are used, which hosts are not a venue's site.
It prints what was kept and dropped, by class, so that a reviewer sees the effect of every rule.

Output is deterministic (the lists' order, one row per line; gzip without a timestamp), so a re-run
on the same input gives the same table, and `zcat` of two versions diffs row by row.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import html
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from aletheia.core.identifiers import clean_issn
from aletheia.core.questionable_venues import DATA_DIR, LIST_FILES, site_key

RULES_FILE: Final = "venue_list_rules.json"
DEFAULT_SHARED: Final = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "venue-lists"
_ANNOTATION: Final = re.compile(r"\[[^\]]*\]")


def rules() -> dict[str, Any]:
    text = (resources.files("aletheia.pipeline") / "data" / RULES_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def default_out() -> Path:
    return Path(str(resources.files("aletheia.core") / "data" / DATA_DIR))


@dataclass
class ReasonClasses:
    """DOAJ's free-text reasons -> a class (the first whose pattern is found), and which are kept."""

    classes: list[tuple[str, bool, list[re.Pattern[str]]]]

    @classmethod
    def of(cls, table: dict[str, Any]) -> ReasonClasses:
        return cls(
            [
                (c["class"], bool(c["keep"]), [re.compile(p, re.IGNORECASE) for p in c["patterns"]])
                for c in table["classes"]
            ]
        )

    def classify(self, reason: str) -> tuple[str, bool]:
        for name, keep, patterns in self.classes:
            if any(p.search(reason) for p in patterns):
                return name, keep
        return "unclassified", False  # never kept: a reviewer adds a pattern


@dataclass
class Report:
    """What was kept and dropped, for the reviewer."""

    lines: list[str] = field(default_factory=list)

    def counts(self, title: str, counts: Counter[str]) -> None:
        self.lines.append(title)
        self.lines.extend(f"  {n:6d}  {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _issns(*cells: str) -> tuple[list[str], int]:
    """Every valid ISSN in the cells (`|`, `#`, `;`, space separated), in order; and how many
    ISSN-shaped values failed the check digit."""
    found: dict[str, None] = {}
    invalid = 0
    for cell in cells:
        for raw in re.split(r"[|#;,\s]+", cell or ""):
            if not raw:
                continue
            issn = clean_issn(raw)
            if issn is None:
                invalid += 1
            else:
                found.setdefault(issn, None)
    return list(found), invalid


def _read_csv(path: Path) -> list[dict[str, str]]:
    """The rows, every cell stripped and in NFC (the lists mix composed and decomposed accents)."""
    with path.open(encoding="utf-8", newline="") as fh:
        return [
            {(k or "").strip(): unicodedata.normalize("NFC", (v or "").strip()) for k, v in row.items()}
            for row in csv.DictReader(fh)
        ]


def _check_source(folder: Path, commit: str) -> None:
    """The input is the version the provenance names: SOURCE.txt cites the commit, LICENSE is there."""
    source = (folder / "SOURCE.txt").read_text(encoding="utf-8")
    if commit not in source:
        raise SystemExit(
            f"{folder}/SOURCE.txt does not cite commit {commit}: update the provenance in {RULES_FILE}"
        )
    if not (folder / "LICENSE").is_file():
        raise SystemExit(f"{folder}/LICENSE is missing: the table cannot be shipped without its licence")


def derive_doaj(folder: Path, table: dict[str, Any], report: Report) -> dict[str, Any]:
    meta = table["provenance"]["doaj_withdrawn"]
    _check_source(folder, meta["commit"])
    classes = ReasonClasses.of(table["doaj_reason_classes"])
    rows = _read_csv(folder / "doaj_withdrawn_enriched.csv")
    kept: list[list[Any]] = []
    by_class: Counter[str] = Counter()
    by_reason: Counter[str] = Counter()
    invalid = 0
    for row in rows:
        name, keep = classes.classify(row["reason"])
        by_class[f"{'kept   ' if keep else 'dropped'} {name}"] += 1
        by_reason[f"{name}: {row['reason']}"] += 1
        if not keep:
            continue
        issns, bad = _issns(row.get("issn", ""), row.get("issn_l", ""), row.get("issns", ""))
        invalid += bad
        kept.append([row["title"], issns, row["date_removed"], row["reason"]])
    dates = sorted(r["date_removed"] for r in rows if r["date_removed"])
    report.counts(f"DOAJ withdrawn: {len(rows)} rows, {len(kept)} kept (by class)", by_class)
    report.counts("DOAJ withdrawn: each reason as written, with its class", by_reason)
    raw = folder / "reason_counts.json"
    if raw.is_file():
        spelled: Counter[str] = Counter()
        for item in json.loads(raw.read_text(encoding="utf-8")):
            spelled[classes.classify(str(item["Reason"]))[0]] += int(item["Count"])
        report.counts("DOAJ reason_counts.json (the reasons as first spelled; informational)", spelled)
    report.lines.append(f"DOAJ withdrawn: {invalid} ISSN values failed the check digit (dropped)")
    report.lines.append(f"DOAJ withdrawn: {sum(1 for r in kept if not r[1])} kept rows without a valid ISSN")
    return {
        "list": {
            "id": "doaj_withdrawn",
            "title": f"{meta['title']}, {dates[0]} to {dates[-1]}",
            "source": meta["source"],
            "date": dates[-1],
            "kind": "withdrawn",
            "licence": meta["licence"],
            "attribution": meta["attribution"],
            "url": meta["url"],
        },
        "columns": ["name", "issn", "date", "reason"],
        "rows": kept,
    }


def _site(url: str, not_venue: Sequence[str], dropped: Counter[str]) -> list[str]:
    """The URL as a listed site, unless it has no host or is on a host that is not a venue's site."""
    if not url:
        return []
    key = site_key(url)
    if key is None:
        dropped["url without a host"] += 1
        return []
    if any(key[0] == h or key[0].endswith("." + h) for h in not_venue):
        dropped[f"url on {key[0]} (not the venue's site)"] += 1
        return []
    return [html.unescape(url)]  # the lists' CSVs keep `&amp;` from the HTML they came from


def derive_spj(folder: Path, table: dict[str, Any], report: Report) -> dict[str, Any]:
    meta = table["provenance"]["stop_predatory_journals"]
    spj = table["stop_predatory_journals"]
    _check_source(folder, meta["commit"])
    not_venue = spj["not_venue_hosts"]["hosts"]
    rows: list[list[Any]] = []
    counts: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for row in _read_csv(folder / "journals.csv"):
        sites = _site(row["url"], not_venue, dropped)
        annotated = bool(_ANNOTATION.search(row["name"]))
        if not sites and (annotated or not row["name"]):
            dropped["journal with neither a site nor a matchable name"] += 1
            continue
        counts["journal" + (" (name not matched: annotated)" if annotated else "")] += 1
        rows.append(["journal", row["name"], sites, not annotated, None, None])
    for row in _read_csv(folder / "hijacked.csv"):
        sites = [s for u in (row["hijackedurl"], row["althijackedurl"]) for s in _site(u, not_venue, dropped)]
        if not sites:
            dropped["hijacked journal without a counterfeit site"] += 1
            continue
        authentic = _site(row["authenticurl"], (), Counter())
        counts["hijacked (site only)"] += 1
        real_site = authentic[0] if authentic else None
        rows.append(["hijacked", row["hijacked"], sites, False, row["authentic"] or None, real_site])
    for name, why in spj["files"].items():
        if why.startswith("dropped"):
            dropped[f"{name}: {len(_read_csv(folder / name))} rows ({why.split(':')[0]})"] += 1
    report.counts(f"Stop Predatory Journals: {len(rows)} kept", counts)
    report.counts("Stop Predatory Journals: dropped", dropped)
    return {
        "list": {
            "id": "stop_predatory_journals",
            "title": meta["title"],
            "source": meta["source"],
            "date": meta["date"],
            "licence": meta["licence"],
            "attribution": meta["attribution"],
            "url": meta["url"],
        },
        "columns": ["kind", "name", "sites", "match_name", "authentic_name", "authentic_url"],
        "rows": rows,
    }


def render(table: dict[str, Any]) -> str:
    """The table as JSON with one row per line: deterministic, and diffable row by row."""
    head = {k: v for k, v in table.items() if k != "rows"}
    lines = [json.dumps(row, ensure_ascii=False) for row in table["rows"]]
    body = json.dumps(head, ensure_ascii=False, indent=2)[:-2]
    return body + ',\n  "rows": [\n' + ",\n".join(lines) + "\n  ]\n}\n"


def derive(shared: Path) -> tuple[dict[str, str], Report]:
    """{file name: its JSON text} for both tables, and the report of what was kept and dropped."""
    table = rules()
    report = Report()
    doaj = derive_doaj(shared / "doaj-withdrawn", table, report)
    spj = derive_spj(shared / "stop-predatory-journals", table, report)
    texts = (render(doaj), render(spj))
    return dict(zip(LIST_FILES, texts, strict=True)), report


def read_table(path: Path) -> str:
    """A shipped table's text (gzip-compressed JSON)."""
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def write_table(path: Path, text: str) -> None:
    path.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the venue-lists folder")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: the package data)")
    parser.add_argument("--check", action="store_true", help="fail if the shipped tables differ")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(list(argv) if argv is not None else None)
    files, report = derive(args.shared)
    out = args.out or default_out()
    if not args.quiet:
        print("\n".join(report.lines))
    if args.check:
        stale = [n for n, text in files.items() if not (out / n).is_file() or read_table(out / n) != text]
        if stale:
            print(f"stale: {', '.join(stale)} (re-run without --check)", file=sys.stderr)
            return 1
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_table(out / name, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
