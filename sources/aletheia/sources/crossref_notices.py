"""A Crossref work's standing from Crossmark updates: retractions, corrections, expressions of
concern, withdrawals and reinstatements, as `RetractionNotice`s.

Standing comes three ways: `updated-by` on the updated work (newer deposits, including Retraction
Watch's data with `"source": "retraction-watch"`), `update-to` on the notice itself (a notice
pointing at its own DOI marks the record itself; one pointing elsewhere makes the record a notice
*for* that DOI), and the `updates:{doi}` filter (`notices_from_update_to` reads its answers) that
finds notices an old deposit does not link back to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.identifiers import clean_doi
from aletheia.core.records import RetractionKind, RetractionNotice, SourceName
from aletheia.sources.crossref_values import iso_date, objects

__all__ = ["notices_from_update_to", "standing_notices", "update_kind"]

SOURCE: Final = SourceName.CROSSREF

# Crossmark update types -> standing. `new_version` / `new_edition` say nothing about standing.
_UPDATE_KINDS: Final[dict[str, RetractionKind]] = {
    "retraction": RetractionKind.RETRACTED,
    "partial_retraction": RetractionKind.RETRACTED,
    "withdrawal": RetractionKind.WITHDRAWN,
    "removal": RetractionKind.WITHDRAWN,
    "expression_of_concern": RetractionKind.EXPRESSION_OF_CONCERN,
    "correction": RetractionKind.CORRECTED,
    "corrigendum": RetractionKind.CORRECTED,
    "erratum": RetractionKind.CORRECTED,
    "addendum": RetractionKind.CORRECTED,
    "clarification": RetractionKind.CORRECTED,
    "reinstatement": RetractionKind.REINSTATED,
}


def update_kind(update_type: Any) -> RetractionKind | None:
    """A Crossmark update type (`retraction`, `expression-of-concern`, ...) as a standing, or None
    for updates that do not touch standing (`new_version`) and for unknown types."""
    if not isinstance(update_type, str):
        return None
    return _UPDATE_KINDS.get(update_type.strip().lower().replace("-", "_").replace(" ", "_"))


def _notice(entry: Mapping[str, Any], kind: RetractionKind, *, notice_doi: str | None) -> RetractionNotice:
    update_type = str(entry.get("type", "")).strip()
    via_retraction_watch = str(entry.get("source", "")).lower() == "retraction-watch"
    detail = update_type
    if via_retraction_watch:
        record = entry.get("record-id")
        detail += " (Retraction Watch data via Crossref" + (f"; record {record})" if record else ")")
    label = entry.get("label")
    if isinstance(label, str) and label.strip() and label.strip().lower() != update_type.lower():
        detail += f": {label.strip()}"
    return RetractionNotice(
        kind=kind,
        source=SourceName.RETRACTION_WATCH if via_retraction_watch else SOURCE,
        notice_doi=notice_doi,
        date=iso_date(entry.get("updated")),
        detail=detail or None,
    )


def notices_from_update_to(item: Mapping[str, Any], target_doi: str) -> list[RetractionNotice]:
    """The notices a notice record (one with `update-to`) gives about `target_doi`."""
    target = clean_doi(target_doi)
    own = clean_doi(str(item.get("DOI", "")))
    notices: list[RetractionNotice] = []
    for entry in objects(item.get("update-to")):
        kind = update_kind(entry.get("type"))
        if kind is None or target is None or clean_doi(str(entry.get("DOI", ""))) != target:
            continue
        notices.append(_notice(entry, kind, notice_doi=own))
    return notices


def standing_notices(item: Mapping[str, Any], doi: str | None) -> tuple[list[RetractionNotice], list[str]]:
    """(notices about this work, DOIs of the works this record is a notice for): `updated-by`
    entries, then `update-to` entries that point at the work's own DOI; the other `update-to`
    targets make the record a notice."""
    notices: list[RetractionNotice] = []
    notice_for: list[str] = []
    for entry in objects(item.get("updated-by")):
        kind = update_kind(entry.get("type"))
        if kind is not None:
            notice_doi = clean_doi(str(entry.get("DOI", "")))
            notices.append(_notice(entry, kind, notice_doi=notice_doi))
    for entry in objects(item.get("update-to")):
        kind = update_kind(entry.get("type"))
        target = clean_doi(str(entry.get("DOI", "")))
        if kind is None or target is None:
            continue
        if target == doi:
            # A deposit that marks itself (the retracted article carrying its own Crossmark update).
            notices.append(_notice(entry, kind, notice_doi=None))
        elif target not in notice_for:
            notice_for.append(target)
    return notices, notice_for
