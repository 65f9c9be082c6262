"""Generic web claims (seed 000 §2, seed 001: `verify_claim_with_search`): a claim about an RFC, a
standard, a piece of software's documentation, checked against the page itself (issue 29).

Not every claim is grounded in a paper. Here the claim is judged against a web page: the URLs
given (`urls`), else the pages a web search (Tier 4: Tavily or Brave, when a key is set) returns
for the claim's words, at most `MAX_PAGES`. Each page is fetched through the SSRF-safe fetcher of
the web tier (`sources/web_fetch.py` under `web_policy.py`: http/https, the allowed ports, every
resolved address checked and pinned, redirects re-checked; the open-access client's bounds and
global bucket, `sources/open_access.py`), converted to text like any full text
(`convert_document`, HTML or PDF), and judged by the same judge under the same verbatim rule as a
paper: every excerpt is located in the page's own text, and the claim is supported only when one
excerpt supports it and none contradicts it. No artifact is written (a page is not a work to cite
in `docs/citations/`); the answer says which page, which excerpts (verbatim, with their section),
and why.

Verdicts: `supported` (the page and its excerpts), `contradicted` (a page's own words against it:
the search stops there, default-deny), `not_supported` (every page read, none supports it),
`unreachable` (no page could be read: the reasons listed), `no_pages` (no URL given and no web
search configured, or the search found nothing).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.pipeline.audit.claim_events import judgement_rows
from aletheia.pipeline.claims.judge import ClaimJudge, judge_evidence
from aletheia.pipeline.claims.reasoner import ClaimReasoner, lexical_claim
from aletheia.pipeline.documents.fulltext import FulltextError, convert_document
from aletheia.sources.base import SourceError

__all__ = ["MAX_PAGES", "WebClaimResult", "verify_claim_with_search"]

MAX_PAGES: Final = 3


@dataclass
class WebClaimResult:
    claim: str
    verdict: str  # supported | contradicted | not_supported | unreachable | no_pages
    url: str | None = None  # the page that decided (supported, contradicted)
    excerpts: list[dict[str, str]] = field(default_factory=list)  # verbatim, with location
    judge: str | None = None
    why: str | None = None
    pages: list[dict[str, Any]] = field(default_factory=list)  # every page tried and what came of it

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"

    def exit_code(self) -> int:
        """0 supported; 1 contradicted or not supported; 3 no page could be read or found."""
        return 0 if self.supported else 1 if self.verdict in ("contradicted", "not_supported") else 3

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.supported, **self.__dict__, "exit_code": self.exit_code()}


async def _search_pages(gateway: Any, claim: str) -> tuple[list[str], str | None]:
    tiers = getattr(gateway, "web_tiers", None)
    search = getattr(tiers, "search", None)
    if search is None:
        return [], "no URL was given and no web search is configured (ALETHEIA_TAVILY_API_KEY or Brave's)"
    extracted = lexical_claim(claim, None)
    if not extracted.queries:
        return [], "the claim is too vague to search for"
    try:
        hits = await search.search(extracted.queries[0], limit=MAX_PAGES * 2)
    except SourceError as exc:
        return [], f"the web search could not be asked: {exc}"
    urls = [url for hit in hits if (url := hit.record.urls.get("result") or hit.record.source_id)]
    return list(dict.fromkeys(urls))[:MAX_PAGES], None if urls else "the web search found no page"


async def verify_claim_with_search(
    claim: str,
    *,
    gateway: Any,
    reasoner: ClaimReasoner,
    judge: ClaimJudge,
    urls: Sequence[str] = (),
) -> WebClaimResult:
    """Judge `claim` against the pages at `urls` (else those a web search finds); see the module."""
    claim = " ".join(claim.split())
    pages = list(dict.fromkeys(u.strip() for u in urls if u.strip()))[:MAX_PAGES]
    if not pages:
        pages, problem = await _search_pages(gateway, claim)
        if not pages:
            return WebClaimResult(claim, "no_pages", why=problem)
    result = WebClaimResult(claim, "unreachable")
    read_any = False
    for url in pages:
        try:
            document = await gateway.open_access.fetch(url)
            # Under the gateway's settings (its limits, its sandbox, its cache), not the process's.
            paper = await asyncio.to_thread(
                convert_document, document.body, document.kind, settings=getattr(gateway, "settings", None)
            )
        except (SourceError, FulltextError) as exc:
            result.pages.append({"url": url, "read": False, "why": str(exc)})
            continue
        read_any = True
        judged = await judge_evidence(claim, paper, reasoner, judge)
        judgement = judged.judgement
        result.pages.append(
            {"url": url, "final_url": document.final_url, "read": True, "supported": judged.supported}
        )
        if judgement.contradicting:  # default-deny: a page's own words against the claim end it
            against = judgement.contradicting[0]
            result.verdict, result.url, result.judge = "contradicted", url, judgement.judge
            result.excerpts = [{"text": against.excerpt, "location": against.location or "text"}]
            result.why = against.explanation
            return result
        if judged.supported:
            result.verdict, result.url, result.judge = "supported", url, judgement.judge
            result.excerpts = [
                {"text": m.text, "location": m.location} for m in judged.supporting_matches[:3]
            ]
            result.why = judgement.supporting[0].explanation
            return result
        result.pages[-1]["judgements"] = judgement_rows(judgement.judgements)[:5]
    if read_any:
        result.verdict = "not_supported"
        result.why = f"no excerpt of {len(pages)} page(s) was judged to support the claim"
    else:
        result.why = "no page could be read"
    return result


async def verify_claim_on_the_web(
    claim: str, urls: Sequence[str] = (), *, settings: Any = None
) -> WebClaimResult:
    """`verify_claim_with_search` with the process's sources, reasoner and judge (the CLI, the
    Python client and the agent tool call this)."""
    from aletheia.config import get_settings
    from aletheia.pipeline.claims.judge import judge_from_settings, paced_judge
    from aletheia.pipeline.claims.reasoner import paced_reasoner, reasoner_from_settings
    from aletheia.pipeline.runtime import Runtime

    settings = settings or get_settings()
    async with Runtime.open(settings).gateway() as gateway:
        return await verify_claim_with_search(
            claim,
            gateway=gateway,
            reasoner=paced_reasoner(reasoner_from_settings(settings), gateway),
            judge=paced_judge(judge_from_settings(settings), gateway),
            urls=urls,
        )
