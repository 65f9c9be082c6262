"""Crossref: the registration agency of most journal and conference DOIs.

Two halves. The `parse_*` functions are pure: a Crossref work item (or envelope) in, a `WorkRecord`
out, no I/O. `CrossrefClient` owns Crossref's policy: the polite pool (`mailto` as a query
parameter and in the User-Agent, as Crossref's etiquette asks), the lower search rate
(`kind="search"` picks the search bucket), and a raw cache keyed by the canonical DOI that keeps
negative answers too.

Shapes worth knowing (they break naive parsers):
- `title`, `subtitle`, `container-title` are LISTS in the REST API, strings in the CSL-JSON that
  content negotiation returns; both are accepted.
- Standing notices come three ways: `updated-by` on the updated work (newer deposits, including
  Retraction Watch's data with `"source": "retraction-watch"`), `update-to` on the notice itself
  (a notice pointing at its own DOI marks the record itself), and the `updates:{doi}` filter that
  finds notices an old deposit does not link back to.
- `query.title` was removed from the API in 2019 (a 400 "validation-failure"); a title goes into
  `query.bibliographic`.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from aletheia.core.identifiers import arxiv_id_from_doi, clean_arxiv_id, clean_doi, clean_isbn
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import split_title_marker
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key, lookup_many, read_cached

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.ratelimit import RateLimiter
    from aletheia.sources.transport import PoliteTransport

__all__ = [
    "CROSSREF_WORK_MESSAGE_TYPES",
    "CrossrefClient",
    "crossref_message_type",
    "crossref_transport",
    "markup_to_text",
    "notices_from_update_to",
    "parse_crossref_message",
    "parse_crossref_work",
    "polite_user_agent",
    "update_kind",
]

SOURCE: Final = SourceName.CROSSREF
# DOIs per `filter=doi:a,doi:b,...` list query. Crossref ORs repeated values of one filter; 50 DOIs
# keep the URL near 2 KB, well inside what its servers and proxies accept.
MAX_DOIS_PER_FILTER: Final = 50
# Characters that would end a filter value or split the filter list: such a DOI is asked alone.
_FILTER_UNSAFE: Final = re.compile(r"[,:\s]")
PROJECT_URL: Final = "https://github.com/aletheia-citations"

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

    return WorkRecord(
        source=SOURCE,
        source_id=doi,
        title=title or None,
        subtitle=_first_text(item.get("subtitle")),
        authors=authors,
        authors_truncated=truncated,
        year=_year(item),
        venue=_venue(item, work_type),
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


# --- the client ------------------------------------------------------------------------------------


def polite_user_agent(mailto: str | None) -> str:
    """`Aletheia/<version> (<project url>; mailto:<address>)`, the form Crossref's etiquette asks."""
    try:
        version = importlib.metadata.version("aletheia-citations")
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    contact = f"; mailto:{mailto}" if mailto else ""
    return f"Aletheia/{version} ({PROJECT_URL}{contact})"


def _work_path(doi: str) -> str:
    # Crossref takes the DOI as a raw path (its `/` included); everything that would end or split
    # the path or start a query (`#`, `?`, `%`, spaces, ...) is percent-encoded.
    return "/works/" + quote(doi, safe="/")


def _utcnow() -> datetime:
    return datetime.now(UTC)


class CrossrefClient:
    """Works by DOI, bibliographic search, and the notices that update a DOI."""

    source: Final = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        mailto: str | None = None,
        coalesce_window: float | None = None,
    ):
        """`coalesce_window` (seconds): when given, `work_by_doi` lookups arriving within it go
        out together as one `filter=doi:` list query (`works_by_dois`); None asks each DOI alone."""
        self.transport = transport
        self.cache = cache
        self.mailto = mailto
        self._coalescer: Coalescer[str, SourceRecord] | None = (
            Coalescer(self._fetch_doi_batch, max_batch=MAX_DOIS_PER_FILTER, window=coalesce_window)
            if coalesce_window is not None
            else None
        )

    @classmethod
    def from_settings(
        cls,
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        *,
        cache: RawCache | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> CrossrefClient:
        """The client as the pipeline builds it: transport, contact address and cache from settings."""
        return cls(crossref_transport(http, settings, limiter, breaker), cache=cache, mailto=settings.mailto)

    def _params(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = dict(extra or {})
        if self.mailto:
            params["mailto"] = self.mailto
        return params

    def _url(self, path: str) -> str:
        return f"{self.transport.base_url.rstrip('/')}{path}"

    async def work_by_doi(self, doi: str) -> SourceRecord | None:
        """The work a DOI names, or None when Crossref has no such DOI (cached either way).

        Raises ValueError when `doi` is not a DOI at all: callers validate identifiers first.
        """
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        hit, cached_record = await self._cached(canonical)
        if hit:
            return cached_record
        if self._coalescer is not None and not _FILTER_UNSAFE.search(canonical):
            return await self._coalescer.get(canonical)
        return await self._doi_singleton(canonical)

    async def _cached(self, canonical: str) -> tuple[bool, SourceRecord | None]:
        return await read_cached(
            self.cache, SOURCE, cache_key("doi", canonical), self.transport.stats, self._single
        )

    async def _doi_singleton(self, canonical: str) -> SourceRecord | None:
        key = cache_key("doi", canonical)
        path = _work_path(canonical)
        url = self._url(path)
        payload = await self.transport.get_json(path, params=self._params(), kind="single")
        # Parsed before it is cached: a body we cannot read must not be served again from cache.
        parsed = self._single(payload) if payload is not None else None
        if self.cache is not None:
            await self.cache.put(SOURCE, key, payload, found=payload is not None, url=url)
        if parsed is None:
            return None
        return SourceRecord(parsed, payload, _utcnow(), url)

    async def works_by_dois(self, dois: Iterable[str]) -> dict[str, SourceRecord | None]:
        """Each DOI's work (None when Crossref has none), keyed by the DOI as given: cached answers
        first, the rest in `filter=doi:` list queries of up to MAX_DOIS_PER_FILTER."""
        canonical_of: dict[str, str] = {}
        for doi in dois:
            canonical = clean_doi(doi)
            if canonical is None:
                raise ValueError(f"not a DOI: {doi!r}")
            canonical_of[doi] = canonical
        return await lookup_many(canonical_of, self._cached, self._fetch_doi_batch, batch=MAX_DOIS_PER_FILTER)

    async def _fetch_doi_batch(self, dois: list[str]) -> dict[str, SourceRecord | None]:
        """Canonical DOIs -> records, uncached. A lone DOI, or one the filter syntax cannot carry,
        is asked at `/works/{doi}`; the rest in one list query. Every answer is cached, found or
        not, in the shape of a single-work response so a later `work_by_doi` reads it back."""
        unsafe = [d for d in dois if _FILTER_UNSAFE.search(d)]
        batchable = [d for d in dois if not _FILTER_UNSAFE.search(d)]
        if len(batchable) == 1:
            unsafe, batchable = [*unsafe, *batchable], []
        found: dict[str, SourceRecord | None] = {}
        for doi in unsafe:
            found[doi] = await self._doi_singleton(doi)
        if not batchable:
            return found
        params = self._params({"filter": ",".join(f"doi:{d}" for d in batchable), "rows": len(batchable)})
        payload = await self.transport.get_json("/works", params=params, kind="search")
        fetched_at = _utcnow()
        message = payload.get("message") if isinstance(payload, Mapping) else None
        items = message.get("items") if isinstance(message, Mapping) else None
        if payload is not None and not isinstance(items, list):
            raise SourceParseError(SOURCE, "not a Crossref work list (no `message.items`)")
        by_doi: dict[str, Mapping[str, Any]] = {}
        for item in items or []:
            raw_doi = item.get("DOI") if isinstance(item, Mapping) else None
            canonical = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
            if canonical is not None and canonical not in by_doi:
                by_doi[canonical] = item
        for doi in batchable:
            item = by_doi.get(doi)
            single = None if item is None else {"status": "ok", "message-type": "work", "message": item}
            record = self._single(single) if single is not None else None
            url = self._url(_work_path(doi))
            if self.cache is not None:
                await self.cache.put(SOURCE, cache_key("doi", doi), single, found=single is not None, url=url)
            found[doi] = None if record is None else SourceRecord(record, single, fetched_at, url)
        return found

    @staticmethod
    def _single(payload: Any) -> WorkRecord:
        records = parse_crossref_message(payload)
        if len(records) != 1:
            raise SourceParseError(SOURCE, f"expected one work, got {len(records)}")
        return records[0]

    async def search(
        self,
        bibliographic: str | None = None,
        *,
        title: str | None = None,
        author: str | None = None,
        rows: int = 5,
        filters: Mapping[str, str | int] | None = None,
        select: Iterable[str] | None = None,
    ) -> list[SourceRecord]:
        """Crossref's ranked search (`query.bibliographic`, `query.author`), best first.

        `title` joins `query.bibliographic` (Crossref removed `query.title`). `filters` become
        `filter=name:value,...` (e.g. `{"from-pub-date": 2019, "until-pub-date": 2021}`).
        """
        query = " ".join(part for part in (bibliographic, title) if part and part.strip())
        params: dict[str, Any] = {"rows": rows}
        if query:
            params["query.bibliographic"] = query
        if author and author.strip():
            params["query.author"] = author
        if not query and "query.author" not in params:
            raise ValueError("a Crossref search needs a bibliographic string, a title or an author")
        if filters:
            params["filter"] = ",".join(f"{name}:{value}" for name, value in filters.items())
        if select:
            params["select"] = ",".join(select)
        return await self._list("/works", self._params(params))

    async def notices_for(self, doi: str) -> list[RetractionNotice]:
        """Notices (retractions, corrections, expressions of concern...) whose `update-to` names
        `doi`: found with `filter=updates:{doi}`, for deposits whose work does not link back."""
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        params = self._params({"filter": f"updates:{canonical}", "rows": 20})
        payload = await self.transport.get_json("/works", params=params, kind="search")
        if payload is None:
            return []
        message_type = crossref_message_type(payload)
        if message_type != "work-list":
            raise SourceParseError(SOURCE, f"not a work list (message-type {message_type!r})")
        items = payload["message"].get("items") if isinstance(payload.get("message"), Mapping) else None
        if not isinstance(items, list):
            raise SourceParseError(SOURCE, "a work-list without `message.items`")
        notices: list[RetractionNotice] = []
        for item in items:
            if isinstance(item, Mapping):
                notices.extend(notices_from_update_to(item, canonical))
        return notices

    async def _list(self, path: str, params: dict[str, Any]) -> list[SourceRecord]:
        payload = await self.transport.get_json(path, params=params, kind="search")
        if payload is None:
            return []
        fetched_at = _utcnow()
        url = self._url(path)
        message = payload.get("message") if isinstance(payload, Mapping) else None
        items = message.get("items") if isinstance(message, Mapping) else None
        records = parse_crossref_message(payload)
        raws: list[Any] = items if isinstance(items, list) else [payload]
        return [SourceRecord(record, raw, fetched_at, url) for record, raw in zip(records, raws, strict=True)]


def crossref_transport(
    http: httpx.AsyncClient,
    settings: Settings,
    limiter: RateLimiter,
    breaker: CircuitBreaker | None = None,
) -> PoliteTransport:
    """The polite transport to Crossref, from settings: base URL, limits, on/off, and the User-Agent
    that names a contact address (Crossref's polite pool)."""
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.transport import PoliteTransport

    return PoliteTransport(
        SOURCE,
        http,
        base_url=settings.crossref_url,
        limits=settings.limits_for(SOURCE.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings),
        headers={"User-Agent": polite_user_agent(settings.mailto)},
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and SOURCE.value not in settings.disabled,
    )
