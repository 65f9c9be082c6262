"""Open-access full text: fetch the PDF or page that OpenAlex or Semantic Scholar link a work to
(`WorkRecord.urls["oa_pdf"]`, `["oa_html"]`), for the claim pipeline's full-text chain
(`pipeline/oa_fulltext.py`).

These are hosts no source client knows (institutional repositories, publishers), so every fetch
goes through the SSRF-safe fetcher (`web_fetch`) with the web tier's rules: the ports, the
test-only allow-list and the redirect bound of `ALETHEIA_WEB_TIER_*`, every address checked, DNS
pinned. Its own bounds: `ALETHEIA_OA_FULLTEXT_MAX_BYTES` (a paper's PDF is megabytes, not the
web tier's 300 kB of page) and `ALETHEIA_OA_FULLTEXT_TIMEOUT_SECONDS`. One GET, no HEAD: the body
is wanted whatever it is. Every fetch draws from one global bucket (`oa_fulltext:single`,
`ALETHEIA_OA_FULLTEXT_LIMITS`) and holds a slot of its concurrency cap, whatever the host.

On by default (`ALETHEIA_OA_FULLTEXT`); off, or offline, no fetcher is built and `fetch` raises
`SourceUnavailableError`. What a fetch can raise, for the chain to write down and go past:
`WebRefusedError` (the policy refused the URL or an address on the way), `TransientSourceError`
(no such name, a refused connection, a timeout), `PermanentSourceError` (an HTTP status other than
2xx, a body over the size bound, a body that is neither a PDF nor an HTML page). The body is not
cached: the conversion is (by content hash, `fulltext.convert_document`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from aletheia.sources.base import PermanentSourceError, SourceStats, SourceUnavailableError
from aletheia.sources.transport.item_stats import count, count_extra
from aletheia.sources.web_fetch import WebFetcher
from aletheia.sources.web_policy import WebPolicy

if TYPE_CHECKING:
    from aletheia.config.settings import Settings, SourceLimits
    from aletheia.sources.transport.limiter import RateLimiter

# The limiter's bucket and the settings' prefix. Not a `SourceName`: a fetched copy of a paper is
# text to match excerpts against, never a record of the work.
SOURCE: Final = "oa_fulltext"
ACCEPT: Final = "application/pdf,text/html;q=0.9,application/xhtml+xml;q=0.9,*/*;q=0.1"
PDF_MAGIC: Final = b"%PDF-"
# PDF readers accept the header anywhere in the first kilobyte (some servers prepend junk).
_SNIFF_BYTES: Final = 1024
_HTML_TYPES: Final = frozenset({"text/html", "application/xhtml+xml"})

DocumentKind = Literal["html", "pdf"]


@dataclass(frozen=True, slots=True)
class OpenAccessDocument:
    """A fetched open-access copy: what it is (by its bytes, then its Content-Type) and its body."""

    url: str
    final_url: str
    kind: DocumentKind
    body: bytes


def document_kind(content_type: str | None, body: bytes) -> DocumentKind | None:
    """`pdf` when the bytes say so (`%PDF-` in the first kilobyte) whatever the Content-Type (servers
    send PDFs as `application/octet-stream`); `html` for an HTML Content-Type or an HTML-looking
    start without one; None otherwise (an image, a Word file, a PDF "viewer" that is no PDF)."""
    head = body[:_SNIFF_BYTES]
    if PDF_MAGIC in head:
        return "pdf"
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind in _HTML_TYPES:
        return "html"
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if kind in ("", "application/octet-stream") and start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


class OpenAccessClient:
    """`fetcher` None: the route is off (`why_disabled` says why)."""

    def __init__(
        self,
        fetcher: WebFetcher | None,
        limiter: RateLimiter,
        limits: SourceLimits,
        *,
        why_disabled: str = "open-access full text is off (ALETHEIA_OA_FULLTEXT)",
    ) -> None:
        self.fetcher = fetcher
        self.limiter = limiter
        self.limits = limits
        self.enabled = fetcher is not None
        self.why_disabled = why_disabled
        self.stats = SourceStats(status="ok" if self.enabled else "disabled", source=SOURCE)

    async def fetch(self, url: str) -> OpenAccessDocument:
        """The PDF or HTML page at `url`; see the module docstring for what it raises."""
        if self.fetcher is None:
            raise SourceUnavailableError(SOURCE, self.why_disabled)
        async with self.limiter.slot(SOURCE, max(1, self.limits.concurrency)):
            await self.limiter.acquire(
                f"{SOURCE}:single", self.limits.rate, self.limits.burst, max_wait=self.fetcher.timeout
            )
            try:
                result = await self.fetcher.fetch(url, on_request=self._count, head=False)
            except Exception as exc:
                count(self.stats, "errors")
                self.stats.last_error = str(exc)
                raise
        if not result.ok:
            raise PermanentSourceError(SOURCE, f"HTTP {result.status}", result.status)
        if result.truncated:
            # A partial PDF is unreadable and a partial page is not the paper: refused whole.
            why = (
                f"larger than {self.fetcher.max_bytes} bytes (ALETHEIA_OA_FULLTEXT_MAX_BYTES)"
                if result.body
                else "a content encoding the fetcher does not read"
            )
            raise PermanentSourceError(SOURCE, f"not read: {why}")
        kind = document_kind(result.content_type, result.body)
        if kind is None:
            raise PermanentSourceError(
                SOURCE, f"neither a PDF nor an HTML page ({result.content_type or 'no type'})"
            )
        return OpenAccessDocument(url=url, final_url=result.final_url, kind=kind, body=result.body)

    def _count(self) -> None:
        """One HTTP request sent (GET, a redirect hop)."""
        count(self.stats, "requests")
        count_extra(self.stats, "requests_fulltext")


def open_access_from_settings(
    settings: Settings, limiter: RateLimiter, *, user_agent: str
) -> OpenAccessClient:
    """The route as the settings say: on unless `ALETHEIA_OA_FULLTEXT` is false, off when offline
    or when `oa_fulltext` is in `ALETHEIA_DISABLED_SOURCES`. Off, no fetcher is built."""
    limits = settings.limits_for(SOURCE)
    if not settings.oa_fulltext:
        return OpenAccessClient(None, limiter, limits)
    if settings.offline:
        return OpenAccessClient(None, limiter, limits, why_disabled="offline")
    if SOURCE in settings.disabled:
        return OpenAccessClient(None, limiter, limits, why_disabled="turned off (ALETHEIA_DISABLED_SOURCES)")
    fetcher = WebFetcher(
        WebPolicy.from_strings(settings.web_tier_ports, settings.web_tier_allow_networks),
        max_bytes=settings.oa_fulltext_max_bytes,
        timeout=settings.oa_fulltext_timeout_seconds,
        max_redirects=settings.web_tier_max_redirects,
        user_agent=user_agent,
        accept=ACCEPT,
    )
    return OpenAccessClient(fetcher, limiter, limits)
