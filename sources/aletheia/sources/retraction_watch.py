"""Retraction Watch: the database of retractions, expressions of concern, corrections and
reinstatements that Crossref acquired in 2023 and publishes openly as one CSV.

Two CSV shapes are read:

- the full export (`Record ID, Title, ..., RetractionDate, RetractionDOI, RetractionPubMedID,
  OriginalPaperDate, OriginalPaperDOI, OriginalPaperPubMedID, RetractionNature, Reason, ...`):
  one row per notice, dates as `M/D/YYYY H:MM`, lists `;`-separated, reasons `+`-prefixed, and
  "no identifier" spelled as blank, `unavailable`/`Unavailable` (DOIs) or `0` (PubMed ids);
- the compact `doi,retractionwatch` form (one row per original DOI, its natures `;`-joined), as
  derived by metacheck.

The index is in memory, keyed by the ORIGINAL paper's DOI and PMID: what a bibliography cites is
the original, never the notice. Rows are pydantic models so the storage layer can persist them as
JSON and rebuild them unchanged.
"""

from __future__ import annotations

import asyncio
import csv
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import httpx
from pydantic import BaseModel, ConfigDict

from aletheia.core.identifiers import clean_doi, clean_pmid
from aletheia.core.records import RetractionKind, RetractionNotice, SourceName
from aletheia.sources.base import PermanentSourceError, SourceParseError, TransientSourceError

__all__ = [
    "RetractionIndex",
    "RetractionWatchRow",
    "load_retraction_watch",
    "nature_kind",
    "parse_retraction_watch_csv",
]

SOURCE: Final = SourceName.RETRACTION_WATCH

_NATURE_KINDS: Final[dict[str, RetractionKind]] = {
    "retraction": RetractionKind.RETRACTED,
    "expression of concern": RetractionKind.EXPRESSION_OF_CONCERN,
    "correction": RetractionKind.CORRECTED,
    "reinstatement": RetractionKind.REINSTATED,
    "withdrawal": RetractionKind.WITHDRAWN,
}


def nature_kind(nature: str) -> RetractionKind | None:
    """A RetractionNature value (`Retraction`, `Expression of concern`, `Correction`,
    `Reinstatement`) as a standing; None for a value Retraction Watch has not documented."""
    return _NATURE_KINDS.get(" ".join(nature.split()).casefold())


class RetractionWatchRow(BaseModel):
    """One Retraction Watch row: a notice (full export) or all notices of one DOI (compact form)."""

    model_config = ConfigDict(frozen=True)

    original_doi: str | None = None
    original_pmid: str | None = None
    natures: tuple[str, ...] = ()
    record_id: str | None = None
    notice_doi: str | None = None
    notice_pmid: str | None = None
    date: str | None = None  # of the notice, ISO 8601
    original_date: str | None = None
    title: str | None = None
    journal: str | None = None
    reasons: tuple[str, ...] = ()

    def as_storage_row(self) -> dict[str, str | None]:
        """The columns the storage layer keeps (`retractions` table): the original's identifiers,
        the natures `;`-joined, the notice DOI and its date."""
        return {
            "doi": self.original_doi,
            "pmid": self.original_pmid,
            "nature": ";".join(self.natures),
            "notice_doi": self.notice_doi,
            "date": self.date,
        }

    @classmethod
    def from_storage_row(cls, row: Mapping[str, Any]) -> RetractionWatchRow:
        """A row back from `as_storage_row`'s columns (other columns are ignored)."""

        def text(name: str) -> str | None:
            value = row.get(name)
            return str(value) if value not in (None, "") else None

        return cls(
            original_doi=text("doi"),
            original_pmid=text("pmid"),
            natures=_split_list(text("nature")),
            notice_doi=text("notice_doi"),
            date=text("date"),
        )

    def notices(self) -> list[RetractionNotice]:
        """This row as evidence: one notice per documented nature."""
        notices: list[RetractionNotice] = []
        for nature in self.natures:
            kind = nature_kind(nature)
            if kind is None:
                continue
            detail = nature if self.record_id is None else f"{nature} (record {self.record_id})"
            if self.reasons:
                detail += ": " + "; ".join(self.reasons)
            notices.append(
                RetractionNotice(
                    kind=kind, source=SOURCE, notice_doi=self.notice_doi, date=self.date, detail=detail
                )
            )
        return notices


# --- parsing ---------------------------------------------------------------------------------------

_ABSENT: Final = frozenset({"", "unavailable", "none", "n/a", "na", "0"})
_US_DATE: Final = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?\s*$")
_ISO_DATE: Final = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")


def _header_key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name.replace("\ufeff", "")).casefold()


def _present(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    return None if text.casefold() in _ABSENT else text


def _iso_date(value: str | None) -> str | None:
    """`8/16/2023 0:00` (the export's US form) or `2023-08-16` -> `2023-08-16`; else None."""
    if not value:
        return None
    us = _US_DATE.match(value)
    if us is not None:
        month, day, year = (int(part) for part in us.groups())
        return f"{year:04d}-{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None
    iso = _ISO_DATE.match(value)
    return "-".join(iso.groups()) if iso is not None else None


def _split_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    items = (item.strip().lstrip("+").strip() for item in value.split(";"))
    return tuple(dict.fromkeys(item for item in items if item))


def _doi(value: str | None) -> str | None:
    present = _present(value)
    return clean_doi(present) if present else None


def _pmid(value: str | None) -> str | None:
    present = _present(value)
    return clean_pmid(present) if present else None


def parse_retraction_watch_csv(lines: Iterable[str]) -> Iterator[RetractionWatchRow]:
    """Rows of a Retraction Watch CSV in either shape (see the module docstring).

    Rows naming neither an original DOI nor an original PMID are skipped: nothing could find
    them. Raises SourceParseError when the header is neither shape.
    """
    reader = csv.reader(iter(lines))
    header = next(reader, None)
    if header is None:
        return
    columns = {_header_key(name): index for index, name in enumerate(header) if name.strip()}

    def cell(row: list[str], name: str) -> str | None:
        index = columns.get(name)
        return row[index] if index is not None and index < len(row) else None

    if "originalpaperdoi" in columns:
        for row in reader:
            original_doi = _doi(cell(row, "originalpaperdoi"))
            original_pmid = _pmid(cell(row, "originalpaperpubmedid"))
            if original_doi is None and original_pmid is None:
                continue
            yield RetractionWatchRow(
                original_doi=original_doi,
                original_pmid=original_pmid,
                natures=_split_list(cell(row, "retractionnature")),
                record_id=_present(cell(row, "recordid")),
                notice_doi=_doi(cell(row, "retractiondoi")),
                notice_pmid=_pmid(cell(row, "retractionpubmedid")),
                date=_iso_date(cell(row, "retractiondate")),
                original_date=_iso_date(cell(row, "originalpaperdate")),
                title=_present(cell(row, "title")),
                journal=_present(cell(row, "journal")),
                reasons=_split_list(cell(row, "reason")),
            )
    elif "doi" in columns and (nature_column := _nature_column(columns)) is not None:
        for row in reader:
            original_doi = _doi(cell(row, "doi"))
            if original_doi is None:
                continue
            yield RetractionWatchRow(original_doi=original_doi, natures=_split_list(cell(row, nature_column)))
    else:
        raise SourceParseError(SOURCE.value, f"not a Retraction Watch CSV header: {header[:6]!r}")


# The nature column of the short form, by the names it goes by (`aletheia library retractions
# --help` names `doi,nature`; older exports say `retractionwatch` or `RetractionNature`).
_NATURE_COLUMNS: Final = ("nature", "retractionnature", "retractionwatch")


def _nature_column(columns: Mapping[str, int]) -> str | None:
    return next((name for name in _NATURE_COLUMNS if name in columns), None)


# --- the index -------------------------------------------------------------------------------------


class RetractionIndex:
    """Retraction Watch rows in memory, looked up by the original paper's DOI or PMID."""

    def __init__(self, rows: Iterable[RetractionWatchRow] = ()) -> None:
        self._rows: list[RetractionWatchRow] = []
        self._by_doi: dict[str, list[int]] = {}
        self._by_pmid: dict[str, list[int]] = {}
        for row in rows:
            self.add(row)

    def add(self, row: RetractionWatchRow) -> None:
        position = len(self._rows)
        self._rows.append(row)
        if row.original_doi is not None:
            self._by_doi.setdefault(row.original_doi, []).append(position)
        if row.original_pmid is not None:
            self._by_pmid.setdefault(row.original_pmid, []).append(position)

    @classmethod
    def from_rows(cls, rows: Iterable[RetractionWatchRow | Mapping[str, Any]]) -> RetractionIndex:
        """From parsed rows, or from the storage layer's rows (`as_storage_row` dicts)."""
        return cls(
            row if isinstance(row, RetractionWatchRow) else RetractionWatchRow.from_storage_row(row)
            for row in rows
        )

    @classmethod
    def load(cls, path_or_lines: str | os.PathLike[str] | Iterable[str]) -> RetractionIndex:
        """From a CSV file (a path; `str` is always taken as a path) or from its lines."""
        if isinstance(path_or_lines, str | os.PathLike):
            with Path(path_or_lines).open(encoding="utf-8-sig", newline="") as handle:
                return cls(parse_retraction_watch_csv(handle))
        return cls(parse_retraction_watch_csv(path_or_lines))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[RetractionWatchRow]:
        return iter(self._rows)

    @property
    def dois(self) -> int:
        """How many distinct original DOIs the index knows."""
        return len(self._by_doi)

    def rows_for(self, doi: str | None = None, pmid: str | int | None = None) -> list[RetractionWatchRow]:
        positions: dict[int, None] = {}
        canonical_doi = clean_doi(doi) if doi else None
        canonical_pmid = clean_pmid(pmid) if pmid is not None else None
        if canonical_doi is not None:
            positions.update(dict.fromkeys(self._by_doi.get(canonical_doi, ())))
        if canonical_pmid is not None:
            positions.update(dict.fromkeys(self._by_pmid.get(canonical_pmid, ())))
        return [self._rows[position] for position in positions]

    def lookup(self, doi: str | None = None, pmid: str | int | None = None) -> list[RetractionNotice]:
        """Every notice about the work with this DOI or PMID (either may be given, or both)."""
        return [notice for row in self.rows_for(doi, pmid) for notice in row.notices()]


def _is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


async def load_retraction_watch(source: str, http: httpx.AsyncClient | None = None) -> RetractionIndex:
    """The index from the user's configured source (`retraction_watch_csv`): a file path, or an
    http(s) URL fetched with the shared client (only ever the URL the user configured).

    Download failures raise the sources error tree (5xx and network errors transient, other
    statuses permanent); a body that is not a Retraction Watch CSV raises SourceParseError.
    """
    if not _is_url(source):
        return await asyncio.to_thread(RetractionIndex.load, source)
    if http is None:
        raise ValueError("a Retraction Watch URL needs an HTTP client")
    try:
        response = await http.get(source, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise TransientSourceError(SOURCE.value, f"download failed: {type(exc).__name__}") from exc
    if response.status_code >= 500 or response.status_code in (408, 429):
        raise TransientSourceError(SOURCE.value, "download failed", response.status_code)
    if response.status_code >= 400:
        raise PermanentSourceError(SOURCE.value, "download refused", response.status_code)
    text = response.text
    return await asyncio.to_thread(lambda: RetractionIndex.load(text.lstrip("\ufeff").splitlines(True)))
