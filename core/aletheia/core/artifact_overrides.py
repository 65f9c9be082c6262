"""Accepted overrides (seed 000 §5.4): which of a source's disagreements with an artifact a human
already decided, so that the drift audit reports only what changed since.

An artifact accepted past a triangulation conflict records, field by field, what it says and what
the other source said (`overridden_conflicts`). A disagreement found later is the accepted one
when it is on the same field, the artifact still says what it said, and the source says what was
accepted (whichever source says it: a DOI's record at Crossref disagrees with a stale Semantic
Scholar author list exactly as OpenAlex's did). Values are compared as the gate compares them:
titles by `title_similarity` at the gate's threshold, surnames folded (`fold_name`), identifiers
cleaned, years as numbers.

Artifacts written before the field existed recorded the same facts as triangulation notes
(`overridden_conflict: FIELD: SOURCE says X vs SOURCE says Y`); `overrides_of` reads those too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, get_args

from aletheia.core.artifact_model import ArtifactFrontmatter, DecisiveField, OverriddenConflict
from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_pmid
from aletheia.core.records import SourceName
from aletheia.core.text import fold_name, normalize_title
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity

__all__ = ["accepted_override", "legacy_override_notes", "override_note", "overrides_of", "same_value"]

_SOURCES: Final = "|".join(re.escape(source.value) for source in SourceName)
_FIELDS: Final = "|".join(get_args(DecisiveField))
# What `override_note` writes; both source names are closed words, so " vs " inside a value is safe.
_LEGACY_NOTE: Final = re.compile(
    rf"overridden_conflict: (?P<field>{_FIELDS}): (?P<primary>{_SOURCES}) says (?P<recorded>.*)"
    rf" vs (?P<source>{_SOURCES}) says (?P<accepted>.*)",
    re.DOTALL,
)


def override_note(conflict: OverriddenConflict, primary: SourceName) -> str:
    """The human-readable triangulation note of an accepted disagreement."""
    return (
        f"overridden_conflict: {conflict.field}: {primary.value} says {conflict.recorded}"
        f" vs {conflict.source.value} says {conflict.accepted}"
    )


def legacy_override_notes(notes: Sequence[str]) -> list[OverriddenConflict]:
    """The disagreements an older artifact recorded only as `overridden_conflict:` notes."""
    found: list[OverriddenConflict] = []
    for note in notes:
        match = _LEGACY_NOTE.fullmatch(note)
        if match is None:
            continue
        recorded, accepted = match["recorded"], match["accepted"]
        found.append(
            OverriddenConflict(
                field=match["field"],
                source=SourceName(match["source"]),
                recorded=None if recorded == "None" else recorded,
                accepted=None if accepted == "None" else accepted,
            )
        )
    return found


def overrides_of(front: ArtifactFrontmatter) -> list[OverriddenConflict]:
    """The disagreements the artifact's human override accepted (none without an override)."""
    if not front.human_overridden:
        return []
    return list(front.overridden_conflicts) or legacy_override_notes(front.triangulation.notes)


def _year(value: str) -> int | None:
    try:
        return int(value.strip())
    except ValueError:
        return None


def _arxiv(value: str) -> str | None:
    parsed = clean_arxiv_id(value)
    return parsed.id if parsed else None


_CANONICAL: Final[dict[str, Callable[[str], object]]] = {
    "doi": clean_doi,
    "arxiv_id": _arxiv,
    "pmid": clean_pmid,
    "first_author_surname": fold_name,
    "year": _year,
}


def same_value(field: str, first: str | None, second: str | None) -> bool:
    """Whether two values of a decisive field are one value, as the triangulation gate sees it."""
    if first is None or second is None:
        return first is None and second is None
    if field == "title":
        if normalize_title(first) == normalize_title(second):
            return True
        return title_similarity(first, second) >= TITLE_THRESHOLD
    canonical = _CANONICAL.get(field)
    if canonical is None:
        return first.strip() == second.strip()
    one, other = canonical(first), canonical(second)
    return one == other if one is not None and other is not None else first.strip() == second.strip()


def accepted_override(
    field: str, recorded: str | None, current: str | None, overrides: Sequence[OverriddenConflict]
) -> OverriddenConflict | None:
    """The accepted disagreement a disagreement found now repeats (see the module docstring), if any."""
    for override in overrides:
        if (
            override.field == field
            and same_value(field, override.recorded, recorded)
            and same_value(field, override.accepted, current)
        ):
            return override
    return None
