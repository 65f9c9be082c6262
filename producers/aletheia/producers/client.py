"""A Python client for agents and scripts: submit work, follow it, read its result.

    from aletheia.producers.client import AletheiaClient
    client = AletheiaClient()
    job = client.submit(["paper.bib"])
    client.wait(job, timeout=600)
    report = client.result(job)          # {"summary": ..., "references": [...]}

With `ALETHEIA_BROKER_URL` set, jobs go onto the queue and the worker pools do them; without it
the same steps run in this process before `submit` returns (the embedded default). Either way the
job and its results are rows in the database named by `ALETHEIA_DATABASE_URL`.
`AsyncAletheiaClient` offers the same operations as coroutines.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from aletheia.config import Settings, get_settings
from aletheia.core.errors import AletheiaError
from aletheia.pipeline.jobs.kinds import kind_record, resolve
from aletheia.storage.models import JobStatus

if TYPE_CHECKING:
    from aletheia.pipeline.runtime import Runtime
    from aletheia.pipeline.service import InputDocument

FINISHED = (JobStatus.DONE, JobStatus.FAILED)


def _service() -> ModuleType:
    """The pipeline's service functions, imported on first use: following a job (`status`,
    `wait`) needs only the stores, and `aletheia status` must start fast (docs/benchmarks.md)."""
    from aletheia.pipeline import service

    return service


class JobTimeout(TimeoutError, AletheiaError):
    def __init__(self, job_id: str, status: dict[str, Any]) -> None:
        super().__init__(f"job {job_id} is still {status['status']} ({status['pending']} pending)")
        self.job_id = job_id
        self.status = status


class AletheiaClient:
    def __init__(self, settings: Settings | None = None, *, submitted_by: str | None = None) -> None:
        self.settings = settings or get_settings()
        self.submitted_by = submitted_by or _whoami()
        self._runtime: Runtime | None = None

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            from aletheia.pipeline.runtime import Runtime

            self._runtime = Runtime.open(self.settings)
        return self._runtime

    @property
    def queued(self) -> bool:
        """True when a broker is configured (the pools do the work), False for the embedded mode."""
        return self.settings.broker_url is not None

    # --- submitting -------------------------------------------------------------------------------

    def _dispatch(self, submit: Any) -> str:
        if self.queued:
            from aletheia.workers.dispatch import CeleryDispatcher

            job_id: str = submit(CeleryDispatcher())
            return job_id
        service = _service()
        inline = service.InlineDispatcher()
        ctx = service.ServiceContext(
            runtime=self.runtime, dispatcher=inline, runner=service.LoopThread(), defer_tokens=False
        )
        try:
            job_id = submit(inline)
            inline.drain(ctx)
        finally:
            ctx.close()
        return job_id

    def submit(self, files: Sequence[str | Path]) -> str:
        """A bibliography job over the files (BibTeX, .bbl, Markdown, plain lists, CSL-JSON, PDF)."""
        from aletheia.pipeline.jobs.submission import InputDocument

        documents = [InputDocument.read(Path(f)) for f in files]
        return self.submit_documents(documents)

    def submit_text(self, text: str, *, name: str = "bibliography.txt") -> str:
        """A bibliography job over text given inline; `name`'s extension hints at the format."""
        from aletheia.pipeline.jobs.submission import InputDocument

        return self.submit_documents([InputDocument(name=name, data=text.encode("utf-8"))])

    def submit_documents(self, documents: Sequence[InputDocument]) -> str:
        return self._dispatch(
            lambda d: _service().submit_bibliography(
                self.runtime, d, documents, submitted_by=self.submitted_by
            )
        )

    def submit_claim(
        self,
        claim: str,
        *,
        hint: str | None = None,
        paper: str | None = None,
        into: str | Path | None = None,
        override_reason: str | None = None,
    ) -> str:
        """A claim job; `into` is the repository whose docs/citations/ receives the artifact. `paper`
        (DOI, arXiv id, PMID) judges that paper for the claim and never substitutes another;
        `override_reason` accepts a triangulation conflict, recorded in the artifact."""
        return self._dispatch(
            lambda d: _service().submit_claim(
                self.runtime,
                d,
                claim,
                submitted_by=self.submitted_by,
                hint=hint,
                paper=paper,
                repository=into,
                override_reason=override_reason,
            )
        )

    def submit_claims_text(
        self,
        text: str,
        *,
        name: str = "document.md",
        bibliography: str | None = None,
        bibliography_name: str = "references.bib",
        suggest: bool = True,
        check: bool = True,
        max_suggestions: int = 20,
        max_judgements: int = 50,
        into: str | Path | None = None,
    ) -> str:
        """A claims-text job (`validate_research`): `name`'s extension names the format (.md, .tex,
        .txt); `bibliography` is its BibTeX (or any reference list), else the text's own list. Each
        cited sentence is judged against the paper it cites (at most `max_judgements` pairs)."""
        from aletheia.pipeline.jobs.claims_text import submit_claims_text
        from aletheia.pipeline.jobs.submission import InputDocument

        document = InputDocument(name=name, data=text.encode("utf-8"))
        bibs = (
            [InputDocument(name=bibliography_name, data=bibliography.encode("utf-8"))] if bibliography else []
        )
        return self._dispatch(
            lambda d: submit_claims_text(
                self.runtime,
                d,
                document,
                bibs,
                submitted_by=self.submitted_by,
                suggest=suggest,
                check=check,
                max_suggestions=max_suggestions,
                max_judgements=max_judgements,
                repository=into,
            )
        )

    def validate_research(
        self, text: str, *, wait: bool = True, timeout: float = 600.0, **options: Any
    ) -> dict[str, Any]:
        """Submit a claims-text job; with `wait`, return its report once the job settles: every
        claim's status, its citations' verdicts and, for a cited claim, the judgement of the paper it
        cites (docs/report-schema.md, "The claims report")."""
        return self._settle(self.submit_claims_text(text, **options), wait=wait, timeout=timeout)

    def verify_claim_with_search(self, claim: str, *, urls: Sequence[str] = ()) -> dict[str, Any]:
        """A generic web claim (an RFC, a standard, software docs) judged against the page itself:
        the `urls` given, else a web search's pages; fetched through the SSRF-safe web tier, the
        verbatim rule and the claim judge as for a paper (seed 001). In this process, no job."""
        from aletheia.pipeline.claims.web_claims import verify_claim_on_the_web

        return asyncio.run(verify_claim_on_the_web(claim, urls, settings=self.settings)).as_json()

    @staticmethod
    def find_unsupported_claims(text: str, *, name: str = "", fmt: str | None = None) -> list[dict[str, Any]]:
        """The claims of `text` that need a citation and carry none: pure, no job, no network."""
        from aletheia.core.claim_text import find_unsupported_claims
        from aletheia.core.research_prose import text_format

        return [f.as_json() for f in find_unsupported_claims(text, fmt=fmt or text_format(text, name))]

    def sweep(self, repositories: Sequence[str | Path], *, register: bool = True) -> str:
        return self._dispatch(
            lambda d: _service().submit_sweep(
                self.runtime, d, repositories, submitted_by=self.submitted_by, register=register
            )
        )

    def verify_claim(
        self,
        claim: str,
        *,
        paper: str | None = None,
        hint: str | None = None,
        override_reason: str | None = None,
        into: str | Path | None = None,
        wait: bool = True,
        timeout: float = 600.0,
    ) -> dict[str, Any]:
        """Submit a claim (against `paper` alone when given); with `wait`, return its result (or the
        failure) once the job settles. `override_reason` accepts a triangulation conflict, recorded
        in the artifact and the job's audit trail; `into` is the repository for the artifact."""
        job_id = self.submit_claim(claim, paper=paper, hint=hint, override_reason=override_reason, into=into)
        return self._settle(job_id, wait=wait, timeout=timeout)

    def _settle(self, job_id: str, *, wait: bool, timeout: float) -> dict[str, Any]:
        """The job's report once it settles (its error when it failed); without `wait`, its status."""
        if not wait:
            return {"job_id": job_id, "status": self.status(job_id)["status"]}
        status = self.wait(job_id, timeout=timeout)
        if status["status"] == JobStatus.FAILED:
            return {"job_id": job_id, "status": status["status"], "error": status["error"]}
        return self.result(job_id)

    # --- following --------------------------------------------------------------------------------

    def status(self, job_id: str) -> dict[str, Any]:
        from aletheia.pipeline.jobs.status import job_status

        return job_status(self.runtime, job_id)

    def wait(
        self,
        job_id: str,
        *,
        timeout: float | None = None,
        poll: float = 0.5,
        on_stall: Callable[[dict[str, Any], float], None] | None = None,
        stall_after: float = 10.0,
        on_database_down: Callable[[Exception], None] | None = None,
    ) -> dict[str, Any]:
        """Poll until the job is done or failed; raise `JobTimeout` after `timeout` seconds.
        `on_stall(status, seconds)` is called each time the job's progress (its status, item
        counts, claim stage, finished children) has not moved for another `stall_after` seconds:
        the caller can then ask whether any worker is there to move it (`aletheia wait` does).
        With `on_database_down`, a database that does not answer is waited through: it is called
        with the error at each failed poll, and the error is raised only at the deadline."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = min(poll, 0.1)
        progress: tuple[Any, ...] | None = None
        moved_at = next_stall = time.monotonic()
        while True:
            try:
                status = self.status(job_id)
            except Exception as exc:
                from aletheia.producers.database_down import is_database_down

                if on_database_down is None or not is_database_down(exc):
                    raise
                on_database_down(exc)
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                time.sleep(poll)
                continue
            if status["status"] in FINISHED:
                return status
            now = time.monotonic()
            if _progress(status) != progress:
                progress, moved_at, next_stall = _progress(status), now, now + stall_after
            elif on_stall is not None and now >= next_stall:
                on_stall(status, now - moved_at)
                next_stall = now + stall_after
            if deadline is not None and now >= deadline:
                raise JobTimeout(job_id, status)
            time.sleep(pause)
            pause = min(poll, pause * 1.5)

    def result(self, job_id: str) -> dict[str, Any]:
        """The job's report document, from its rows, as its kind's record builds it
        (`jobs/kinds.py`: a bibliography's references, a claim's or a sweep's summary, a claims
        text's report)."""
        job = self.runtime.jobs.job(job_id)
        if job is None:
            raise _service().JobNotFound(job_id)
        document: dict[str, Any] = resolve(kind_record(job.kind).document)(self.runtime, job_id)
        return document


class AsyncAletheiaClient:
    """The same operations as coroutines (database work runs in a thread, never on the loop)."""

    def __init__(self, settings: Settings | None = None, *, submitted_by: str | None = None) -> None:
        self.sync = AletheiaClient(settings, submitted_by=submitted_by)

    async def submit(self, files: Sequence[str | Path]) -> str:
        return await asyncio.to_thread(self.sync.submit, files)

    async def submit_text(self, text: str, *, name: str = "bibliography.txt") -> str:
        return await asyncio.to_thread(self.sync.submit_text, text, name=name)

    async def submit_claim(
        self,
        claim: str,
        *,
        paper: str | None = None,
        hint: str | None = None,
        override_reason: str | None = None,
        into: str | Path | None = None,
    ) -> str:
        return await asyncio.to_thread(
            lambda: self.sync.submit_claim(
                claim, paper=paper, hint=hint, override_reason=override_reason, into=into
            )
        )

    async def sweep(self, repositories: Sequence[str | Path], *, register: bool = True) -> str:
        return await asyncio.to_thread(self.sync.sweep, repositories, register=register)

    async def submit_claims_text(self, text: str, **options: Any) -> str:
        return await asyncio.to_thread(lambda: self.sync.submit_claims_text(text, **options))

    async def validate_research(self, text: str, **options: Any) -> dict[str, Any]:
        return await asyncio.to_thread(lambda: self.sync.validate_research(text, **options))

    async def verify_claim(
        self,
        claim: str,
        *,
        paper: str | None = None,
        hint: str | None = None,
        override_reason: str | None = None,
        into: str | Path | None = None,
        wait: bool = True,
        timeout: float = 600.0,  # noqa: ASYNC109
    ) -> dict[str, Any]:
        job_id = await self.submit_claim(
            claim, paper=paper, hint=hint, override_reason=override_reason, into=into
        )
        if not wait:
            return {"job_id": job_id, "status": (await self.status(job_id))["status"]}
        status = await self.wait(job_id, timeout=timeout)
        if status["status"] == JobStatus.FAILED:
            return {"job_id": job_id, "status": status["status"], "error": status["error"]}
        return await self.result(job_id)

    async def status(self, job_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.status, job_id)

    async def wait(self, job_id: str, *, timeout: float | None = None, poll: float = 0.5) -> dict[str, Any]:  # noqa: ASYNC109
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        pause = min(poll, 0.1)
        while True:
            status = await self.status(job_id)
            if status["status"] in FINISHED:
                return status
            if deadline is not None and loop.time() >= deadline:
                raise JobTimeout(job_id, status)
            await asyncio.sleep(pause)
            pause = min(poll, pause * 1.5)

    async def result(self, job_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.result, job_id)


def _progress(status: dict[str, Any]) -> tuple[Any, ...]:
    """What changes when a worker does something for the job."""
    return (
        status["status"],
        status.get("done"),
        status.get("failed"),
        status.get("pending"),
        status.get("stage"),
        json.dumps(status.get("children"), sort_keys=True),
    )


def _whoami() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return "unknown"
