"""The summary's ADR 004 counts (issue 12): by verification status and by the tier that decided,
counted by the function that writes each reference's fields, so the two never disagree; in the
JSON summary, the stored report.json (jobs and sweeps), the HTML summary, the terminal table and
Markdown."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config import Settings
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.transparency import Tier, transparency
from aletheia.core.transparency_counts import TransparencyCounts, tier_label
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.jobs.tally import VerifySummary
from aletheia.pipeline.reports.formats import make_sink
from aletheia.pipeline.reports.transparency import summary_tier_rows, summary_transparency_line
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext


def verdict(status: VerdictStatus, *sources: SourceName, **fields: Any) -> Verdict:
    match = WorkRecord(source=sources[0], title="A work") if sources else None
    secondary = WorkRecord(source=sources[1], title="A work") if len(sources) > 1 else None
    consulted = fields.pop("consulted", ())
    return Verdict(status=status, match=match, secondary=secondary, sources_consulted=consulted, **fields)


# One of each kind of decision: scholarly verified, books verified, a minor error (partial), a web
# page with a differing title (verified with a discrepancy: partial), an LLM suggestion (never
# verified), not found after the scholarly tier answered, and out of scope (no tier).
MIXED = [
    verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF, SourceName.OPENALEX),
    verdict(VerdictStatus.VERIFIED, SourceName.OPEN_LIBRARY),
    verdict(VerdictStatus.METADATA_ERROR, SourceName.DBLP, severity=Severity.MINOR),
    verdict(VerdictStatus.VERIFIED, SourceName.WEB, reasons=(Reason.WEB_PAGE_TITLE_DIFFERS,)),
    verdict(VerdictStatus.VERIFIED, SourceName.LLM),
    verdict(VerdictStatus.NOT_FOUND, consulted=(SourceName.CROSSREF, SourceName.DBLP)),
    verdict(VerdictStatus.OUT_OF_SCOPE, reasons=(Reason.OUT_OF_SCOPE_TYPE,)),
]


def test_counts_by_verification_status_and_by_tier() -> None:
    counts = TransparencyCounts.of(MIXED).as_json()
    assert counts["by_verification_status"] == {"partially_verified": 2, "unverified": 3, "verified": 2}
    rows = {r["tier"]: r for r in counts["by_tier"]}
    assert [r["tier"] for r in counts["by_tier"]] == [1, 2, 4, 5, None]  # the ADR's order, none last
    assert rows[2] == {
        "tier": 2,
        "tier_name": "scholarly",
        "total": 3,
        "by_verdict": {"metadata_error": 1, "not_found": 1, "verified": 1},
        "by_verification_status": {"partially_verified": 1, "unverified": 1, "verified": 1},
    }
    assert rows[1]["tier_name"] == "books" and rows[1]["by_verification_status"] == {"verified": 1}
    assert rows[4]["by_verification_status"] == {"partially_verified": 1}
    # Tier 5 is never evidence: its `verified` verdict counts as unverified.
    assert rows[5] == {
        "tier": 5,
        "tier_name": "LLM",
        "total": 1,
        "by_verdict": {"verified": 1},
        "by_verification_status": {"unverified": 1},
    }
    assert rows[None]["tier_name"] is None and rows[None]["by_verdict"] == {"out_of_scope": 1}


STATUSES = st.sampled_from(list(VerdictStatus))
SOURCES = st.lists(st.sampled_from(list(SourceName)), max_size=2)


@st.composite
def verdicts(draw: st.DrawFn) -> Verdict:
    status = draw(STATUSES)
    severity = draw(st.sampled_from([Severity.MINOR, Severity.MAJOR])) if status == "metadata_error" else None
    consulted = tuple(draw(SOURCES))
    return verdict(status, *draw(SOURCES), severity=severity, consulted=consulted)


@given(st.lists(verdicts(), max_size=12), st.lists(verdicts(), max_size=12))
def test_the_counts_agree_with_the_references_and_merge(a: list[Verdict], b: list[Verdict]) -> None:
    counts = TransparencyCounts.of(a + b).as_json()
    fields = [transparency(v) for v in a + b]
    assert counts["by_verification_status"] == dict(
        sorted(Counter(f.verification_status.value for f in fields).items())
    )
    by_tier = Counter(int(f.tier) if f.tier is not None else None for f in fields)
    assert {r["tier"]: r["total"] for r in counts["by_tier"]} == by_tier
    for row in counts["by_tier"]:
        assert sum(row["by_verdict"].values()) == sum(row["by_verification_status"].values()) == row["total"]
    # A sweep adds its repositories' summaries: the same as counting all references at once.
    merged = TransparencyCounts()
    merged.merge_json(TransparencyCounts.of(a).as_json())
    merged.merge_json(TransparencyCounts.of(b).as_json())
    assert merged.as_json() == counts


def test_merge_skips_what_it_cannot_read() -> None:
    counts = TransparencyCounts()
    counts.merge_json({})  # a summary written before the counts existed
    counts.merge_json({"by_tier": [{"tier": 9, "by_verdict": {"verified": 1}}]})
    assert counts.as_json() == {"by_verification_status": {}, "by_tier": []}


def test_tier_labels() -> None:
    assert tier_label(Tier.SCHOLARLY) == "tier 2 scholarly" and tier_label(3) == "tier 3 classical texts"
    assert tier_label(None) == "no tier" and tier_label(7) == "tier 7"


def summary_of(verdicts: list[Verdict]) -> dict[str, Any]:
    summary = VerifySummary(job_id="j")
    for v in verdicts:
        summary.total += 1
        summary.by_verdict[v.status.value] += 1
        summary.transparency.add(v)
    return summary.as_json()


def test_the_verify_summary_carries_them_next_to_by_verdict() -> None:
    summary = summary_of(MIXED)
    assert summary["by_verdict"]["verified"] == 4
    assert summary["by_verification_status"]["verified"] == 2
    assert sum(r["total"] for r in summary["by_tier"]) == summary["total"] == len(MIXED)


def test_the_line_people_read() -> None:
    line = summary_transparency_line(summary_of(MIXED))
    assert line == (
        "verified 2, partially verified 2, unverified 3 · by tier: tier 1 books 1 (verified 1); "
        "tier 2 scholarly 3 (metadata error 1, not found 1, verified 1); tier 4 web 1 (verified 1); "
        "tier 5 LLM 1 (verified 1); no tier 1 (out of scope 1)"
    )
    # A summary stored before the counts existed says nothing.
    assert summary_transparency_line({"by_verdict": {"verified": 1}}) is None
    assert summary_tier_rows({}) == []


def render(fmt: str, summary: dict[str, Any]) -> str:
    out = io.StringIO()
    sink = make_sink(fmt, out)
    sink.summary({"sources": {}, "logic_version": "x", "problems": [], **summary})
    return out.getvalue()


def test_the_formats_show_them() -> None:
    summary = summary_of(MIXED)
    page = render("html", summary)
    assert 'id="verification-counts"' in page and 'data-verification="partially_verified"' in page
    assert 'id="tier-counts"' in page
    assert (
        '<tr data-tier="5"><td>tier 5 LLM</td><td>1</td><td>verified 1</td><td>unverified 1</td></tr>' in page
    )
    assert '<tr data-tier="none"><td>no tier</td>' in page
    assert "tier 2 scholarly 3" in render("table", summary)
    assert "verification: verified 2, partially verified 2" in render("markdown", summary)
    sarif = json.loads(render("sarif", summary))["runs"][0]["properties"]
    assert sarif["by_tier"] == summary["by_tier"]
    assert sarif["by_verification_status"] == summary["by_verification_status"]
    assert (
        json.loads(render("json", summary).replace('{"references": [\n\n],\n', "{"))["summary"]["by_tier"]
        == summary["by_tier"]
    )
    old = render("html", {"total": 1, "by_verdict": {"verified": 1}})
    assert 'id="verification-counts"' not in old and 'id="tier-counts"' not in old


# --- the stored report.json of a job, and a sweep's summary -----------------------------------------


def _read(documents: Any, max_bytes: int, on_text: Any = None) -> Iterator[CitedReference | InputProblem]:
    for doc in documents:
        for line in doc.data.decode().splitlines():
            yield CitedReference(key=line, title=f"paper {line}")


async def _verify(cited: CitedReference) -> ReferenceOutcome:
    """`book` verified by Open Library, `web` unverifiable, anything else verified by Crossref."""
    if cited.key.startswith("book"):
        v = verdict(VerdictStatus.VERIFIED, SourceName.OPEN_LIBRARY)
    elif cited.key.startswith("web"):
        v = verdict(VerdictStatus.UNVERIFIABLE, reasons=(Reason.SOURCE_UNAVAILABLE,))
    else:
        v = verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF)
    return ReferenceOutcome(cited=cited, verdict=v, evidence=Evidence(), raw=[])


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServiceContext]:
    monkeypatch.setattr(bibliography_jobs, "read_references", _read)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
    context = ServiceContext(
        runtime=Runtime.open(settings), dispatcher=dispatcher, runner=service.LoopThread(), verifier=_verify
    )
    yield context
    context.close()


def test_the_stored_report_json_and_html_carry_them(ctx: ServiceContext) -> None:
    runtime, dispatcher = ctx.runtime, ctx.dispatcher
    assert isinstance(dispatcher, InlineDispatcher)
    job_id = service.submit_bibliography(
        runtime, dispatcher, [InputDocument(name="refs.txt", data=b"a\nbook1\nweb1\nb\n")]
    )
    dispatcher.drain(ctx)
    folder = runtime.settings.reports_path() / job_id
    written = json.loads((folder / "report.json").read_text())["summary"]
    assert written["by_verification_status"] == {"unverified": 1, "verified": 3}
    assert [(r["tier"], r["tier_name"], r["total"]) for r in written["by_tier"]] == [
        (1, "books", 1),
        (2, "scholarly", 2),
        (None, None, 1),
    ]
    page = (folder / "report.html").read_text()
    assert '<tr data-tier="1"><td>tier 1 books</td><td>1</td>' in page


def test_a_sweep_adds_its_repositories_counts(ctx: ServiceContext, tmp_path: Path) -> None:
    runtime, dispatcher = ctx.runtime, ctx.dispatcher
    assert isinstance(dispatcher, InlineDispatcher)
    repos = []
    for name, lines in (("repo-a", "a\nbook1\n"), ("repo-b", "web1\nb\nbook2\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "refs.bib").write_text(lines)
        repos.append(tmp_path / name)
    job_id = service.submit_sweep(runtime, dispatcher, repos)
    dispatcher.drain(ctx)
    summary = service.job_summary(runtime, job_id)
    assert summary["total"] == 5
    assert summary["by_verification_status"] == {"unverified": 1, "verified": 4}
    assert {r["tier"]: r["total"] for r in summary["by_tier"]} == {1: 2, 2: 2, None: 1}
