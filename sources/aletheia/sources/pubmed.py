"""PubMed through NCBI's E-utilities: pure parsers for efetch XML, esummary JSON/XML and esearch,
and a polite client.

Endpoints (`{ALETHEIA_PUBMED_URL}/entrez/eutils/...`): `esearch.fcgi` finds PMIDs for a query,
`efetch.fcgi?db=pubmed&retmode=xml` returns full PubmedArticle records (full given names, the
abstract, publication types and the retraction/erratum links), `esummary.fcgi?retmode=json`
returns lighter summaries (names as "Smith JA"). Every request carries `tool` and `email`, as NCBI
asks, and `api_key` when NCBI_API_KEY is set (which raises the allowed rate from 3 to 10 requests
per second: `Settings.limits_for("pubmed")` picks the bucket).

Parser choices (the parsers live in `pubmed_parse` and `pubmed_esummary`, re-exported here):

- MEDLINE ends every title with a period; it is dropped (`"Social fear."` -> `"Social fear"`).
  A translated title stays in the brackets MEDLINE puts around it.
- `AuthorList CompleteYN="N"` is the record saying its author list is incomplete:
  `authors_truncated`. Authors marked `ValidYN="N"` (misspellings kept for indexing) are skipped.
- The year is the journal issue's `PubDate/Year`, else the first year of a `MedlineDate`
  ("1998 Dec-1999 Jan" -> 1998), else the electronic `ArticleDate`.
- Standing: a "Retracted Publication" type or a `RetractionIn` link makes a RETRACTED notice, an
  `ExpressionOfConcernIn` link an EXPRESSION_OF_CONCERN notice, an `ErratumIn` link a CORRECTED
  notice (one per linked notice: its PMID and citation in `detail`, the DOI the citation ends
  with in `notice_doi`). A record that *is* a notice ("Retraction of Publication", "Expression of
  Concern", "Published Erratum") is `work_type="notice"` (as Crossref's parser has it), with the
  DOIs of the works it is about (its RetractionOf/ErratumFor/... links) in `notice_for`; it is not
  itself retracted, so it carries no RETRACTED notice for being one.
- XML is refused if it declares entities or an internal DTD subset; NCBI's plain DOCTYPE line is
  allowed (`safe_xml`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.identifiers import clean_pmid
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import (
    RawCache,
    SourceParseError,
    SourceRecord,
    Transport,
)
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key, lookup_many
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.pubmed_esummary import (  # the pure parsers, re-exported
    esummary_docs,
    parse_esummary_doc,
    parse_esummary_json,
    parse_esummary_xml,
)
from aletheia.sources.pubmed_parse import (  # the pure parsers, re-exported
    parse_efetch_xml,
    parse_efetch_xml_with_raw,
    parse_esearch,
    parse_pubmed_raw,
)
from aletheia.sources.transport.factory import source_transport

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

__all__ = [
    "MAX_IDS_PER_REQUEST",
    "PubMedClient",
    "esummary_docs",
    "parse_efetch_xml",
    "parse_efetch_xml_with_raw",
    "parse_esearch",
    "parse_esummary_doc",
    "parse_esummary_json",
    "parse_esummary_xml",
    "parse_pubmed_raw",
    "pubmed_transport",
]

SOURCE = SourceName.PUBMED
# --- the client -----------------------------------------------------------------------------------

EUTILS_PATH = "/entrez/eutils"
# NCBI asks for POST above about 200 ids; GET with at most 200 keeps every URL short.
MAX_IDS_PER_REQUEST = 200
TOOL_NAME = "aletheia"


def _utcnow() -> datetime:
    return datetime.now(UTC)


# Boolean operators (PubMed reads `AND`/`OR`/`NOT` as syntax) and words almost every title has.
_TITLE_STOPWORDS = frozenset(
    {"and", "or", "not", "the", "for", "with", "from", "into", "its", "are", "was", "via"}
)


def _title_term(title: str) -> str:
    # Each title word as its own [ti] term: an exact phrase only matches when PubMed's phrase index
    # holds it, and cited titles differ in punctuation and small words.
    words = [
        word
        for word in re.sub(r"[^\w\s]", " ", title).split()
        if len(word) >= 3 and word.lower() not in _TITLE_STOPWORDS
    ]
    return " AND ".join(f"{word}[ti]" for word in words[:12])


class PubMedClient(SourceClientBase):
    """PubMed records by PMID (efetch, batched and coalesced), summaries, and PMID searches.

    Answers, negative ones included, are cached by PMID. `api_key` and `email` are needed only on
    a transport built without them (`pubmed_transport` sets both from settings).
    """

    source = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        api_key: str | None = None,
        email: str | None = None,
        coalesce_window: float = 0.02,
    ) -> None:
        super().__init__(transport, cache=cache)
        self._identity = {"tool": TOOL_NAME, "email": email, "api_key": api_key}
        self._coalescer: Coalescer[str, SourceRecord] = Coalescer(
            self._efetch, max_batch=MAX_IDS_PER_REQUEST, window=coalesce_window
        )

    def _params(self, **params: Any) -> dict[str, Any]:
        merged = {**self._identity, **params}
        return {name: value for name, value in merged.items() if value is not None}

    def _id_url(self, endpoint: str, pmid: str) -> str:
        return self._url(f"{EUTILS_PATH}/{endpoint}?db=pubmed&id={pmid}")

    @staticmethod
    def _canonical(pmid: str | int) -> str:
        canonical = clean_pmid(pmid)
        if canonical is None:
            raise ValueError(f"not a PMID: {pmid!r}")
        return canonical

    async def by_pmid(self, pmid: str | int) -> SourceRecord | None:
        """The full PubMed record (efetch XML) of `pmid`, or None when PubMed has no such PMID."""
        key = self._canonical(pmid)
        hit, record = await self._cached("pmid", key)
        if hit:
            return record
        return await self._coalescer.get(key)

    async def by_pmids(self, pmids: Sequence[str | int]) -> dict[str, SourceRecord | None]:
        """Each PMID (as given, as a string) -> its full record or None; 200 per efetch."""
        return await self._many("pmid", pmids, self._efetch)

    async def summaries(self, pmids: Sequence[str | int]) -> dict[str, SourceRecord | None]:
        """Each PMID -> its esummary record (lighter: initials only, no abstract) or None."""
        return await self._many("pmid-summary", pmids, self._esummary)

    async def search(
        self,
        title: str | None = None,
        author: str | None = None,
        year: int | None = None,
        retmax: int = 5,
    ) -> list[str]:
        """PMIDs matching every given field, best match first (esearch's relevance order)."""
        terms = []
        if title and (title_term := _title_term(title)):
            terms.append(title_term)
        if author and (name := normalize_whitespace(re.sub(r"[^\w\s'-]", " ", author))):
            terms.append(f"{name}[au]")
        if year is not None:
            terms.append(f"{year}[dp]")
        if not terms:
            raise ValueError("a PubMed search needs a title, an author or a year")
        return await self._esearch(" AND ".join(terms), retmax=retmax)

    # --- requests ----------------------------------------------------------------------------------

    async def _esearch(self, term: str, *, retmax: int) -> list[str]:
        params = self._params(db="pubmed", term=term, retmode="json", retmax=retmax, sort="relevance")
        path = f"{EUTILS_PATH}/esearch.fcgi"

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[str]:
            return [] if payload is None else parse_esearch(payload)

        return await self._searches.get(
            path,
            params,
            lambda: self.transport.get_json(path, params=params, kind="search"),
            parse,
            found=lambda payload: payload is not None and bool(parse_esearch(payload)),
        )

    async def _efetch(self, pmids: list[str]) -> dict[str, SourceRecord | None]:
        params = self._params(db="pubmed", id=",".join(pmids), retmode="xml")
        body = await self.transport.get_text(
            f"{EUTILS_PATH}/efetch.fcgi", params=params, kind="single" if len(pmids) == 1 else "batch"
        )
        parsed = parse_efetch_xml_with_raw(body) if body else []
        fetched_at = _utcnow()
        by_pmid = {record.pmid: (record, raw) for record, raw in parsed}
        results: dict[str, SourceRecord | None] = {}
        for pmid in pmids:
            url = self._id_url("efetch.fcgi", pmid)
            found = by_pmid.get(pmid)
            results[pmid] = SourceRecord(found[0], found[1], fetched_at, url) if found else None
            await self._store(cache_key("pmid", pmid), found[1] if found else None, url)
        return results

    async def _esummary(self, pmids: list[str]) -> dict[str, SourceRecord | None]:
        params = self._params(db="pubmed", id=",".join(pmids), retmode="json")
        payload = await self.transport.get_json(
            f"{EUTILS_PATH}/esummary.fcgi", params=params, kind="single" if len(pmids) == 1 else "batch"
        )
        docs = esummary_docs(payload) if payload is not None else {}
        fetched_at = _utcnow()
        results: dict[str, SourceRecord | None] = {}
        for pmid in pmids:
            url = self._id_url("esummary.fcgi", pmid)
            doc = docs.get(pmid)
            record = parse_esummary_doc(doc) if doc is not None else None
            results[pmid] = SourceRecord(record, doc, fetched_at, url) if record is not None else None
            await self._store(cache_key("pmid-summary", pmid), doc if record is not None else None, url)
        return results

    # --- cache -------------------------------------------------------------------------------------

    async def _many(
        self,
        kind: str,
        pmids: Sequence[str | int],
        fetch: Callable[[list[str]], Awaitable[dict[str, SourceRecord | None]]],
    ) -> dict[str, SourceRecord | None]:
        key_of = {str(pmid): self._canonical(pmid) for pmid in pmids}
        return await lookup_many(
            key_of, lambda key: self._cached(kind, key), fetch, batch=MAX_IDS_PER_REQUEST
        )

    async def _cached(self, kind: str, pmid: str) -> tuple[bool, SourceRecord | None]:
        def one_record(raw: Any) -> WorkRecord:
            if kind == "pmid":
                records = parse_efetch_xml(raw)
                record = records[0] if len(records) == 1 else None
            else:
                record = parse_esummary_doc(raw)
            if record is None:
                raise SourceParseError(SOURCE, f"cached {kind} entry for {pmid} holds no single record")
            return record

        return await self._read(cache_key(kind, pmid), one_record)


def _ncbi_identity(settings: Settings) -> dict[str, str]:
    identity = {"tool": TOOL_NAME}
    if settings.mailto:
        identity["email"] = settings.mailto
    if settings.ncbi_api_key is not None:
        identity["api_key"] = settings.ncbi_api_key.get_secret_value()
    return identity


# The polite transport to the E-utilities, from settings: base URL, limits, identity, on/off.
#
# NCBI allows 3 requests per second per client, 10 with an API key; that is enforced here, by the
# transport's bucket `pubmed:single`, sized by `settings.limits_for("pubmed")`, which picks
# `pubmed_limits_with_key` when NCBI_API_KEY is set. `tool`, `email` and `api_key` go on every
# request as NCBI asks.
pubmed_transport: Final = source_transport(SOURCE, params=_ncbi_identity)
