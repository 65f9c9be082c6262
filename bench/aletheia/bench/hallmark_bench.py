"""Issue 4, accuracy: HALLMARK's dev split through the simulator.

The universe is built from the benchmark itself (docs/benchmarks.md says what that makes easy):

- every VALID entry is a real paper: it becomes a work, with its DOI (Crossref, OpenAlex and
  Semantic Scholar know it), or without one (OpenAlex and Semantic Scholar only, as for NeurIPS,
  ICLR and ICML papers, which have no Crossref DOI); arXiv DataCite DOIs become arXiv works;
- venues are served as the sources write them ("Proceedings of the AAAI Conference on Artificial
  Intelligence", "Advances in Neural Information Processing Systems"), not as cited ("AAAI");
- for a hallucinated entry whose real paper is not already a VALID entry, the real paper is added
  only when the explanation says what it was: near_miss_title ("original: '...'") and
  fabricated_doi (the same entry without the invented DOI). Every other hallucinated entry's real
  paper, if any, is in the universe only when a VALID entry has the same title.

A reference is *detected* when its verdict is anything but `verified`; *flagged* is the stricter
set of statuses that make `aletheia verify` exit 1.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SHARED_DATA,
    bibtex_entry,
    format_requests,
    machine,
    parse_bibtex,
    requests_twice_against,
)
from aletheia.bench.tier_counts import format_tier_table, tier_figures
from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.authors import parse_author_list
from aletheia.core.identifiers import clean_doi
from aletheia.core.latex import latex_to_unicode
from aletheia.core.text import normalize_title
from aletheia.core.verdicts import VerdictStatus

DATASET = SHARED_DATA / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"

# How Crossref / OpenAlex write the venues HALLMARK cites in short form ({y}: the year).
FULL_VENUES: dict[str, str] = {
    "ICML": "Proceedings of the {y} International Conference on Machine Learning",
    "NeurIPS": "Advances in Neural Information Processing Systems",
    "ICLR": "International Conference on Learning Representations",
    "AAAI": "Proceedings of the AAAI Conference on Artificial Intelligence",
    "CVPR": "{y} IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
    "ICCV": "{y} IEEE/CVF International Conference on Computer Vision (ICCV)",
    "ECCV": "Computer Vision – ECCV {y}",
    "ACL": "Proceedings of the 6{d}th Annual Meeting of the Association for Computational Linguistics",
    "EMNLP": "Proceedings of the {y} Conference on Empirical Methods in Natural Language Processing",
    "NAACL": "Proceedings of the {y} Conference of the North American Chapter of the Association for "
    "Computational Linguistics: Human Language Technologies",
    "UAI": "Proceedings of the Thirty-Seventh Conference on Uncertainty in Artificial Intelligence",
    "Mach. Learn.": "Machine Learning",
    "J. Mach. Learn. Res.": "Journal of Machine Learning Research",
    "Trans. Mach. Learn. Res.": "Transactions on Machine Learning Research",
}
PROCEEDINGS = {"ICML", "NeurIPS", "ICLR", "AAAI", "CVPR", "ICCV", "ECCV", "ACL", "EMNLP", "NAACL", "UAI"}
_ORIGINAL_TITLE = re.compile(r"\(original: '(.+)'\)\s*$")


def load(path: Path = DATASET) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _authors(field: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    # Sources serve decoded Unicode names ("Michaël"), not the BibTeX markup ("Micha{\\"e}l").
    authors, _ = parse_author_list(latex_to_unicode(field))
    for author in authors:
        if author.literal:
            out.append({"literal": author.literal})
        elif author.family:
            out.append(
                {"given": author.given or "", "family": author.family}
                if author.given
                else {"family": author.family}
            )
    return out


def _full_venue(short: str | None, year: int | None) -> str | None:
    if not short:
        return None
    template = FULL_VENUES.get(short)
    if template is None:
        return short
    y = year or 2022
    return template.format(y=y, d=max(0, min(9, y - 2018)))


def work_record(fields: dict[str, str], *, origin: str) -> list[dict[str, Any]]:
    """Universe lines for a real paper cited with these (correct) fields (two when a preprint and
    a published version are both implied)."""
    year = int(fields["year"]) if fields.get("year", "").isdigit() else None
    short = fields.get("booktitle") or fields.get("journal")
    record: dict[str, Any] = {
        "title": latex_to_unicode(fields["title"]).rstrip("."),
        "authors": _authors(fields.get("author", "")),
        "year": year,
        "type": "proceedings-article" if short in PROCEEDINGS else "journal-article",
        "meta": {"origin": origin},
    }
    venue = _full_venue(short, year)
    if venue:
        record["venue"] = venue
    doi = clean_doi(fields.get("doi")) if fields.get("doi") else None
    arxiv = arxiv_id_from_doi(doi) if doi else None
    if arxiv is not None:
        if venue and not venue.lower().startswith("arxiv"):
            # Cited (correctly, as a VALID entry) with the arXiv DOI *and* a venue: the paper was
            # published there. The sources know both versions: the venue's record, linked to the
            # preprint, at OpenAlex and S2 (no Crossref DOI for NeurIPS/ICML/ICLR papers); S2
            # merges the versions into one paper, so the preprint itself is only at arXiv.
            record.update(
                {"related": {"preprint_arxiv_id": arxiv.id}, "sources": ["openalex", "semantic_scholar"]}
            )
            preprint = {
                **record,
                "type": "posted-content",
                "arxiv_id": arxiv.id,
                "venue": None,
                "sources": ["arxiv"],
                "meta": {"origin": origin, "version": "preprint"},
            }
            preprint.pop("related")
            return [record, preprint]
        # OpenAlex indexes arXiv preprints too (under the DataCite DOI), and DBLP lists the
        # computer-science ones as CoRR (`journals/corr/abs-...`): HALLMARK's are ML papers.
        record.update(
            {
                "type": "posted-content",
                "arxiv_id": arxiv.id,
                "venue": None,
                "sources": ["arxiv", "semantic_scholar", "openalex", "dblp"],
            }
        )
    elif doi:
        record["doi"] = doi
    else:
        # Conference papers without a DOI (ICML, NeurIPS, ICLR): OpenAlex and S2 index them.
        record["sources"] = ["openalex", "semantic_scholar"]
    return [record]


def build_universe(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Universe records and, per hallucinated entry, where its real paper came from
    (`valid_twin`, `reconstructed`, or `absent`)."""
    records: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(fields: dict[str, str], origin: str) -> None:
        title_key = normalize_title(fields["title"])
        if title_key in seen:
            return
        seen.add(title_key)
        records.extend(work_record(fields, origin=origin))

    for e in entries:
        if e["label"] == "VALID":
            add(e["fields"], "valid")
    valid_titles = set(seen)
    coverage: dict[str, str] = {}
    for e in entries:
        if e["label"] == "VALID":
            continue
        fields = e["fields"]
        kind = e["hallucination_type"]
        if normalize_title(fields["title"]) in valid_titles:
            coverage[e["bibtex_key"]] = "valid_twin"
            continue
        if kind == "near_miss_title" and (m := _ORIGINAL_TITLE.search(e["explanation"])):
            add({**fields, "title": m.group(1)}, "near_miss_original")
            coverage[e["bibtex_key"]] = "reconstructed"
        elif kind == "fabricated_doi":
            add({k: v for k, v in fields.items() if k not in ("doi", "url")}, "fabricated_doi_without_doi")
            coverage[e["bibtex_key"]] = "reconstructed"
        else:
            coverage[e["bibtex_key"]] = "absent"
    return records, coverage


def entry_bibtex(e: dict[str, Any]) -> str:
    fields = e["fields"]
    order = ("title", "author", "booktitle", "journal", "year", "doi", "url")
    pairs = [(name, fields.get(name)) for name in order] + [
        (k, v) for k, v in fields.items() if k not in order
    ]
    return bibtex_entry(e["bibtex_key"], e.get("bibtex_type") or "misc", pairs)


@dataclass(frozen=True)
class _InputProblemVerdict:
    """An entry that does not parse: reported to the user (exit code 2, so not "flagged"), never
    verified."""

    status: str = "input_problem"
    flagged: bool = False
    reasons: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()


INPUT_PROBLEM = _InputProblemVerdict()


def parse_entries(entries: list[dict[str, Any]]) -> tuple[list[Any], dict[str, str]]:
    """Each entry parsed on its own, as one .bib file would be read: an entry whose fields have
    unbalanced braces is an input problem, and the others are still read."""
    refs: list[Any] = []
    problems: dict[str, str] = {}
    for e in entries:
        try:
            refs.extend(parse_bibtex(entry_bibtex(e), f"hallmark-dev.bib#{e['bibtex_key']}"))
        except ValueError as exc:
            problems[e["bibtex_key"]] = str(exc)
    return refs, problems


def _rates(caught: int, positives: int, false_alarms: int, negatives: int) -> dict[str, float]:
    """Detection rate, false-positive rate, precision and F1 of `caught` hallucinations among
    `positives` and `false_alarms` among the `negatives` (VALID entries)."""
    detection = caught / positives if positives else 0.0
    fpr = false_alarms / negatives if negatives else 0.0
    precision = caught / (caught + false_alarms) if caught + false_alarms else 0.0
    f1 = 2 * precision * detection / (precision + detection) if precision + detection else 0.0
    return {
        "detection_rate": round(detection, 4),
        "false_positive_rate": round(fpr, 4),
        "precision": round(precision, 4),
        "f1": round(f1, 4),
    }


def score(
    entries: list[dict[str, Any]], verdicts: dict[str, Any], coverage: dict[str, str]
) -> dict[str, Any]:
    tp = fn = fp = tn = 0
    flagged_tp = flagged_fp = 0
    per_type: dict[str, Counter[str]] = defaultdict(Counter)
    fp_statuses: Counter[str] = Counter()
    for e in entries:
        v = verdicts[e["bibtex_key"]]
        detected = v.status != VerdictStatus.VERIFIED
        flagged = v.flagged
        if e["label"] == "VALID":
            fp += detected
            tn += not detected
            flagged_fp += flagged
            if detected:
                fp_statuses[str(v.status)] += 1
        else:
            tp += detected
            fn += not detected
            flagged_tp += flagged
            t = per_type[e["hallucination_type"]]
            t["total"] += 1
            t["detected"] += detected
            t["flagged"] += flagged
            t[f"universe_{coverage[e['bibtex_key']]}"] += 1
            t[f"detected_{coverage[e['bibtex_key']]}"] += detected
            t[f"status_{v.status}"] += 1
    positives, negatives = tp + fn, fp + tn
    return {
        "valid": negatives,
        "hallucinated": positives,
        "detected": {**_rates(tp, positives, fp, negatives), "tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "flagged": _rates(flagged_tp, positives, flagged_fp, negatives),
        "false_positive_statuses": dict(fp_statuses),
        "per_type": {
            k: {
                **dict(sorted(c.items())),
                "rate": round(c["detected"] / c["total"], 4),
                "flagged_rate": round(c["flagged"] / c["total"], 4),
            }
            for k, c in sorted(per_type.items())
        },
    }


@dataclass(frozen=True)
class Prepared:
    """The entries (first `limit`), their universe, where each real paper came from, and the
    entries read as references (the rest are input problems)."""

    entries: list[dict[str, Any]]
    records: list[dict[str, Any]]
    coverage: dict[str, str]
    refs: list[Any]
    problems: dict[str, str]


def prepare(dataset: Path = DATASET, limit: int | None = None) -> Prepared:
    entries = load(dataset)
    if limit is not None:
        entries = entries[:limit]
    records, coverage = build_universe(entries)
    refs, problems = parse_entries(entries)
    return Prepared(entries, records, coverage, refs, problems)


def run(
    *,
    limit: int | None = None,
    concurrency: int = 64,
    dataset: Path = DATASET,
    report_misses: Path | None = None,
) -> dict[str, Any]:
    prepared = prepare(dataset, limit)
    entries, records, coverage = prepared.entries, prepared.records, prepared.coverage
    refs, problems = prepared.refs, prepared.problems
    outcomes, requests, elapsed = requests_twice_against(records, refs, concurrency, name="hallmark")
    verdicts: dict[str, Any] = {o.cited.key: o.verdict for o in outcomes}
    verdicts.update(dict.fromkeys(problems, INPUT_PROBLEM))
    figures = score(entries, verdicts, coverage)
    if report_misses is not None:
        _write_misses(report_misses, entries, verdicts, coverage)
    coverage_counts = Counter(coverage.values())
    label_of = {e["bibtex_key"]: e["label"] for e in entries}
    return {
        "benchmark": "hallmark",
        "machine": machine(),
        "entries": len(entries),
        "universe_works": len(records),
        "universe_origin": dict(Counter(r["meta"]["origin"] for r in records)),
        "universe_published_with_preprint": sum(1 for r in records if r["meta"].get("version") == "preprint"),
        "hallucinated_real_paper_in_universe": dict(coverage_counts),
        "input_problems": len(problems),
        "wall_seconds": round(elapsed, 2),
        "requests": requests,
        **figures,
        # Issue 12: as a report's summary counts them (input problems have no verdict: not counted)
        **tier_figures(o.verdict for o in outcomes),
        "by_label_and_tier": {
            label: tier_figures(o.verdict for o in outcomes if label_of.get(o.cited.key) == label)
            for label in sorted(set(label_of.values()))
        },
    }


def _write_misses(
    path: Path, entries: list[dict[str, Any]], verdicts: dict[str, Any], coverage: dict[str, str]
) -> None:
    """One JSON line per wrong answer, both ways: a wrong answer under "detected" and one only
    under "flagged" (a hallucination left minor, or a VALID entry flagged)."""
    with path.open("w", encoding="utf-8") as fh:
        for e in entries:
            v = verdicts[e["bibtex_key"]]
            detected = v.status != VerdictStatus.VERIFIED
            wrong = (e["label"] == "VALID") == detected
            wrong_flag = (e["label"] == "VALID") == v.flagged
            if not (wrong or wrong_flag):
                continue
            row = {
                "miss": "detected" if wrong else "flagged",
                "key": e["bibtex_key"],
                "label": e["label"],
                "type": e.get("hallucination_type"),
                "coverage": coverage.get(e["bibtex_key"]),
                "status": str(v.status),
                "reasons": [str(r) for r in v.reasons],
                "fields": e["fields"],
                "explanation": e["explanation"][:200],
                "notes": list(v.notes)[:4],
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def format_report(f: dict[str, Any]) -> str:
    d, fl = f["detected"], f["flagged"]
    lines = [
        f"entries: {f['entries']} ({f['valid']} valid, {f['hallucinated']} hallucinated); universe: "
        f"{f['universe_works']} works {f['universe_origin']}",
        f"real paper of a hallucinated entry in the universe: {f['hallucinated_real_paper_in_universe']}",
        f"detected (verdict != verified): detection {d['detection_rate']:.1%}  "
        f"FPR {d['false_positive_rate']:.1%}  F1 {d['f1']:.3f}  "
        f"(tp {d['tp']} fp {d['fp']} fn {d['fn']} tn {d['tn']})",
        f"flagged (exit code 1):        detection {fl['detection_rate']:.1%}  "
        f"FPR {fl['false_positive_rate']:.1%}  F1 {fl['f1']:.3f}",
        f"false positives by status: {f['false_positive_statuses']}",
        *([format_requests(f["requests"])] if "requests" in f else []),
        "per type (detected / total, flagged rate):",
    ]
    for name, c in f["per_type"].items():
        lines.append(
            f"  {name:24s} {c['detected']:3d}/{c['total']:3d}  {c['rate']:.1%}  "
            f"flagged {c['flagged_rate']:.1%}"
        )
    if "by_tier" in f:
        lines.append(f"by verification status: {f['by_verification_status']}")
        lines.append(format_tier_table(f, title="all entries by tier"))
        for label, counts in f["by_label_and_tier"].items():
            lines.append(format_tier_table(counts, title=f"{label} entries by tier"))
    return "\n".join(lines)
