"""A job's report document by kind: the functions the registry (`jobs/kinds.py`) names for each
kind's summary, document, rendering and exit code, as `aletheia report` and the client use them.

The exit codes are `aletheia verify`'s (README): 0 nothing flagged, 1 something flagged, 2 input
problems and nothing flagged, 3 nothing flagged but something could not be checked.
"""

from __future__ import annotations

import json
from typing import IO, Any, TextIO, cast

from aletheia.core.verdicts import VerdictStatus
from aletheia.pipeline.jobs.rows import _job
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import Job

UNVERIFIABLE = VerdictStatus.UNVERIFIABLE.value


def stored_summary(runtime: Runtime, job: Job) -> dict[str, Any]:
    """A kind whose step stores its whole result as the job's summary (claims, claims texts)."""
    return dict(job.summary or {}) | {
        "job_id": job.id,
        "kind": job.kind,
        "status": job.status,
        "error": job.error,
    }


def summary_document(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The document of a kind whose report is its summary (claims, sweeps, audits)."""
    from aletheia.pipeline.jobs.reports import job_summary

    _job(runtime, job_id)
    return {"summary": job_summary(runtime, job_id)}


def render_json(document: dict[str, Any], fmt: str, stream: IO[str]) -> None:
    stream.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def render_references(document: dict[str, Any], fmt: str, stream: IO[str]) -> None:
    """A bibliography job's report in any of the sinks' formats (`report.make_sink`)."""
    from aletheia.pipeline.reports.formats import make_sink

    sink = make_sink(fmt, cast(TextIO, stream))
    for ref in document["references"]:
        sink.reference(ref)
    sink.summary(document["summary"])


def render_claims(document: dict[str, Any], fmt: str, stream: IO[str]) -> None:
    """A claims-text job's report: its JSON, or the HTML page `aletheia claims` writes."""
    if fmt == "html":
        from aletheia.pipeline.reports.claims_html import render_claims_html

        stream.write(render_claims_html(document))
    else:
        render_json(document, fmt, stream)


def bibliography_exit_code(summary: dict[str, Any]) -> int:
    from aletheia.pipeline.jobs.tally import summary_exit_code

    return summary_exit_code(summary)


def sweep_exit_code(summary: dict[str, Any]) -> int:
    """As a bibliography's over every repository's; a repository that could not be read is 2."""
    code = bibliography_exit_code(summary)
    audits = summary.get("audits") or []  # an audit's drift and link check (jobs/audit.py)
    if any(
        a.get("marked_retracted") or a.get("check_exit_code") or a.get("drift_exit_code") == 1 for a in audits
    ):
        return 1
    if code in (0, 3) and any(r.get("status") == "failed" for r in summary.get("repositories", [])):
        return 2
    return code


def claim_exit_code(summary: dict[str, Any]) -> int:
    """0 the claim is cited with proof; 1 it could not be (default-deny: no artifact)."""
    return 0 if summary.get("verified") else 1


def claims_text_exit_code(summary: dict[str, Any]) -> int:
    """The code `aletheia claims` gives for the same report (kept in its summary); 1 without one."""
    return int(summary.get("exit_code", 1))
