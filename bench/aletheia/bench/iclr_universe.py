"""The universe for the ICLR 2026 references: derived from the citations, with real records where
the recorded responses have the work, and the measured source noise (`noise.py`) on the rest.

- A reference whose title matches a recorded Crossref / OpenAlex / Semantic Scholar record
  (normalised titles, rapidfuzz ratio >= 92) gets the real record's fields: its title, authors,
  year, venue and DOI, and each source that recorded the work serves its own real view of it
  (`overrides`). The noise is not applied to it: it is the real noise.
- Any other scholarly reference is derived as `realbib_bench.universe_for` derives a BibTeX entry
  (sources' title case, structured names, long venue forms, preprint/published pairs), then
  `noise.apply_noise` adds the measured noise. An arXiv-cited paper whose citation names a venue is,
  at the measured share (`s2_published_only`), known only as the arXiv record, with Semantic Scholar
  naming the published venue (`s2_publication_venue`).
- A non-scholarly reference (code, model cards, web pages, blogs, datasets, software, books, a
  reference with neither authors nor venue nor identifier) gets no work: the checker must say
  `out_of_scope` or `unverifiable`, never `not_found`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from aletheia.bench.noise import NoiseModel, TitleIndex
from aletheia.bench.noise_apply import apply_noise, set_new_field, unit
from aletheia.bench.realbib_bench import source_venue, universe_for
from aletheia.bench.recorded_records import RealRecord
from aletheia.bench.tier_counts import CODE_HOSTS
from aletheia.core.authors import parse_name
from aletheia.core.coverage import DATA_DOI_PREFIXES, NON_CROSSREF_DOI_PREFIXES
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_title, repair_pdf_name, repair_pdf_text

# Hosts of things the scholarly indexes do not hold (or hold as something else than cited).
NON_SCHOLARLY_HOSTS = (
    *CODE_HOSTS,
    "openai.com",
    "z.ai",
    "gurobi.com",
    "cacm.acm.org",
    "books.google.",
    "notion.site",
    "medium.com",
    "substack.com",
)
_NON_SCHOLARLY_VENUE = re.compile(
    r"(?i)\b(?:github|gitlab|hugging ?face|kaggle|zenodo|blog|notion|website|software|model card|"
    r"repository)\b"
)
_NON_SCHOLARLY_TITLE = re.compile(
    r"(?i)\b(?:model card|license agreement|licen[cs]e|reference manual|leaderboard)\b"
)
_SOURCE_ORDER = ("crossref", "openalex", "semantic_scholar")
# Preprint servers: scholarly, whatever the URL looks like.
_PREPRINT_HOSTS = ("biorxiv.org", "medrxiv.org", "chemrxiv.org", "ssrn.com", "researchsquare.com")
S2_PUBLISHED_ONLY = 0.5  # default when nothing was measured; see `measure_s2_published_only`


def _repaired(ref: CitedReference) -> CitedReference:
    """What PDF extraction did to a citation undone (the sources never have it): ligatures,
    detached diacritics, and in names a kerned capital split off its word."""
    # The whole name, re-parsed: "Rafael Br ¨uschweiler" was split at the artefact's space.
    authors = tuple(
        a if a.literal else parse_name(repair_pdf_name(a.display)).model_copy(update={"suffix": a.suffix})
        for a in ref.authors
    )
    return ref.model_copy(update={"title": repair_pdf_text(ref.title or "") or None, "authors": authors})


def _registrant(doi: str) -> str:
    return doi.split("/", 1)[0]


def _host(url: str | None) -> str:
    try:
        return (urlsplit(url or "").hostname or "").lower()
    except ValueError:
        return ""


def non_scholarly_reason(ref: CitedReference) -> str | None:
    """Why the sources would not hold this reference (None: a scholarly work they would hold)."""
    host = _host(ref.url)
    if ref.arxiv_id:
        return None
    if any(
        host == h or host.endswith("." + h) or (h.endswith(".") and h in host) for h in NON_SCHOLARLY_HOSTS
    ):
        return f"url at {host}"
    if ref.doi and _registrant(ref.doi) in DATA_DOI_PREFIXES:
        return "data/software archive DOI"
    if ref.venue and _NON_SCHOLARLY_VENUE.search(ref.venue):
        return f"venue {ref.venue!r}"
    if ref.title and _NON_SCHOLARLY_TITLE.search(ref.title):
        return "title names a model card / licence / manual"
    if ref.entry_type == "book" and not ref.doi:
        return "book"
    if not ref.authors and not ref.venue and not ref.doi:
        return "no authors, venue or identifier"
    if any(a.literal for a in ref.authors) and not (ref.venue or ref.doi) and ref.url:
        return "a group's web page"
    if any(host == h or host.endswith("." + h) for h in _PREPRINT_HOSTS):
        return None
    if ref.entry_type == "misc" and not ref.venue and not ref.doi and ref.url:
        return f"a web page at {host}"
    return None


def _sim_authors(record: RealRecord) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for a in record.authors:
        if "literal" in a:
            out.append({"literal": a["literal"]})
        elif record.source == "crossref":
            out.append({k: a[k] for k in ("given", "family") if a.get(k)})
        else:  # a display name: parse it as the product's parser of that source would
            name = " ".join(v for v in a.values() if v)
            parsed = parse_name(name)
            if parsed.literal:
                out.append({"literal": parsed.literal})
            elif parsed.family:
                out.append(
                    {"given": parsed.given, "family": parsed.family}
                    if parsed.given
                    else {"family": parsed.family}
                )
    return [a for a in out if a]


def _real_view(record: RealRecord) -> dict[str, Any]:
    view: dict[str, Any] = {"title": record.title, "authors": _sim_authors(record), "year": record.year}
    repository = bool(record.venue and re.search(r"(?i)arxiv|corr", record.venue))
    view["venue"] = None if repository else record.venue
    return view


def real_work(records: list[RealRecord], ref: CitedReference) -> dict[str, Any] | None:
    """A work from the recorded records of one reference (Crossref first, then OpenAlex, S2)."""
    # The record of the cited DOI first (a preprint and its published version share a title),
    # then Crossref, OpenAlex, S2.
    ordered = sorted(
        (r for r in records if r.source in _SOURCE_ORDER),
        key=lambda r: (not (ref.doi and r.doi == ref.doi.lower()), _SOURCE_ORDER.index(r.source)),
    )
    if not ordered:
        return None
    first: dict[str, RealRecord] = {}
    for r in ordered:
        first.setdefault(r.source, r)
    base = ordered[0]
    doi = next((r.doi for r in ordered if r.doi and not r.doi.startswith("10.48550/")), None)
    arxiv = next((r.arxiv_id for r in ordered if r.arxiv_id), None) or ref.arxiv_id
    if doi is None:
        arxiv_doi = next((r.doi for r in ordered if r.doi and r.doi.startswith("10.48550/")), None)
        if arxiv_doi and not arxiv:
            arxiv = arxiv_doi.split("arxiv.", 1)[-1]
    work: dict[str, Any] = {
        **_real_view(base),
        "meta": {"cited": ref.key, "real": [r.source for r in ordered]},
    }
    conference = bool(base.venue and re.search(r"(?i)proceedings|conference|advances in neural", base.venue))
    work["type"] = base.work_type or ("proceedings-article" if conference else "journal-article")
    if conference and work["type"] == "journal-article":
        work["type"] = "proceedings-article"
    if not work["venue"] and not doi and arxiv:
        work["type"] = "posted-content"
    if doi:
        work["doi"] = doi
    if arxiv:
        work["arxiv_id"] = arxiv
    sources = _serving_sources(first, doi, arxiv)
    work["sources"] = sources
    _add_overrides(work, first, base, sources)
    s2 = first.get("semantic_scholar")
    if s2 is not None and s2.aliases and "semantic_scholar" in sources:
        work.setdefault("overrides", {}).setdefault("semantic_scholar", {})["venue_aliases"] = list(
            s2.aliases
        )
    if s2 is not None and s2.dblp_key:
        set_new_field(work, "dblp_key", s2.dblp_key)
    work["overrides"] = {k: v for k, v in work.get("overrides", {}).items() if v and k in sources}
    return work


def _serving_sources(first: dict[str, RealRecord], doi: str | None, arxiv: str | None) -> list[str]:
    """The recorded sources, and Semantic Scholar (a source the recording did not ask is no evidence
    that it lacks the work; S2 holds nearly everything with a title)."""
    sources = [*first, *(["semantic_scholar"] if "semantic_scholar" not in first else [])]
    if not doi:
        sources = [s for s in sources if s != "crossref"]
    elif _registrant(doi) not in NON_CROSSREF_DOI_PREFIXES:
        # A DOI registered at Crossref resolves there and OpenAlex indexes it.
        sources += [s for s in ("crossref", "openalex") if s not in sources]
    if arxiv:
        sources.append("arxiv")
    return sources


def _add_overrides(
    work: dict[str, Any], first: dict[str, RealRecord], base: RealRecord, sources: list[str]
) -> None:
    """What each other recorded source says otherwise than `base`, as that source's overrides."""
    for source, record in first.items():
        if record is not base and source in sources:
            view = _real_view(record)
            work.setdefault("overrides", {})[source] = {k: v for k, v in view.items() if v != work.get(k)}
    # A source the recording did not ask is served so that its lookups and searches find the work,
    # but what it would say about the year and the authors is not known: its copy carries neither,
    # so a copy of one recorded answer is never a second witness of a date or an author list.
    for source in sources:
        if source not in first and source != "arxiv" and source != base.source:
            work.setdefault("overrides", {})[source] = {"year": None, "authors": []}


def universe_for_iclr(
    refs: list[CitedReference],
    seed: int,
    *,
    model: NoiseModel | None = None,
    real: TitleIndex | None = None,
    s2_published_only: float = S2_PUBLISHED_ONLY,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The universe's records and what was done to each reference (`info`: `real` keys, `derived`
    keys, `non_scholarly` key -> reason, `noise` counts, `s2_published_only` keys)."""
    model = model or NoiseModel()
    records: list[dict[str, Any]] = []
    info: dict[str, Any] = {
        "real": [],
        "derived": [],
        "non_scholarly": {},
        "noise": {},
        "s2_published_only": [],
    }
    seen: set[str] = set()
    # A title cited in several papers gets one work, from the citation with the most identifiers
    # (the others are judged against it; the order of the output follows the input).
    ranked = sorted(refs, key=lambda r: (not r.doi, not r.arxiv_id))
    for ref in ranked:
        key = normalize_title(ref.title or "")
        matched = real.match(ref.title) if real is not None else []
        if key and key in seen:
            continue
        work = real_work(matched, ref) if matched else None
        if work is not None:
            seen.add(key)
            records.append(work)
            info["real"].append(ref.key)
            continue
        reason = non_scholarly_reason(ref)
        if reason is not None or not ref.title:
            info["non_scholarly"][ref.key] = reason or "no title"
            continue
        seen.add(key)
        info["derived"].append(ref.key)
        ref = _repaired(ref)
        venue = source_venue(ref.venue, ref.year)
        if ref.arxiv_id and venue and unit(seed, ref.key, "s2-published") < s2_published_only:
            # Published, but only Semantic Scholar knows it: the preprint, and S2's publicationVenue.
            derived = universe_for([ref.model_copy(update={"venue": None})])
            for record in derived:
                if record.get("type") == "posted-content":
                    set_new_field(record, "s2_publication_venue", venue)
            info["s2_published_only"].append(ref.key)
        else:
            derived = universe_for([ref])
        for record in derived:
            apply_noise(record, ref, model, seed)
            for name in record.get("meta", {}).get("noise", []):
                info["noise"][name.split(":")[0]] = info["noise"].get(name.split(":")[0], 0) + 1
            records.append(record)
    return records, info


def measure_s2_published_only(real: list[RealRecord]) -> tuple[int, int]:
    """S2 papers with an arXiv id and a venue other than arXiv: how many have no published DOI
    (only arXiv's DataCite DOI or none), i.e. the published version is known to S2 alone."""
    papers = [
        r
        for r in real
        if r.source == "semantic_scholar" and r.arxiv_id and r.venue and "arxiv" not in r.venue.lower()
    ]
    only = [r for r in papers if not r.doi or r.doi.startswith("10.48550/")]
    return len(only), len(papers)
