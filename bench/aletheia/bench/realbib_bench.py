"""Issue 4, false alarms: real bibliographies (../shared/data/documents/bibtex-real) against
source records that differ from the citations the way real sources differ from citations.

The entries are real references, but they are also the only record we have of their works, so
the universe is *derived from them* (docs/benchmarks.md says what that can and cannot show):

- titles: LaTeX decoded, braces gone; one in three in Title Case where the citation is in
  sentence case (or the reverse); a title with a colon served by Crossref as title + subtitle;
- authors: decoded Unicode names ("Schölkopf" for "Sch{\\"o}lkopf"), structured given/family
  (BibTeX "Last, First" and "First Last" both become the same record); a list the citation cuts
  with "and others" is served in full (three more authors, invented);
- venues: the source's long form ("Proceedings of the 36th International Conference on Machine
  Learning", "2019 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
  "Advances in Neural Information Processing Systems 32") where the citation has "ICML", "cvpr",
  "NeurIPS";
- versions: a work cited as an arXiv preprint is served as the arXiv record and, for half of
  them, also as a published version a year later (Crossref + OpenAlex, linked to the preprint);
- identifiers: journal articles without a DOI in the citation get one at Crossref/OpenAlex;
  conference papers without a DOI are known to OpenAlex and Semantic Scholar only.

Every reference should come out `verified` (or `metadata_error` *minor*, which is not flagged);
anything flagged is a false alarm, reported by reason.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SHARED_DATA,
    SimulatorProcess,
    machine,
    simulator_settings,
    through_the_engine,
    unthrottled_limits,
)
from aletheia.bench.noise import NoiseModel
from aletheia.bench.noise_apply import apply_noise
from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.bibliography import InputProblem, parse_text
from aletheia.core.records import CitedReference
from aletheia.core.venues import canonical_venue, is_no_venue_claim, venue_name
from aletheia.sources.simulator import SimulatorConfig, universe_from_records

BIB_DIR = SHARED_DATA / "documents" / "bibtex-real"
# (name, files read together as one bibliography: @string files first)
DEFAULT_SETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("d2l", ("d2l/d2l.bib",)),
    ("probmlbib", ("probmlbib/longstrings.bib", "probmlbib/bibliography.bib", "probmlbib/dirty.bib")),
    ("cmlbib-icml2019", ("cmlbib/data/icml/icml2019.bib",)),
    ("cmlbib-nips2005", ("cmlbib/data/nips/nips2005.bib",)),
)
_SMALL = frozenset({"a", "an", "the", "of", "for", "and", "or", "in", "on", "with", "to", "via", "by", "at"})
_ORDINAL = {1: "st", 2: "nd", 3: "rd"}


def _h(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:8], 16)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else _ORDINAL.get(n % 10, 'th')}"


def _title_case(title: str) -> str:
    words = title.split(" ")
    out = [
        w if (i and w.lower() in _SMALL) or any(c.isupper() for c in w[1:]) else w[:1].upper() + w[1:]
        for i, w in enumerate(words)
    ]
    return " ".join(out)


def source_venue(cited: str | None, year: int | None) -> str | None:
    """The venue as Crossref / OpenAlex would write it."""
    if not cited or is_no_venue_claim(cited):
        return None
    key = canonical_venue(cited)
    y = year or 2019
    forms = {
        "icml": f"Proceedings of the {_ordinal(max(1, y - 1983))} International Conference on "
        "Machine Learning",
        "neurips": f"Advances in Neural Information Processing Systems {max(1, y - 1987)}",
        "cvpr": f"{y} IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
        "iccv": f"{y} IEEE/CVF International Conference on Computer Vision (ICCV)",
        "eccv": f"Computer Vision – ECCV {y}",
        "iclr": "International Conference on Learning Representations",
        "aaai": "Proceedings of the AAAI Conference on Artificial Intelligence",
        "jmlr": "Journal of Machine Learning Research",
    }
    if key in forms:
        return forms[key]
    if key is not None:
        return venue_name(key) or cited
    return cited


def _authors(ref: CitedReference, *, full: bool) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for a in ref.authors:
        if a.literal:
            out.append({"literal": a.literal})
        elif a.family:
            out.append({"given": a.given, "family": a.family} if a.given else {"family": a.family})
    if full and ref.authors_truncated:
        out += [
            {"given": g, "family": f}
            for g, f in (("Ana", "Okonkwo-Reyes"), ("Lars", "Thorvaldsen"), ("Mina", "Sato"))
        ]
    return out


def universe_for(refs: list[CitedReference]) -> list[dict[str, Any]]:
    """One work per distinct title, from the first citation of it (a later citation of the same
    title is judged against that one: see `duplicates` in `run`)."""
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    real_arxiv, versions = _cited_arxiv_ids(refs)
    for ref in refs:
        if not ref.title or (ref.entry_type in ("misc", "online", "software", "book") and not ref.authors):
            continue
        key = ref.title.lower()
        if key in seen:
            continue
        seen.add(key)
        h = _h(ref.key, ref.title)
        title, subtitle = ref.title, None
        if h % 3 == 0:
            title = _title_case(title) if title != _title_case(title) else title.capitalize()
        if ": " in title and h % 2 == 0:
            title, subtitle = title.split(": ", 1)
        from_doi = arxiv_id_from_doi(ref.doi) if ref.doi else None
        arxiv = ref.arxiv_id or real_arxiv.get(key) or (from_doi.id if from_doi else None)
        base: dict[str, Any] = {"title": title, "authors": _authors(ref, full=True), "year": ref.year}
        if subtitle:
            base["subtitle"] = subtitle
        if arxiv or (ref.venue and is_no_venue_claim(ref.venue)):
            records.extend(_preprint_records(ref, base, arxiv, h, versions))
        else:
            records.append(_published_record(ref, base, h))
    return records


def _cited_arxiv_ids(refs: list[CitedReference]) -> tuple[dict[str, str], dict[str, int]]:
    """The arXiv id any citation gives a title, and the latest version any citation names."""
    real_arxiv: dict[str, str] = {}
    versions: dict[str, int] = {}
    for ref in refs:
        if ref.title and ref.arxiv_id:
            real_arxiv.setdefault(ref.title.lower(), ref.arxiv_id)
            # arXiv has at least the version any citation names.
            versions[ref.arxiv_id] = max(versions.get(ref.arxiv_id, 1), ref.arxiv_version or 1)
    return real_arxiv, versions


def _preprint_records(
    ref: CitedReference, base: dict[str, Any], arxiv: str | None, h: int, versions: dict[str, int]
) -> list[dict[str, Any]]:
    """A work cited as an arXiv preprint: the preprint, and the published record when it has one."""
    if arxiv is None:  # cited as "arXiv preprint" with no id: one of the right shape
        yy = (ref.year or 2018) % 100
        arxiv = f"{yy:02d}{1 + h % 12:02d}." + (f"{h % 99999:05d}" if yy >= 15 else f"{1 + h % 9999:04d}")
    with_version = f"{arxiv}v{versions[arxiv]}" if versions.get(arxiv, 1) > 1 else arxiv
    # OpenAlex indexes arXiv preprints too (under arXiv's DataCite DOI).
    preprint = {
        **base,
        "type": "posted-content",
        "arxiv_id": with_version,
        "meta": {"cited": ref.key},
        "sources": ["arxiv", "semantic_scholar", "openalex"],
    }
    venue = source_venue(ref.venue, ref.year)
    if venue:
        # Cited with a venue *and* an arXiv id (eprint field, or another entry of the same
        # title): the published record, linked to the preprint, beside the preprint.
        published = {
            **base,
            "venue": venue,
            "type": "proceedings-article",
            "meta": {"cited": ref.key},
            "related": {"preprint_arxiv_id": arxiv},
            "sources": ["openalex", "semantic_scholar"],
        }
        return [published, {**preprint, "sources": ["arxiv"]}]
    if h % 2 == 0 and ref.year:
        published_doi = f"10.5555/pub.{h % 10**7}"
        return [
            {**preprint, "related": {"published_doi": published_doi}},
            {
                **base,
                "year": ref.year + 1,
                "venue": "Journal of Machine Learning Research",
                "doi": published_doi,
                "related": {"preprint_arxiv_id": arxiv},
                "meta": {"cited": ref.key, "version": "published"},
            },
        ]
    return [preprint]


def _published_record(ref: CitedReference, base: dict[str, Any], h: int) -> dict[str, Any]:
    """A work cited without an arXiv id: at its venue, with its DOI (or one of the right shape)."""
    venue = source_venue(ref.venue, ref.year)
    record: dict[str, Any] = {**base, "venue": venue, "meta": {"cited": ref.key}}
    if ref.entry_type == "inproceedings" or (
        ref.venue and canonical_venue(ref.venue) in {"icml", "neurips", "iclr"}
    ):
        record["type"] = "proceedings-article"
    if ref.doi:
        record["doi"] = ref.doi
    elif record.get("type") != "proceedings-article" and ref.entry_type == "article":
        record["doi"] = f"10.5555/j.{h % 10**8}"
    else:
        record["sources"] = ["openalex", "semantic_scholar"]
    return record


def read_set(files: tuple[str, ...], base: Path = BIB_DIR) -> tuple[list[CitedReference], int]:
    text = "\n".join((base / f).read_text(encoding="utf-8", errors="replace") for f in files)
    refs: list[CitedReference] = []
    problems = 0
    for item in parse_text(text, origin=files[-1]):
        if isinstance(item, InputProblem):
            problems += 1
        else:
            refs.append(item)
    return refs, problems


PROCESS_REASONS = frozenset(
    {
        "triangulated",
        "single_source",
        "doi_resolved",
        "arxiv_resolved",
        "pmid_resolved",
        "matched_by_search",
        "library_hit",
        "source_unavailable",
    }
)


def run(
    *,
    sets: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_SETS,
    limit: int | None = None,
    concurrency: int = 64,
    report: Path | None = None,
    noise: bool = True,
    seed: int = 10,
) -> dict[str, Any]:
    """`noise`: add the source noise measured on real records (`noise.py`: venue aliases at S2,
    series, repository primary locations, DBLP keys, a missing co-author, works at one source)."""
    if not BIB_DIR.is_dir():
        raise FileNotFoundError(f"the real BibTeX files are not at {BIB_DIR} (../shared/data/documents)")
    noise_counts: Counter[str] = Counter()
    per_set: dict[str, dict[str, int]] = {}
    outcomes: list[Any] = []
    duplicates: set[str] = set()
    elapsed = 0.0
    for name, files in sets:
        got, problems = read_set(files)
        if limit is not None:
            got = got[:limit]
        refs = [r.model_copy(update={"key": f"{name}:{r.key}:{i}"}) for i, r in enumerate(got)]
        titles: set[str] = set()
        for r in refs:
            if r.title and r.title.lower() in titles:
                duplicates.add(r.key)
            titles.add((r.title or "").lower())
        # One universe per bibliography: each is a separate user's file.
        records = universe_for(refs)
        if noise:
            noise_counts.update(_with_noise(records, refs, seed))
        per_set[name] = {
            "references": len(refs),
            "input_problems": problems,
            "universe_works": len(records),
            "repeated_titles": sum(1 for r in refs if r.key in duplicates),
        }
        elapsed += _verify_against(records, refs, concurrency, outcomes)
    tally, lines = _tally(outcomes, duplicates)
    if report is not None:
        report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "benchmark": "realbib",
        "machine": machine(),
        "sets": per_set,
        "references": len(outcomes),
        "universe_works": sum(s["universe_works"] for s in per_set.values()),
        "noise": dict(noise_counts.most_common()) if noise else None,
        "wall_seconds": round(elapsed, 2),
        **tally,
    }


def _with_noise(records: list[dict[str, Any]], refs: list[CitedReference], seed: int) -> list[str]:
    """The measured source noise applied to the universe's records; the kinds applied, once each."""
    model = NoiseModel()
    by_key = {r.key: r for r in refs}
    applied: list[str] = []
    for record in records:
        apply_noise(record, by_key.get(record.get("meta", {}).get("cited", "")), model, seed)
        applied.extend(n.split(":")[0] for n in record.get("meta", {}).get("noise", []))
    return applied


def _verify_against(
    records: list[dict[str, Any]], refs: list[CitedReference], concurrency: int, outcomes: list[Any]
) -> float:
    """`refs` verified against a simulator over `records`, their outcomes added to `outcomes`; the
    seconds the verification took."""
    with tempfile.TemporaryDirectory(prefix="aletheia-bench-") as tmp:
        universe_path = Path(tmp) / "realbib-universe.jsonl"
        universe_from_records(records, universe_path)
        with SimulatorProcess(universe_path, SimulatorConfig.unlimited()) as sim:
            settings = simulator_settings(sim.base_url, data_dir=Path(tmp), **unthrottled_limits())
            started = time.perf_counter()
            outcomes.extend(through_the_engine(refs, settings, concurrency))
            return time.perf_counter() - started


def _tally(outcomes: list[Any], duplicates: set[str]) -> tuple[dict[str, Any], list[str]]:
    """The statuses, the false alarms and why; and the report's TSV lines."""
    statuses: Counter[str] = Counter()
    flagged_reasons: Counter[str] = Counter()
    unflagged_reasons: Counter[str] = Counter()
    flagged = 0
    flagged_duplicates = 0
    lines = []
    for o in outcomes:
        v = o.verdict
        statuses[v.status.value] += 1
        reasons = [r.value for r in v.reasons if r.value not in PROCESS_REASONS]
        if v.flagged and o.cited.key in duplicates:
            # The bibliography cites this title twice and this entry disagrees with the first one
            # (the universe's record): an inconsistency of the file itself, counted apart.
            flagged_duplicates += 1
            lines.append(f"DUPLICATE\t{o.cited.key}\t{v.status.value}\t{','.join(reasons)}")
        elif v.flagged:
            flagged += 1
            flagged_reasons.update(reasons or [f"({v.status.value})"])
            lines.append(
                f"{o.cited.key}\t{v.status.value}\t{','.join(reasons)}\t{o.cited.title}\t{o.cited.venue}\t"
                f"{[a.display for a in o.cited.authors][:3]}\t{o.cited.year}"
            )
        elif v.status.value != "verified":
            unflagged_reasons.update(reasons or [f"({v.status.value})"])
    return {
        "statuses": dict(statuses.most_common()),
        "flagged": flagged,
        "flagged_repeated_title": flagged_duplicates,
        "flagged_rate": round(flagged / len(outcomes), 4) if outcomes else 0.0,
        "flagged_by_reason": dict(flagged_reasons.most_common()),
        "not_flagged_but_not_verified_by_reason": dict(unflagged_reasons.most_common()),
    }, lines


def format_report(f: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"sets: {f['sets']}",
            f"references: {f['references']}  universe: {f['universe_works']} works  "
            f"wall {f['wall_seconds']} s",
            f"source noise applied: {f.get('noise')}",
            f"statuses: {f['statuses']}",
            f"flagged (false alarms): {f['flagged']} ({f['flagged_rate']:.1%}); "
            f"flagged repeats of a title cited earlier in the same file: {f['flagged_repeated_title']}",
            f"flagged by reason: {f['flagged_by_reason']}",
            f"minor / not flagged, by reason: {f['not_flagged_but_not_verified_by_reason']}",
        ]
    )
