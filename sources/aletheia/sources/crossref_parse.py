"""Crossref work items as `WorkRecord`s: pure parsers, no I/O (the client is `crossref.py`).

Shapes worth knowing (they break naive parsers):
- `title`, `subtitle`, `container-title` are LISTS in the REST API, strings in the CSL-JSON that
  content negotiation returns; both are accepted.
- `container-title` may hold more than one name: the proceedings title first, then the series
  ("Lecture Notes in Computer Science"). The first is `venue`, the others `other_venues`;
  `short-container-title` gives `venue_aliases`.
- Standing notices come three ways: `updated-by` on the updated work (newer deposits, including
  Retraction Watch's data with `"source": "retraction-watch"`), `update-to` on the notice itself
  (a notice pointing at its own DOI marks the record itself), and the `updates:{doi}` filter that
  finds notices an old deposit does not link back to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any, Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_isbn, clean_issn
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import split_title_marker
from aletheia.sources.base import SourceParseError

__all__ = [
    "CROSSREF_WORK_MESSAGE_TYPES",
    "crossref_message_type",
    "markup_to_text",
    "notices_from_update_to",
    "parse_crossref_message",
    "parse_crossref_work",
    "update_kind",
]

SOURCE: Final = SourceName.CROSSREF

# Envelopes that carry works; every other `message-type` (funder, member, journal, license-list,
# prefix, type, work-agency, validation-failure, resource-failure, ...) is not a work.
CROSSREF_WORK_MESSAGE_TYPES: Final = frozenset({"work", "work-list"})


# --- markup ----------------------------------------------------------------------------------------

# Elements that end a paragraph of text (JATS and HTML).
_BLOCK_ELEMENTS: Final = frozenset(
    {"p", "title", "sec", "list-item", "def-item", "break", "br", "div", "li", "h1", "h2", "h3", "h4"}
)


class _TextCollector(HTMLParser):
    """Text content of JATS/HTML, one entry per block; entities decoded by HTMLParser itself."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str]] = []  # (element that opened the block, text)
        self._current: list[str] = []
        self._opened_by = ""

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.blocks.append((self._opened_by, text))
        self._current = []

    @staticmethod
    def _local(tag: str) -> str:
        return tag.rsplit(":", 1)[-1].lower()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        local = self._local(tag)
        if local in _BLOCK_ELEMENTS:
            self._flush()
            self._opened_by = local

    def handle_endtag(self, tag: str) -> None:
        if self._local(tag) in _BLOCK_ELEMENTS:
            self._flush()
            self._opened_by = ""

    def handle_data(self, data: str) -> None:
        self._current.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def markup_to_text(markup: str, *, drop_heading: str | None = None) -> str:
    """Plain text of a JATS/HTML fragment: tags dropped, entities decoded, one line per block.

    `drop_heading` removes a leading title block equal to it (case-insensitive): JATS abstracts
    often open with `<jats:title>Abstract</jats:title>`, which is not part of the abstract.
    """
    if "<" not in markup and "&" not in markup:
        return " ".join(markup.split())
    collector = _TextCollector()
    collector.feed(markup)
    collector.close()
    blocks = collector.blocks
    if (
        drop_heading is not None
        and blocks
        and blocks[0][0] == "title"
        and blocks[0][1].casefold().rstrip(".:") == drop_heading.casefold()
    ):
        blocks = blocks[1:]
    return "\n".join(text for _, text in blocks)


# --- small readers ---------------------------------------------------------------------------------


def _first_text(value: Any) -> str | None:
    """The first non-empty string of a Crossref list field (or the string itself, CSL-JSON)."""
    candidates = value if isinstance(value, list) else [value]
    for candidate in candidates:
        if isinstance(candidate, str):
            text = markup_to_text(candidate)
            if text:
                return text
    return None


def _texts(value: Any) -> list[str]:
    """Every non-empty string of a Crossref list field (or the string itself, CSL-JSON)."""
    candidates = value if isinstance(value, list) else [value]
    return [
        text for candidate in candidates if isinstance(candidate, str) and (text := markup_to_text(candidate))
    ]


def _distinct(names: list[str], *, exclude: str | None) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without `exclude`."""
    seen = {exclude.casefold()} if exclude else set()
    kept: list[str] = []
    for name in names:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return tuple(kept)


def _date_parts(value: Any) -> list[int] | None:
    """`{"date-parts": [[2012, 3, 21]]}` -> [2012, 3, 21]; missing or `[[null]]` -> None."""
    if not isinstance(value, Mapping):
        return None
    parts = value.get("date-parts")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list):
        return None
    numbers: list[int] = []
    for part in parts[0]:
        if isinstance(part, int) and not isinstance(part, bool):
            numbers.append(part)
        elif isinstance(part, str) and part.strip().isdigit():
            numbers.append(int(part))
        else:
            break
    return numbers or None


def _iso_date(value: Any) -> str | None:
    parts = _date_parts(value)
    if parts is None:
        return None
    return "-".join(f"{p:04d}" if i == 0 else f"{p:02d}" for i, p in enumerate(parts[:3]))


# Publication date fields, most authoritative first. `issued` is Crossref's own "earliest of print
# and online"; `published` is its newer alias; `created` is only when the DOI was registered, the
# last resort for deposits without any publication date.
_YEAR_FIELDS: Final = ("issued", "published", "published-print", "published-online", "posted", "created")


def _year(item: Mapping[str, Any]) -> int | None:
    for name in _YEAR_FIELDS:
        parts = _date_parts(item.get(name))
        if parts:
            return parts[0]
    return None


def _other_years(item: Mapping[str, Any]) -> tuple[int, ...]:
    """Every year among the work's dates (print, online, posted...), besides `_year`'s."""
    first = _year(item)
    years: dict[int, None] = {}
    for name in _YEAR_FIELDS:
        parts = _date_parts(item.get(name))
        if parts and parts[0] != first:
            years.setdefault(parts[0], None)
    return tuple(years)


def _orcid(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    match = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dXx])", value)
    return match.group(1).upper() if match else None


def _clean_name_part(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = markup_to_text(value)
    return text or None


_ET_AL: Final = re.compile(r"^\s*(et\.?\s*al\.?|and others)\s*$", re.IGNORECASE)


def _authors(raw: Any) -> tuple[tuple[Author, ...], bool]:
    """Authors in order, and whether the deposit itself cut the list ("et al." as an author)."""
    if not isinstance(raw, list):
        return (), False
    authors: list[Author] = []
    truncated = False
    for entry in raw:
        if not isinstance(entry, Mapping):
            continue
        given = _clean_name_part(entry.get("given"))
        family = _clean_name_part(entry.get("family"))
        literal = _clean_name_part(entry.get("name"))
        if any(part is not None and _ET_AL.match(part) for part in (family, literal, given)):
            truncated = True
            continue
        if family is None and given is None and literal is None:
            continue
        if family is None and given is not None and literal is None:
            # A deposit with only `given` is a whole name in the wrong field; keep it whole.
            literal, given = given, None
        authors.append(
            Author(
                given=given if family is not None else None,
                family=family,
                literal=literal if family is None else None,
                suffix=_clean_name_part(entry.get("suffix")),
                orcid=_orcid(entry.get("ORCID")),
            )
        )
    return tuple(authors), truncated


# Crossref work types (and the CSL types content negotiation uses) -> Aletheia's normalised types.
_WORK_TYPES: Final[dict[str, str]] = {
    "journal-article": "journal-article",
    "article-journal": "journal-article",
    "proceedings-article": "proceedings-article",
    "paper-conference": "proceedings-article",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-set": "book",
    "book-series": "book",
    "book-chapter": "book-chapter",
    "chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "book-track": "book-chapter",
    "reference-entry": "book-chapter",
    "entry-encyclopedia": "book-chapter",
    "entry-dictionary": "book-chapter",
    "report": "report",
    "report-series": "report",
    "report-component": "report",
    "dissertation": "thesis",
    "thesis": "thesis",
    "dataset": "dataset",
    "database": "dataset",
    "component": "component",
    "standard": "standard",
    "peer-review": "peer-review",
    "journal": "journal",
    "journal-issue": "journal-issue",
    "journal-volume": "journal-volume",
    "proceedings": "proceedings",
    "proceedings-series": "proceedings",
    "grant": "grant",
    "other": "other",
}
# Types that are themselves an editorial notice rather than a work.
_NOTICE_TYPES: Final = frozenset(
    {"retraction", "correction", "erratum", "expression-of-concern", "expression_of_concern", "withdrawal"}
)
# Posted content that is a preprint; other subtypes (letter, report, other) are not.
_PREPRINT_SUBTYPES: Final = frozenset({"preprint", "working_paper", "working-paper"})


def _work_type(item: Mapping[str, Any]) -> tuple[str | None, bool]:
    """(normalised type, is_preprint)."""
    raw = item.get("type")
    if not isinstance(raw, str) or not raw:
        return None, False
    raw = raw.lower()
    if raw in _NOTICE_TYPES:
        return "notice", False
    if raw == "posted-content":
        subtype = item.get("subtype")
        if subtype is None or (isinstance(subtype, str) and subtype.lower() in _PREPRINT_SUBTYPES):
            return "preprint", True
        return "posted-content", False
    return _WORK_TYPES.get(raw, raw), False


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
        date=_iso_date(entry.get("updated")),
        detail=detail or None,
    )


def _update_entries(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list):
        return []
    return [entry for entry in value if isinstance(entry, Mapping)]


def notices_from_update_to(item: Mapping[str, Any], target_doi: str) -> list[RetractionNotice]:
    """The notices a notice record (one with `update-to`) gives about `target_doi`."""
    target = clean_doi(target_doi)
    own = clean_doi(str(item.get("DOI", "")))
    notices: list[RetractionNotice] = []
    for entry in _update_entries(item.get("update-to")):
        kind = update_kind(entry.get("type"))
        if kind is None or target is None or clean_doi(str(entry.get("DOI", ""))) != target:
            continue
        notices.append(_notice(entry, kind, notice_doi=own))
    return notices


# Crossref relations between versions of one work (preprint <-> published, print <-> online).
_VERSION_RELATIONS: Final = (
    "is-preprint-of",
    "has-preprint",
    "is-version-of",
    "has-version",
    "is-identical-to",
    "is-same-as",
    "is-manifestation-of",
    "has-manifestation",
)


def _related_ids(relation: Any, own_doi: str | None) -> tuple[list[str], list[str]]:
    """(related DOIs, related arXiv ids) from `relation`; arXiv's DataCite DOIs become arXiv ids."""
    dois: list[str] = []
    arxiv_ids: list[str] = []
    if not isinstance(relation, Mapping):
        return dois, arxiv_ids
    for name in _VERSION_RELATIONS:
        for entry in _update_entries(relation.get(name)):
            value = entry.get("id")
            if not isinstance(value, str):
                continue
            id_type = str(entry.get("id-type", "")).lower()
            arxiv = None
            if id_type == "arxiv" or "arxiv" in value.lower():
                arxiv = clean_arxiv_id(value)
            if arxiv is not None:
                if arxiv.id not in arxiv_ids:
                    arxiv_ids.append(arxiv.id)
                continue
            doi = clean_doi(value) if id_type in ("doi", "uri") else None
            if doi is not None and doi != own_doi and doi not in dois:
                dois.append(doi)
    return dois, arxiv_ids


def _isbns(item: Mapping[str, Any]) -> tuple[str, ...]:
    values: list[str] = []
    raw = item.get("ISBN")
    if isinstance(raw, list):
        values.extend(v for v in raw if isinstance(v, str))
    for entry in _update_entries(item.get("isbn-type")):
        if isinstance(entry.get("value"), str):
            values.append(entry["value"])
    cleaned: list[str] = []
    for value in values:
        isbn = clean_isbn(value)
        if isbn is not None and isbn not in cleaned:
            cleaned.append(isbn)
    return tuple(cleaned)


def _venue(item: Mapping[str, Any], work_type: str | None) -> str | None:
    venue = _first_text(item.get("container-title"))
    if venue:
        return venue
    event = item.get("event")
    if isinstance(event, Mapping):
        name = _first_text(event.get("name"))
        if name:
            return name
    if work_type in ("preprint", "posted-content"):
        # Posted content names its server as the "institution" (bioRxiv, Research Square, ...).
        for institution in _update_entries(item.get("institution")):
            name = _first_text(institution.get("name"))
            if name:
                return name
    return None


def _other_venues(item: Mapping[str, Any], venue: str | None) -> tuple[str, ...]:
    """Container titles beyond the first (a series beside the proceedings or book title, in either
    order) and the event's name (a conference beside its proceedings)."""
    names = _texts(item.get("container-title"))[1:]
    event = item.get("event")
    if isinstance(event, Mapping):
        names.extend(_texts(event.get("name")))
    return _distinct(names, exclude=venue)


def _issns(item: Mapping[str, Any]) -> tuple[str, ...]:
    values = _texts(item.get("ISSN"))
    values.extend(
        entry["value"]
        for entry in _update_entries(item.get("issn-type"))
        if isinstance(entry.get("value"), str)
    )
    return tuple(dict.fromkeys(issn for value in values if (issn := clean_issn(value))))


def _urls(item: Mapping[str, Any], doi: str | None) -> dict[str, str]:
    urls: dict[str, str] = {}
    if doi:
        urls["doi"] = f"https://doi.org/{doi}"
    resource = item.get("resource")
    if isinstance(resource, Mapping):
        primary = resource.get("primary")
        if isinstance(primary, Mapping) and isinstance(primary.get("URL"), str):
            urls["landing"] = primary["URL"]
    for link in _update_entries(item.get("link")):
        if link.get("content-type") == "application/pdf" and isinstance(link.get("URL"), str):
            urls["pdf"] = link["URL"]
            break
    return urls


def parse_crossref_work(item: Mapping[str, Any]) -> WorkRecord:
    """One Crossref work item (REST `message` / `items[]`, or CSL-JSON) as a `WorkRecord`."""
    if not isinstance(item, Mapping):
        raise SourceParseError(SOURCE, f"a work item must be an object, not {type(item).__name__}")
    raw_doi = item.get("DOI")
    doi = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
    work_type, is_preprint = _work_type(item)
    authors, truncated = _authors(item.get("author"))
    notices: list[RetractionNotice] = []
    notice_for: list[str] = []

    for entry in _update_entries(item.get("updated-by")):
        kind = update_kind(entry.get("type"))
        if kind is not None:
            notice_doi = clean_doi(str(entry.get("DOI", "")))
            notices.append(_notice(entry, kind, notice_doi=notice_doi))
    for entry in _update_entries(item.get("update-to")):
        kind = update_kind(entry.get("type"))
        target = clean_doi(str(entry.get("DOI", "")))
        if kind is None or target is None:
            continue
        if target == doi:
            # A deposit that marks itself (the retracted article carrying its own Crossmark update).
            notices.append(_notice(entry, kind, notice_doi=None))
        elif target not in notice_for:
            notice_for.append(target)
    if notice_for:
        work_type, is_preprint = "notice", False

    title = _first_text(item.get("title"))
    if title is not None:
        title, marked = split_title_marker(title)
        if marked is not None:
            notices.append(
                RetractionNotice(kind=marked, source=SOURCE, detail=f"title marked {marked.value}")
            )
    abstract_raw = item.get("abstract")
    abstract = (
        markup_to_text(abstract_raw, drop_heading="abstract") if isinstance(abstract_raw, str) else None
    )
    related_dois, related_arxiv = _related_ids(item.get("relation"), doi)
    arxiv = arxiv_id_from_doi(doi) if doi else None
    score = item.get("score")
    venue = _venue(item, work_type)

    return WorkRecord(
        source=SOURCE,
        source_id=doi,
        title=title or None,
        subtitle=_first_text(item.get("subtitle")),
        authors=authors,
        authors_truncated=truncated,
        year=_year(item),
        other_years=_other_years(item),
        venue=venue,
        work_type=work_type,
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        isbn=_isbns(item),
        abstract=abstract or None,
        urls=_urls(item, doi),
        retraction_notices=tuple(notices),
        related_dois=tuple(related_dois),
        related_arxiv_ids=tuple(related_arxiv),
        notice_for=tuple(notice_for),
        is_preprint=is_preprint or arxiv is not None,
        score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
        venue_aliases=_distinct(_texts(item.get("short-container-title")), exclude=venue),
        other_venues=_other_venues(item, venue),
        issn=_issns(item),
    )


def crossref_message_type(payload: Any) -> str | None:
    """The envelope's `message-type` (`work`, `work-list`, `funder-list`, `validation-failure`...);
    `work` for a bare CSL-JSON work; None for anything else."""
    if not isinstance(payload, Mapping):
        return None
    message_type = payload.get("message-type")
    if isinstance(message_type, str):
        return message_type
    if "message" not in payload and isinstance(payload.get("DOI"), str):
        return "work"
    return None


def parse_crossref_message(payload: Any) -> list[WorkRecord]:
    """Every work in a Crossref response: a single-work envelope, a `work-list` envelope (search,
    filter, sample), or a bare CSL-JSON work. Any other envelope is a SourceParseError."""
    message_type = crossref_message_type(payload)
    if message_type not in CROSSREF_WORK_MESSAGE_TYPES:
        raise SourceParseError(SOURCE, f"not a Crossref work response (message-type {message_type!r})")
    if "message" not in payload:
        return [parse_crossref_work(payload)]
    message = payload["message"]
    if message_type == "work":
        return [parse_crossref_work(message)]
    items = message.get("items") if isinstance(message, Mapping) else None
    if not isinstance(items, list):
        raise SourceParseError(SOURCE, "a work-list without `message.items`")
    return [parse_crossref_work(item) for item in items]
