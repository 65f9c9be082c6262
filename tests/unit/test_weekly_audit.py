"""The weekly audit asks the sources again (issue 22, item 5): its drift audit runs on a gateway
that reads no cached answer and no library record, an artifact found retracted since is marked so
`aletheia check` fails on it, the link check runs, and the re-verification of each repository asks
every source afresh. A claim job's report folder is not audited as a repository (item 7)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from aletheia.config import Settings
from aletheia.core.artifacts import parse_artifact
from aletheia.core.records import RetractionKind, RetractionNotice, SourceName
from aletheia.pipeline import service
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.jobs.audit import start_audit
from aletheia.pipeline.jobs.documents import sweep_exit_code
from aletheia.pipeline.runtime import Runtime, WriteOnlyCache
from aletheia.pipeline.service import InlineDispatcher, ServiceContext
from aletheia.storage.models import ArtifactRow
from tests.unit.test_citations_check import SLUG, WORK, FakeGateway
from tests.unit.test_citations_check import repo as repo
from tests.unit.test_service import ScriptedVerifier

RETRACTED = WORK.model_copy(
    update={
        "source": SourceName.OPENALEX,
        "retraction_notices": (RetractionNotice(kind=RetractionKind.RETRACTED, source=SourceName.OPENALEX),),
    }
)
UNCHANGED = WORK.model_copy(update={"source": SourceName.CROSSREF})


class StaleGateway:
    """What the cache and the library still say: nothing changed. The audit must not ask it."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the audit read the cached gateway ({name})")


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


@pytest.fixture
def audit_ctx(runtime: Runtime) -> Iterator[ServiceContext]:
    ctx = ServiceContext(
        runtime=runtime,
        dispatcher=InlineDispatcher(sleep=lambda _s: None),
        runner=service.LoopThread(),
        verifier=ScriptedVerifier(),
        gateway=StaleGateway(),  # type: ignore[arg-type]
        fresh_gateway=FakeGateway(RETRACTED, UNCHANGED),  # type: ignore[arg-type]
    )
    yield ctx
    ctx.close()


def check_exit(path: Path) -> int:
    from aletheia.producers.claims_cli import check

    return CliRunner().invoke(check, [str(path)]).exit_code


def test_the_weekly_audit_asks_again_and_marks_a_newly_retracted_artifact(
    runtime: Runtime, audit_ctx: ServiceContext, repo: Path
) -> None:
    service.register_repositories(runtime, [str(repo)])
    assert check_exit(repo) == 0  # the artifact was verified, and is cited twice

    job_id = start_audit(audit_ctx)
    assert job_id is not None
    assert isinstance(audit_ctx.dispatcher, InlineDispatcher)
    audit_ctx.dispatcher.drain(audit_ctx)

    artifact = parse_artifact((repo / "docs" / "citations" / f"{SLUG}.md").read_text())
    assert artifact.frontmatter.retraction_status is RetractionKind.RETRACTED
    assert check_exit(repo) == 1  # `aletheia check` now fails wherever it is cited
    summary = service.job_summary(runtime, job_id)
    (audit,) = summary["audits"]
    assert audit["marked_retracted"] == [f"docs/citations/{SLUG}.md"]
    assert audit["drift_exit_code"] == 1 and audit["check_exit_code"] == 1
    assert sweep_exit_code(summary) == 1
    # The re-verification of the repository asks every source again too.
    (child,) = service.children(runtime, job_id)
    assert child.input["fresh_sources"] is True
    with runtime.jobs.sessions() as s:
        rows = s.query(ArtifactRow).filter_by(job_id=job_id, kind="citation").all()
    assert [Path(r.path).name for r in rows] == [f"{SLUG}.md"]  # recorded by path, once


def test_an_audit_child_verifies_on_the_fresh_gateway(
    runtime: Runtime, audit_ctx: ServiceContext, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    async def verify_reference(cited: Any, gateway: Any, **_: Any) -> Any:
        seen.append(gateway)
        return await ScriptedVerifier()(cited)

    monkeypatch.setattr(bibliography_jobs, "verify_reference", verify_reference)
    audit_ctx.verifier = None
    service.register_repositories(runtime, [str(repo)])
    job_id = start_audit(audit_ctx)
    assert isinstance(audit_ctx.dispatcher, InlineDispatcher)
    audit_ctx.dispatcher.drain(audit_ctx)
    assert seen and all(g is audit_ctx.fresh_gateway for g in seen)
    assert service.job_status(runtime, job_id or "")["status"] == "done"


def test_a_fresh_gateway_reads_no_cache_and_no_library(runtime: Runtime) -> None:
    async def scenario() -> None:
        await runtime.cache.put("crossref", "doi:10.1/x", {"title": "cached"}, found=True)
        fresh = WriteOnlyCache(runtime.cache)
        assert await fresh.get("crossref", "doi:10.1/x") is None  # never read
        await fresh.put("crossref", "doi:10.1/y", {"title": "new"}, found=True)  # still refreshed
        assert await runtime.cache.get("crossref", "doi:10.1/y") is not None
        async with runtime.gateway(fresh=True) as gateway:
            assert gateway.library is None

    asyncio.run(scenario())


def test_a_claim_jobs_report_folder_is_not_audited(runtime: Runtime, audit_ctx: ServiceContext) -> None:
    folder = runtime.settings.reports_path() / "a-claim-job"
    (folder / "docs" / "citations").mkdir(parents=True)
    with runtime.jobs.sessions.begin() as s:
        s.add(ArtifactRow(repository=str(folder), path=str(folder / "docs/citations/x.md"), kind="citation",
                          content_hash="0" * 64))  # fmt: skip
    assert start_audit(audit_ctx) is None  # nothing to audit: a job's output is no repository


def _library_verdict(runtime: Runtime) -> str:
    """What a later job answered from the Tier-0 library decides for the artifact's work."""
    from aletheia.core.decide import decide
    from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
    from aletheia.core.records import CitedReference

    cited = CitedReference(
        key="nowicka", title=WORK.title, authors=WORK.authors, year=WORK.year, doi=WORK.doi
    )
    records = runtime.library.lookup_sync(cited)
    answers = tuple(
        SourceAnswer(source=r.source, kind=QueryKind.DOI, query=WORK.doi or "", outcome=Outcome.FOUND,
                     records=(r.record,))
        for r in records
    )  # fmt: skip
    return decide(cited, Evidence(answers=answers), current_year=2026).status.value


def _remember(runtime: Runtime, *records: Any) -> None:
    from datetime import UTC, datetime

    from aletheia.sources.base import SourceRecord

    runtime.library.remember_sync(
        [SourceRecord(record=r, raw={}, fetched_at=datetime.now(UTC)) for r in records]
    )


def test_what_the_audit_learns_reaches_the_library(
    runtime: Runtime, audit_ctx: ServiceContext, repo: Path
) -> None:
    """Issue 30: the audit found the work retracted, yet later jobs answered `verified` from the
    library, which still held the records of before."""
    _remember(runtime, WORK.model_copy(update={"source": SourceName.OPENALEX}), UNCHANGED)
    assert _library_verdict(runtime) == "verified"
    service.register_repositories(runtime, [str(repo)])
    job_id = start_audit(audit_ctx)
    assert job_id is not None and isinstance(audit_ctx.dispatcher, InlineDispatcher)
    audit_ctx.dispatcher.drain(audit_ctx)
    assert _library_verdict(runtime) == "retracted"


def test_a_found_works_fresh_records_reach_the_library(runtime: Runtime) -> None:
    from datetime import UTC, datetime

    from aletheia.core.evidence import Evidence
    from aletheia.core.records import CitedReference
    from aletheia.core.verdicts import Verdict, VerdictStatus
    from aletheia.pipeline.evidence.outcome import ReferenceOutcome
    from aletheia.pipeline.evidence.remember import remember_found
    from aletheia.sources.base import SourceRecord

    _remember(runtime, WORK.model_copy(update={"source": SourceName.OPENALEX}), UNCHANGED)
    cited = CitedReference(key="nowicka", title=WORK.title, doi=WORK.doi)
    fresh = [SourceRecord(record=RETRACTED, raw={}, fetched_at=datetime.now(UTC))]

    def outcome(status: VerdictStatus) -> ReferenceOutcome:
        verdict = Verdict(status=status, match=RETRACTED)
        return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=fresh)

    # A metadata error on an ordinary run is not kept; on the audit, what it learnt is.
    asyncio.run(remember_found(runtime.library, outcome(VerdictStatus.METADATA_ERROR)))
    assert _library_verdict(runtime) == "verified"
    asyncio.run(remember_found(runtime.library, outcome(VerdictStatus.METADATA_ERROR), audit=True))
    assert _library_verdict(runtime) == "retracted"
    # A retraction found on any run replaces the library's record.
    _remember(runtime, WORK.model_copy(update={"source": SourceName.OPENALEX}))
    assert _library_verdict(runtime) == "verified"
    asyncio.run(remember_found(runtime.library, outcome(VerdictStatus.RETRACTED)))
    assert _library_verdict(runtime) == "retracted"
