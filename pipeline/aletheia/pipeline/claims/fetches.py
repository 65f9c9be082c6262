"""A claim job's full-text documents between its text and parsing stages (issue 19, item 6).

On the queue, a paper's HTML or PDF is fetched on the retrieval pool and converted on the parsing
pool. The text stage runs the full-text chain (`fulltext.fetch_paper_text`, unchanged) with two
stand-ins from here:

- `StagedFetches.convert`: a document the parsing stage converted is read back from its row (its
  text, or the same `DocumentLimitError` / `ConversionError` it raised: the chain records it and
  goes on, as in one process); a document not converted yet is stored and stops the stage with
  `ConversionNeeded`. The job's state then says `parse`; the parsing pool converts the document
  (`convert_stored`) and the text stage runs the chain again, which now gets past it.
- `StagedFetches.gateway(...)`: the gateway with its full-text fetchers (`arxiv.fetch_html`,
  `arxiv.fetch_pdf`, `open_access.fetch`) answered from the job's stored documents when the job
  already fetched them (`fetched`, kept in the job's state): running the chain again sends none of
  the requests the first run sent. A fetch that failed is not remembered: it is asked again.

The chain itself decides what to try next from each conversion (too little text: the next way),
so this resume-from-the-start is exactly the in-process order. Database calls run in a thread,
never on the event loop the retrieval pool's lookups share.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aletheia.core.excerpts import PaperText
from aletheia.pipeline.documents.fulltext import DocumentKind, convert_document
from aletheia.pipeline.documents.pdf_reading import ConversionError, DocumentLimitError, FulltextError
from aletheia.sources.open_access import OpenAccessDocument

if TYPE_CHECKING:
    # Where a job's documents are kept.
    from aletheia.storage.claim_store import ClaimStageStore

__all__ = ["ConversionNeeded", "StagedFetches", "convert_stored", "document_key"]


class ConversionNeeded(Exception):
    """A fetched document is not converted yet: the job's parsing stage converts it first.

    Not a `FulltextError`: the chain lets it through (it catches only those)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def document_key(data: bytes, kind: str) -> str:
    """`pdf:<sha256>` / `html:<sha256>`: a document is converted once per job whatever fetched it."""
    return f"{kind}:{hashlib.sha256(data).hexdigest()}"


_ERRORS: dict[str, type[FulltextError]] = {
    "DocumentLimitError": DocumentLimitError,
    "ConversionError": ConversionError,
}


def convert_stored(store: ClaimStageStore, job_id: str, key: str, *, settings: Any) -> None:
    """The parsing stage's work for one document: convert it (`convert_document`, cached by content
    hash) and store its text or the error; a document already converted is left alone."""
    done = store.conversion(job_id, key)
    if done is None or done.done:
        return
    stored = store.document_data(job_id, key)
    if stored is None:
        return
    kind, data = stored
    try:
        paper = convert_document(data, "pdf" if kind == "pdf" else "html", settings=settings)
    except FulltextError as exc:
        error_kind = type(exc).__name__ if type(exc).__name__ in _ERRORS else "ConversionError"
        store.set_conversion(job_id, key, error=str(exc), error_kind=error_kind)
        return
    store.set_conversion(job_id, key, paper=paper.model_dump(mode="json"))


@dataclass
class StagedFetches:
    """The text stage's converter and fetch memory for one job (see the module docstring)."""

    store: ClaimStageStore
    job_id: str
    fetched: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # fetch -> document

    async def _store(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(call, *args, **kwargs)

    async def convert(self, data: bytes, kind: DocumentKind) -> PaperText:
        key = document_key(data, kind)
        done = await self._store(self.store.conversion, self.job_id, key)
        if done is None:
            await self._store(self.store.put_document, self.job_id, key, kind, data)
            raise ConversionNeeded(key)
        if done.error is not None:
            raise _ERRORS.get(done.error_kind or "", ConversionError)(done.error)
        if done.paper is None:
            raise ConversionNeeded(key)
        return PaperText.model_validate(done.paper)

    async def remember(
        self, fetch: str, kind: DocumentKind, call: Callable[[], Awaitable[Any]], *, text: bool = False
    ) -> Any:
        """`call()`'s body (bytes, or str with `text`), answered from the stored document when this
        job fetched it before; None (nothing there) is remembered too, a failure is not."""
        if fetch in self.fetched:
            entry = self.fetched[fetch]
            if entry is None:
                return None
            stored = await self._store(self.store.document_data, self.job_id, entry["document"])
            if stored is not None:
                return stored[1].decode("utf-8") if text else stored[1]
        body = await call()
        if body is None:
            self.fetched[fetch] = None
            return None
        data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        key = document_key(data, kind)
        await self._store(self.store.put_document, self.job_id, key, kind, data)
        self.fetched[fetch] = {"document": key}
        return body

    def gateway(self, gateway: Any) -> Any:
        return _Gateway(gateway, self)


class _Passing:
    """A stand-in for `inner` (the gateway or one of its clients): what it does not define is
    `inner`'s own."""

    def __init__(self, inner: Any, fetches: StagedFetches) -> None:
        self._inner = inner
        self._fetches = fetches

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Gateway(_Passing):
    """The gateway, with its full-text fetchers going through `StagedFetches.remember`."""

    def __init__(self, inner: Any, fetches: StagedFetches) -> None:
        super().__init__(inner, fetches)
        if hasattr(inner, "open_access"):  # a stand-in gateway without one keeps having none
            oa = inner.open_access
            self.open_access = _OpenAccess(oa, fetches) if oa is not None else None

    @property
    def arxiv(self) -> Any:
        return _Arxiv(self._inner.arxiv, self._fetches)


class _Arxiv(_Passing):
    async def fetch_html(self, arxiv_id: str) -> str | None:
        result: str | None = await self._fetches.remember(
            f"arxiv_html:{arxiv_id}", "html", lambda: self._inner.fetch_html(arxiv_id), text=True
        )
        return result

    async def fetch_pdf(self, arxiv_id: str) -> bytes | None:
        result: bytes | None = await self._fetches.remember(
            f"arxiv_pdf:{arxiv_id}", "pdf", lambda: self._inner.fetch_pdf(arxiv_id)
        )
        return result


class _OpenAccess(_Passing):
    async def fetch(self, url: str) -> Any:
        fetches = self._fetches
        entry = fetches.fetched.get(f"oa:{url}")
        if entry is not None:
            stored = await fetches._store(fetches.store.document_data, fetches.job_id, entry["document"])
            if stored is not None:
                kind: DocumentKind = "pdf" if stored[0] == "pdf" else "html"
                return OpenAccessDocument(url=url, final_url=entry["final_url"], kind=kind, body=stored[1])
        document = await self._inner.fetch(url)
        key = document_key(document.body, document.kind)
        await fetches._store(fetches.store.put_document, fetches.job_id, key, document.kind, document.body)
        fetches.fetched[f"oa:{url}"] = {"document": key, "final_url": document.final_url}
        return document
