"""Issue 10, false alarms on real citations: the 742 author-written references of seven ICLR 2026
submissions (`../shared/data/benchmarks/iclr2026-real-bibliographies`), or the same bibliographies
as an LLM extracted them from the PDFs (`--llm-extracted sonnet46|haiku45|gemini31`), verified
against a universe derived from the author-written references (`iclr_universe.universe_for_iclr`):
real recorded records where the responses have the work, the measured source noise elsewhere
(`noise.py`), and no work for references the sources would not hold.

Nearly every reference is genuine, so anything flagged (the exit-1 statuses) is a false alarm to be
judged by hand; the TSV lists each with the fields that disagree, the cited and found values, and
the source. Non-scholarly references are counted apart: they must come out `out_of_scope` or
`unverifiable`, never `not_found`. The flagged share is also given by where a reference's records
come from (issue 21): real recorded answers (the only figure that speaks about precision: a
record derived from its citation agrees with it by construction), derived, non-scholarly.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    DataMissing,
    disagreements,
    format_requests,
    machine,
    requests_twice_against,
)
from aletheia.bench.iclr_reader import ICLR_DIR, LLM_MODELS, read_all
from aletheia.bench.iclr_universe import measure_s2_published_only, universe_for_iclr
from aletheia.bench.noise import NoiseModel, TitleIndex, measure
from aletheia.bench.realbib_bench import PROCESS_REASONS
from aletheia.bench.recorded_records import load_api_cache
from aletheia.bench.tier_counts import (
    decisions_by_group,
    format_tier_table,
    matched_sources_by_tier,
    non_scholarly_group,
    tier_figures,
)
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_title
from aletheia.core.verdicts import LOGIC_VERSION

FLAGGED = ("metadata_error", "identifier_conflict", "not_found", "fabricated", "retracted")


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], capture_output=True, text=True, cwd=Path(__file__).parent, check=False, timeout=10
    )
    return done.stdout.strip()


def _git_commit() -> str:
    try:
        dirty = _git("status", "--porcelain", "--untracked-files=no")
        return _git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "") or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def noise_model(base: Path = ICLR_DIR, refs: list[CitedReference] | None = None) -> tuple[NoiseModel, Any]:
    """The noise measured on the recorded responses, and those records (for title matches)."""
    real = load_api_cache(base / "api_cache")
    rates = measure(real, [r.title or "" for r in refs or []])
    model = NoiseModel.from_measurement(rates)
    count, total = measure_s2_published_only(real)
    model.measured["s2_published_only"] = {
        "count": count,
        "total": total,
        "note": "S2 papers with an arXiv id and a venue, without a published DOI",
        "share": round(count / total, 3) if total else 0.0,
        "applied": round((count + 1) / (total + 2), 3),
    }
    return model, real


# Where a reference's records come from: what each figure of `flagged_by_record_origin` says.
ORIGINS = {
    "real_record": "real record",
    "derived": "derived",
    "non_scholarly": "non-scholarly",
}

_TSV_HEADER = (
    "paper\tindex\tstatus\treasons\tcited_title\tdisagreeing fields (cited / found / source)\tuniverse"
)


@dataclass
class _Tally:
    """The verdicts of one run counted: by status, flagged, by record origin, non-scholarly; the
    flagged references' TSV lines; the references no scholarly API holds, by group."""

    statuses: Counter[str] = field(default_factory=Counter)
    flagged_status: Counter[str] = field(default_factory=Counter)
    flagged_reasons: Counter[str] = field(default_factory=Counter)
    ns_statuses: Counter[str] = field(default_factory=Counter)
    unflagged: Counter[str] = field(default_factory=Counter)
    by_origin: dict[str, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in ORIGINS})
    lines: list[str] = field(default_factory=lambda: [_TSV_HEADER])
    flagged: int = 0
    groups: dict[str, str] = field(
        default_factory=dict
    )  # key -> kind, for the references no scholarly API holds
    dblp_groups: dict[str, str] = field(default_factory=dict)

    def add(self, o: Any, origin: str, where: str) -> None:
        """One outcome, its records' `origin` and where (for the TSV) its universe record came from."""
        v = o.verdict
        status = v.status.value
        self.statuses[status] += 1
        reasons = [r.value for r in v.reasons if r.value not in PROCESS_REASONS]
        self.by_origin[origin][status] += 1
        self.by_origin[origin]["flagged" if v.flagged else "not flagged"] += 1
        if v.flagged:
            self.flagged += 1
            self.flagged_status[status] += 1
            self.flagged_reasons.update(reasons or [f"({status})"])
            paper, index = o.cited.key.split(":", 1)
            severity = f"/{v.severity.value}" if v.severity else ""
            self.lines.append(
                f"{paper}\t{index}\t{status}{severity}\t{','.join(reasons)}\t"
                f"{o.cited.title}\t{disagreements(v)}\t{where}"
            )
        elif status != "verified":
            self.unflagged.update(reasons or [f"({status})"])


@dataclass(frozen=True)
class _IclrSet:
    """The references to verify (author-written or LLM-extracted), the author-written ones, and the
    universe derived from these (with what the derivation says of each record)."""

    refs: list[CitedReference]
    gold: list[CitedReference]
    model: NoiseModel
    index: TitleIndex
    records: list[dict[str, Any]]
    info: dict[str, Any]


def _iclr_set(base: Path, model_name: str | None, limit: int | None, seed: int) -> _IclrSet:
    if not (base / "papers").is_dir():
        raise DataMissing(f"the ICLR 2026 bibliographies are not at {base} (../shared/data/benchmarks)")
    if model_name is not None and model_name not in LLM_MODELS:
        raise ValueError(f"--llm-extracted must be one of {', '.join(LLM_MODELS)}")
    gold = read_all(base)
    refs = read_all(base, model=model_name) if model_name else gold
    if limit is not None:
        refs = refs[:limit]
        gold = gold[:limit] if model_name is None else gold
    return _IclrSet(refs, gold, *derived_universe(gold, seed, base))


def derived_universe(
    gold: list[CitedReference], seed: int, base: Path = ICLR_DIR
) -> tuple[NoiseModel, TitleIndex, list[dict[str, Any]], dict[str, Any]]:
    """The universe of `aletheia bench realbib --iclr` for the author-written references `gold`:
    the noise model measured on the recorded responses, their title index, the universe's records
    and what the derivation says of each (`universe_for_iclr`)."""
    model, real = noise_model(base, gold)
    index = TitleIndex(real)
    records, info = universe_for_iclr(
        gold,
        seed,
        model=model,
        real=index,
        s2_published_only=model.measured["s2_published_only"]["applied"],
    )
    return model, index, records, info


def run(
    *,
    model_name: str | None = None,
    limit: int | None = None,
    seed: int = 10,
    concurrency: int = 32,
    report: Path | None = None,
    base: Path = ICLR_DIR,
) -> dict[str, Any]:
    iclr = _iclr_set(base, model_name, limit, seed)
    outcomes, requests, elapsed = requests_twice_against(iclr.records, iclr.refs, concurrency, name="iclr")
    tally = _tally(iclr, outcomes, model_name)
    if report is not None:
        report.write_text("\n".join(tally.lines) + "\n", encoding="utf-8")
    return {
        "benchmark": "realbib-iclr" + (f"-llm-{model_name}" if model_name else ""),
        "logic_version": LOGIC_VERSION,
        "git_commit": _git_commit(),
        "machine": machine(),
        "seed": seed,
        **_figures(iclr, outcomes, tally),
        "wall_seconds": round(elapsed, 2),
        "requests": requests,
        **_verdict_figures(outcomes, tally),
    }


def _tally(iclr: _IclrSet, outcomes: list[Any], model_name: str | None) -> _Tally:
    gold, non_scholarly = iclr.gold, iclr.info["non_scholarly"]
    # Issue 12: what no scholarly API in the recording knows: the non-scholarly kinds, and the
    # papers only DBLP answered for (by title, so that an LLM extraction finds the same ones).
    ns_by_title = {
        (r.title or "").casefold(): non_scholarly_group(non_scholarly[r.key])
        for r in gold
        if r.key in non_scholarly
    }
    dblp_only_titles = {(r.title or "").casefold() for r in gold if dblp_only(iclr.index, r.title)}
    # An LLM-extracted reference is non-scholarly when the author-written one of its title is.
    gold_ns_titles = {(r.title or "").casefold() for r in gold if r.key in non_scholarly}
    origin_of = record_origins(gold, iclr.info)
    provenance = recorded_and_copied(iclr.records, gold)
    tally = _Tally()
    for o in outcomes:
        title = (o.cited.title or "").casefold()
        is_ns = o.cited.key in non_scholarly if model_name is None else title in gold_ns_titles
        if is_ns:
            tally.ns_statuses[o.verdict.status.value] += 1
            tally.groups[o.cited.key] = (
                non_scholarly_group(non_scholarly[o.cited.key])
                if model_name is None
                else ns_by_title.get(title, "non-scholarly")
            )
        origin = "non_scholarly" if is_ns else origin_of.get(normalize_title(o.cited.title or ""), "derived")
        if title in dblp_only_titles:
            tally.dblp_groups[o.cited.key] = "paper only DBLP answered for in the recording"
        where = ORIGINS[origin]
        if origin == "real_record":
            where += provenance.get(normalize_title(o.cited.title or ""), "")
        tally.add(o, origin, where)
    return tally


def _figures(iclr: _IclrSet, outcomes: list[Any], tally: _Tally) -> dict[str, Any]:
    """The references and the universe they were verified against."""
    info, non_scholarly = iclr.info, iclr.info["non_scholarly"]
    return {
        "references": len(outcomes),
        "universe_works": len(iclr.records),
        "universe": {
            "real_record": len(info["real"]),
            "derived": len(info["derived"]),
            "non_scholarly_no_work": len(non_scholarly),
            "s2_published_only": len(info["s2_published_only"]),
            "noise_applied": info["noise"],
            "non_scholarly_by_reason": dict(Counter(non_scholarly.values()).most_common()),
        },
        "noise_model": iclr.model.measured,
    }


def _verdict_figures(outcomes: list[Any], tally: _Tally) -> dict[str, Any]:
    """What the verdicts were: statuses, the flagged share and why, by origin, by tier."""
    n = len(outcomes) or 1
    verdicts = {o.cited.key: o.verdict for o in outcomes}
    return {
        "statuses": dict(tally.statuses.most_common()),
        "flagged": tally.flagged,
        "flagged_rate": round(tally.flagged / n, 4),
        "flagged_by_status": dict(tally.flagged_status.most_common()),
        "flagged_by_reason": dict(tally.flagged_reasons.most_common()),
        # Issue 21: only the references whose records are real recorded answers speak about
        # precision; a record derived from its citation agrees with it by construction.
        "flagged_by_record_origin": origin_figures(tally.by_origin),
        "unverifiable_rate": round(tally.statuses["unverifiable"] / n, 4),
        "out_of_scope_rate": round(tally.statuses["out_of_scope"] / n, 4),
        "non_scholarly_statuses": dict(tally.ns_statuses.most_common()),
        "non_scholarly_not_found": tally.ns_statuses["not_found"],
        "not_flagged_but_not_verified_by_reason": dict(tally.unflagged.most_common()),
        # Issue 12: by tier and verification status, as a report's summary counts them
        **tier_figures(verdicts.values()),
        "matched_sources_by_tier": matched_sources_by_tier(verdicts.values()),
        "non_scholarly_by_tier": tier_figures(verdicts[k] for k in tally.groups),
        "not_known_to_scholarly_apis": {
            **decisions_by_group(tally.groups, verdicts),
            **decisions_by_group(tally.dblp_groups, verdicts),
        },
    }


def format_report(f: dict[str, Any]) -> str:
    u = f["universe"]
    return "\n".join(
        [
            f"{f['benchmark']}: logic {f['logic_version']}, commit {f['git_commit']}, seed {f['seed']}",
            f"references: {f['references']}  universe: {f['universe_works']} works "
            f"({u['real_record']} from real records, {u['derived']} derived, "
            f"{u['non_scholarly_no_work']} non-scholarly references without a work, "
            f"{u['s2_published_only']} published venue known to S2 only)  wall {f['wall_seconds']} s",
            f"noise applied: {u['noise_applied']}",
            f"statuses: {f['statuses']}",
            f"FLAGGED: {f['flagged']} ({f['flagged_rate']:.1%})  by status: {f['flagged_by_status']}",
            f"flagged by reason: {f['flagged_by_reason']}",
            *_format_origins(f),
            f"unverifiable: {f['unverifiable_rate']:.1%}  out_of_scope: {f['out_of_scope_rate']:.1%}",
            f"non-scholarly references (no work in the universe): {f['non_scholarly_statuses']} "
            f"(not_found: {f['non_scholarly_not_found']})",
            f"not flagged but not verified, by reason: {f['not_flagged_but_not_verified_by_reason']}",
            *([format_requests(f["requests"])] if "requests" in f else []),
            *_format_tiers(f),
        ]
    )


def record_origins(gold: list[CitedReference], info: dict[str, Any]) -> dict[str, str]:
    """Normalised title -> "real_record" or "derived": where the universe's work of that title
    comes from (a title cited in several papers has one work, made from one of its citations)."""
    by_key = {r.key: normalize_title(r.title or "") for r in gold}
    origins = {by_key[k]: "derived" for k in info["derived"] if by_key.get(k)}
    origins.update({by_key[k]: "real_record" for k in info["real"] if by_key.get(k)})
    return origins


def recorded_and_copied(records: list[dict[str, Any]], gold: list[CitedReference]) -> dict[str, str]:
    """Normalised cited title -> which sources of a real-record work gave a recorded answer and
    which serve a copy of it (`iclr_universe.real_work` adds S2, and Crossref/OpenAlex for a DOI):
    a copy agrees with the recorded answer by construction, so it is no second witness."""
    titles = {r.key: normalize_title(r.title or "") for r in gold}
    out: dict[str, str] = {}
    for record in records:
        meta = record.get("meta", {})
        recorded = list(dict.fromkeys(meta.get("real", [])))
        title = titles.get(meta.get("cited", ""))
        if not recorded or not title:
            continue
        copies = [s for s in dict.fromkeys(record.get("sources", [])) if s not in recorded]
        out[title] = f" (recorded: {', '.join(recorded)}; copies: {', '.join(copies) or 'none'})"
    return out


def origin_figures(by_origin: dict[str, Counter[str]]) -> dict[str, dict[str, Any]]:
    figures: dict[str, dict[str, Any]] = {}
    for name, counts in by_origin.items():
        total = counts["flagged"] + counts["not flagged"]
        statuses = {k: v for k, v in counts.most_common() if k not in ("flagged", "not flagged")}
        figures[name] = {
            "references": total,
            "flagged": counts["flagged"],
            "flagged_rate": round(counts["flagged"] / total, 4) if total else 0.0,
            "statuses": statuses,
        }
    return figures


def _format_origins(f: dict[str, Any]) -> list[str]:
    if "flagged_by_record_origin" not in f:
        return []
    parts = [
        f"{ORIGINS[name]} {g['flagged']}/{g['references']} ({g['flagged_rate']:.1%})"
        for name, g in f["flagged_by_record_origin"].items()
    ]
    return [
        "FLAGGED by where the records come from (only real records speak about precision): "
        + "; ".join(parts)
    ]


def dblp_only(index: TitleIndex, title: str | None) -> bool:
    """The recording has this title from DBLP and from no other source."""
    found = {r.source for r in index.match(title)}
    return found == {"dblp"}


def _format_tiers(f: dict[str, Any]) -> list[str]:
    if "by_tier" not in f:
        return []
    lines = [
        f"by verification status: {f['by_verification_status']}",
        format_tier_table(f, title="all references by tier"),
        f"matched work's source, by tier: {f['matched_sources_by_tier']}",
        format_tier_table(f["non_scholarly_by_tier"], title="non-scholarly references by tier"),
        "not known to the scholarly APIs, how they are decided (verdict · tier · content type):",
    ]
    for group, g in f["not_known_to_scholarly_apis"].items():
        decided = "; ".join(f"{label}: {count}" for label, count in g["decided"].items())
        lines.append(f"  {group} ({g['references']}): {decided}; reasons {g['reasons']}")
    return lines
