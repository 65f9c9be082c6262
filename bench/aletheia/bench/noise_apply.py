"""The measured source noise (`noise.NoiseModel`) applied to a record of a derived universe: each
kind drawn at its rate, deterministically from the seed and the record, as `SimWork` fields where
the simulator has them and under `meta["pending"]` where it does not yet.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from aletheia.bench.noise import NoiseModel
from aletheia.core.records import CitedReference
from aletheia.core.venues import canonical_venue
from aletheia.sources.simulator.work import SimWork

__all__ = ["NEW_FIELDS", "REPOSITORIES", "apply_noise", "has_field", "set_new_field", "unit"]


def unit(*parts: object) -> float:
    """A deterministic draw in [0, 1) from the parts (the seed among them)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:12], 16) / 16**12


# The repositories the recorded OpenAlex works have as primary location beside a journal/conference.
REPOSITORIES = (
    "Lancaster EPrints (Lancaster University)",
    "Max Planck Digital Library",
    "CERN Document Server (European Organization for Nuclear Research)",
    "arXiv (Cornell University)",
)

# SimWork fields being added to the simulator (venue aliases, series, repository primary location,
# DBLP key, S2 published venue). Until they exist the derivation records them under
# `meta["pending"]` instead, so the universe stays valid and the run says what it could not model.
NEW_FIELDS = ("venue_aliases", "series", "repository_primary", "dblp_key", "issn", "s2_publication_venue")


def has_field(name: str) -> bool:
    return name in SimWork.model_fields


def set_new_field(record: dict[str, Any], name: str, value: Any) -> None:
    if has_field(name):
        record[name] = value
    else:
        record.setdefault("meta", {}).setdefault("pending", {})[name] = value


def _override(record: dict[str, Any], source: str, **changes: Any) -> None:
    record.setdefault("overrides", {}).setdefault(source, {}).update(changes)


def _general_sources(record: dict[str, Any]) -> list[str]:
    if record.get("sources") is not None:
        return [s for s in record["sources"] if s != "arxiv"]
    doi = record.get("doi") or ""
    has_doi = bool(doi) and not doi.lower().startswith("10.48550/")
    return (["crossref", "openalex"] if has_doi else []) + ["semantic_scholar"]


def _acronym(cited: str) -> str:
    return re.sub(r"(?i)^(?:proc\.?|proceedings of(?: the)?)\s+", "", cited).strip()


def _dblp_key(record: dict[str, Any]) -> str:
    family = next((a.get("family") or a.get("literal") or "" for a in record.get("authors", [])), "X")
    stem = re.sub(r"[^A-Za-z]", "", family)[:12] or "X"
    yy = f"{(record.get('year') or 2020) % 100:02d}"
    if record.get("type") == "posted-content" and record.get("arxiv_id"):
        return f"journals/corr/abs-{str(record['arxiv_id']).split('v')[0].replace('.', '-')}"
    venue = canonical_venue(record.get("venue")) or "misc"
    kind = "conf" if record.get("type") == "proceedings-article" else "journals"
    return f"{kind}/{venue}/{stem}{yy}"


class _Draws:
    """The record's deterministic draws (seed, title, type and identifiers) and what was applied."""

    def __init__(self, record: dict[str, Any], seed: int) -> None:
        self.tag = (seed, record.get("title"), record.get("type"), record.get("doi"), record.get("arxiv_id"))
        self.applied: list[str] = []

    def unit(self, name: str) -> float:
        return unit(*self.tag, name)

    def draw(self, name: str, rate: float) -> bool:
        return self.unit(name) < rate


def apply_noise(
    record: dict[str, Any], ref: CitedReference | None, model: NoiseModel, seed: int
) -> dict[str, Any]:
    """The measured kinds of source noise, each drawn at its rate (deterministic given the seed,
    the record's title and type). Changes `record` in place and returns it; `meta["noise"]` lists
    what was applied."""
    draws = _Draws(record, seed)
    general = _general_sources(record)
    _venue_noise(record, ref, model, draws, general)
    _author_noise(record, ref, model, draws, general)
    if len(general) > 1 and draws.draw("single", model.single_source):
        # A DOI registered at Crossref always resolves there: such a work keeps Crossref (as every
        # recorded single-source work with a DOI did); a DOI-less one keeps OpenAlex or S2.
        keep = (
            "crossref" if "crossref" in general else general[int(draws.unit("which-source") * len(general))]
        )
        record["sources"] = [keep] + (["arxiv"] if record.get("arxiv_id") else [])
        record["overrides"] = {k: v for k, v in record.get("overrides", {}).items() if k in record["sources"]}
        draws.applied.append(f"single_source:{keep}")
    if draws.applied:
        record.setdefault("meta", {})["noise"] = draws.applied
    return record


def _venue_noise(
    record: dict[str, Any], ref: CitedReference | None, model: NoiseModel, draws: _Draws, general: list[str]
) -> None:
    """Venue aliases, a series beside the proceedings, OpenAlex's repository locations, a DBLP key."""
    venue = record.get("venue")
    preprint = record.get("type") == "posted-content"
    cited_venue = ref.venue if ref is not None else None
    if (
        venue
        and cited_venue
        and cited_venue.casefold() != venue.casefold()
        and draws.draw("alias", model.venue_aliases)
    ):
        aliases = [_acronym(cited_venue)]
        key = canonical_venue(cited_venue)
        if key and key.upper() not in aliases:
            aliases.append(key.upper())
        set_new_field(record, "venue_aliases", aliases)
        # Measured at Semantic Scholar (alternate names): the others do not publish them here.
        for other in ("crossref", "openalex"):
            if other in general:
                _override(record, other, venue_aliases=[])
        draws.applied.append("venue_aliases")
    if venue and not preprint and "crossref" in general and draws.draw("series", model.series):
        series = "Lecture Notes in Computer Science" if record.get("type") != "journal-article" else venue
        if record.get("type") == "journal-article":
            series = f"{venue} (Online)"
        set_new_field(record, "series", series)
        draws.applied.append("series")
    if venue and not preprint and "openalex" in general:
        if draws.draw("repository_primary", model.repository_primary):
            names = REPOSITORIES
            set_new_field(record, "repository_primary", names[int(draws.unit("repo") * len(names))])
            draws.applied.append("repository_primary")
        elif draws.draw("openalex_repository_only", model.openalex_repository_only):
            if record.get("doi") or draws.unit("oa-kind") < 0.5:
                _override(record, "openalex", venue=None)
            else:
                _override(record, "openalex", venue="arXiv (Cornell University)", type="posted-content")
            draws.applied.append("openalex_repository_only")
    if "semantic_scholar" in general and draws.draw("dblp", model.dblp_key):
        set_new_field(record, "dblp_key", _dblp_key(record))
        draws.applied.append("dblp_key")


def _author_noise(
    record: dict[str, Any], ref: CitedReference | None, model: NoiseModel, draws: _Draws, general: list[str]
) -> None:
    """A co-author missing at Semantic Scholar, a consortium written as a person at Crossref, a
    suffix written as the surname."""
    authors = list(record.get("authors") or [])
    if (
        len(authors) >= 3
        and "semantic_scholar" in general
        and draws.draw("coauthor", model.author_count_differs)
    ):
        drop = 1 + int(draws.unit("which") * (len(authors) - 2))
        _override(record, "semantic_scholar", authors=authors[:drop] + authors[drop + 1 :])
        draws.applied.append("missing_coauthor")
    groups = [i for i, a in enumerate(authors) if "literal" in a and len(a["literal"].split()) > 1]
    if groups and "crossref" in general and draws.draw("consortium", model.consortium_as_person):
        changed = [dict(a) for a in authors]
        for i in groups:
            words = changed[i]["literal"].split()
            changed[i] = {"given": " ".join(words[:-1]), "family": words[-1]}
        _override(record, "crossref", authors=changed)
        draws.applied.append("consortium_as_person")
    suffixed = [i for i, a in enumerate(ref.authors if ref is not None else ()) if a.suffix]
    if suffixed and general and draws.draw("suffix", model.suffix_as_surname):
        changed = [dict(a) for a in authors]
        for i in suffixed:
            if i < len(changed) and changed[i].get("family") and ref is not None:
                suffix = ref.authors[i].suffix or ""
                given = " ".join(x for x in (changed[i].get("given"), changed[i]["family"]) if x)
                changed[i] = {"given": given, "family": suffix}
        _override(record, general[0], authors=changed)
        draws.applied.append("suffix_as_surname")
