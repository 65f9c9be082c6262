"""Europe PMC: where a biomedical paper's open-access full text is, and the text itself (JATS).

Endpoints (`{ALETHEIA_EUROPE_PMC_URL}/europepmc/webservices/rest/...`, default host
https://www.ebi.ac.uk):

- `search?query=...&format=json&resultType=lite` maps a PMID (`EXT_ID:<pmid> AND SRC:MED`) or a DOI
  (`DOI:"<doi>"`) to the work's PMCID and its open-access flags (`locate`);
- `{PMCID}/fullTextXML` returns the JATS XML of an open-access article and 404 for any other
  (`full_text`).

Europe PMC documents no rate; EBI asks for moderate use, so the transport's bucket
`europe_pmc:single` runs at `settings.europe_pmc_limits` (5 per second, 2 at once by default).
Answers are cached: a location by its query (a search with no result is a negative entry), a full
text by PMCID (a 404, "not open access", is a negative entry, which expires after a day). The
parsers are pure and live in `europe_pmc_parse`, re-exported here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from aletheia.core.excerpts import PaperText
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.cache import cache_key
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.europe_pmc_parse import (  # the pure parsers, re-exported
    EuropePmcHit,
    JatsArticle,
    parse_jats,
    parse_search,
)
from aletheia.sources.transport.factory import source_transport
from aletheia.sources.transport.item_stats import count

__all__ = [
    "REST_PATH",
    "EuropePmcClient",
    "EuropePmcHit",
    "JatsArticle",
    "europe_pmc_transport",
    "parse_jats",
    "parse_search",
]

SOURCE = SourceName.EUROPE_PMC
REST_PATH: Final = "/europepmc/webservices/rest"


def _same_work(hits: list[EuropePmcHit], doi: str | None, pmid: str | None) -> EuropePmcHit | None:
    """The result that is the work asked for: a search answers by relevance, and a hit with
    another PMID or DOI is another paper, never a location of this one."""
    for hit in hits:
        record = hit.record
        if pmid is not None and record.pmid == pmid:
            return hit
        if pmid is None and doi is not None and record.doi and record.doi.lower() == doi.lower():
            return hit
    return None


class EuropePmcClient(SourceClientBase):
    """Open-access locations (by PMID or DOI) and JATS full texts (by PMCID)."""

    source = SOURCE

    async def locate(self, *, doi: str | None = None, pmid: str | None = None) -> EuropePmcHit | None:
        """Europe PMC's record of the work with this PMID (asked first: it is exact) or DOI, with
        its PMCID and open-access flags; None when Europe PMC has no such work."""
        canonical_pmid = clean_pmid(pmid) if pmid else None
        canonical_doi = clean_doi(doi) if doi else None
        if canonical_pmid:
            query = f"EXT_ID:{canonical_pmid} AND SRC:MED"
        elif canonical_doi:
            query = f'DOI:"{canonical_doi}"'
        else:
            raise ValueError(f"Europe PMC needs a PMID or a DOI, got {pmid!r}, {doi!r}")
        path = f"{REST_PATH}/search"
        params = {"query": query, "format": "json", "resultType": "lite", "pageSize": 5}

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> EuropePmcHit | None:
            hits = parse_search(payload) if payload is not None else []
            return _same_work(hits, canonical_doi, canonical_pmid)

        return await self._search_json(
            path,
            params,
            parse,
            found=lambda payload: payload is not None and bool(parse_search(payload)),
            kind="single",
        )

    async def full_text(self, pmcid: str) -> JatsArticle | None:
        """The JATS article of `pmcid`; None when Europe PMC has no open-access text for it (404).
        The article's `paper` is None when the XML holds metadata but no body."""
        canonical = clean_pmcid(pmcid)
        if canonical is None:
            raise ValueError(f"not a PMCID: {pmcid!r}")
        path = f"{REST_PATH}/{canonical}/fullTextXML"
        key = cache_key("pmcid", canonical)
        if self.cache is not None:
            cached = await self.cache.get(SOURCE, key)
            if cached is not None:
                count(self.transport.stats, "cache_hits")
                return self._checked(parse_jats(cached.raw), canonical) if cached.found else None
        body = await self.transport.get_text(path, kind="fulltext")
        # Parsed before it is stored: a body that does not parse is never cached.
        article = self._checked(parse_jats(body), canonical) if body is not None else None
        await self._store(key, body, self._url(path))
        return article

    async def paper_text(self, pmcid: str) -> PaperText | None:
        """The article's text (origin `pmc_jats`), or None: not open access, or no body."""
        article = await self.full_text(pmcid)
        return article.paper if article is not None else None

    @staticmethod
    def _checked(article: JatsArticle, pmcid: str) -> JatsArticle:
        if article.pmcid is not None and article.pmcid != pmcid:
            raise SourceParseError(SOURCE, f"asked for {pmcid}, the XML is {article.pmcid}")
        return article


# The polite transport to Europe PMC's REST API (`settings.europe_pmc_url`): its limits, its
# breaker, and off when offline or listed in `ALETHEIA_DISABLED_SOURCES`.
europe_pmc_transport: Final = source_transport(SOURCE)
