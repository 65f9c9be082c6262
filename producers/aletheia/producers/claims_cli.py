"""`aletheia cite`, `aletheia check` and `aletheia audit`: claims and their citation artifacts."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from aletheia.producers import exits


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.command()
@click.argument("claim")
@click.option(
    "--hint", help="Author, year, venue or identifier of the paper you have in mind: a search hint only."
)
@click.option(
    "--paper",
    help="A DOI, arXiv id or PMID: judge this paper for the claim and never substitute another.",
)
@click.option(
    "--project-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="Where docs/citations/ is (the artifact is written there).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--override-reason",
    help="Accept a triangulation conflict and record this reason in the artifact (human_overridden).",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    help="With a broker: give up waiting for the job after this many seconds (exit 124).",
)
def cite(
    claim: str,
    hint: str | None,
    paper: str | None,
    project_root: Path,
    fmt: str,
    override_reason: str | None,
    timeout: float | None,
) -> None:
    """Find a paper that supports CLAIM (or judge the one --paper names), prove it with verbatim
    excerpts that the judge found to support it and none contradicting it, write the artifact.

    It runs as a claim job, like `aletheia submit --claim`: in this process on the embedded
    default, on the worker pools when ALETHEIA_BROKER_URL is set. The job id goes to stderr
    (`job: ID`; `aletheia replay ID`, `aletheia audit-log show ID`).

    Exit codes: 0 a citation and its artifact; 1 refused (the report says why, e.g. the excerpt
    that contradicts the claim); 2 usage error, offline (it needs the network), or the job failed
    (the error is printed); 4 the sources or the model could not be reached (an outage: nothing
    was decided; one line on stderr); 124 timed out waiting for the queue; 130 interrupted.
    """
    from aletheia.producers.client import AletheiaClient, JobTimeout

    if not project_root.is_dir():
        click.echo(f"aletheia: project root {project_root} is not a directory", err=True)
        sys.exit(exits.USAGE)
    from aletheia.config import get_settings

    if get_settings().offline:  # one line, not a "turned off" error per source (issue 20)
        click.echo("aletheia cite: needs the network (offline): a claim is proven from the sources", err=True)
        sys.exit(exits.USAGE)
    client = AletheiaClient()
    try:
        job_id = client.submit_claim(
            claim, hint=hint, paper=paper, into=project_root, override_reason=override_reason
        )
    except ValueError as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.USAGE)
    click.echo(f"job: {job_id}", err=True)
    try:
        final = client.wait(job_id, timeout=timeout)
    except JobTimeout as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.TIMED_OUT)
    summary = client.result(job_id)["summary"]
    if final["status"] != "done" or "verified" not in summary:
        click.echo(f"aletheia: {final.get('error') or 'the claim job did not finish'}", err=True)
        sys.exit(exits.USAGE)
    _print_claim_outcome(summary, fmt, job_id)


def _print_claim_outcome(summary: dict[str, Any], fmt: str, job_id: str) -> None:
    """A claim job's result as `aletheia cite` prints it, rebuilt from the job's summary."""
    from pydantic import TypeAdapter

    from aletheia.pipeline.claims.model import Citation, ConflictReport
    from aletheia.pipeline.claims.verify_and_cite import citation_transparency

    if summary["verified"]:
        citation = Citation.model_validate(summary["citation"])
        path = summary["artifact"]
        if fmt == "json":
            _emit_json(
                {
                    "ok": True,
                    "citation": citation.text,
                    "artifact": path,
                    "bibtex": citation.bibtex,
                    "single_source_verified": citation.single_source_verified,
                    "text_excerpts_unavailable": citation.text_excerpts_unavailable,
                    "human_overridden": citation.human_overridden,
                    "override_reason": summary.get("override_reason"),
                    "excerpts": list(citation.excerpts),
                    "judge": citation.judge,
                    **citation_transparency(citation).as_json(),
                    "job_id": job_id,
                }
            )
        else:
            click.echo(citation.text)
            click.echo(f"artifact: {path}")
            for excerpt in citation.excerpts:
                where = f"{excerpt['location']}; judge {citation.judge}"
                click.echo(f'supported by: "{excerpt["text"]}" ({where})')
            from aletheia.pipeline.reports.transparency import transparency_phrase

            click.echo(f"verification: {transparency_phrase(citation_transparency(citation).as_json())}")
            if citation.human_overridden:
                click.echo(f"note: human override: {summary.get('override_reason')}")
            if citation.single_source_verified:
                click.echo("note: single-source verified (no second source knew this work)")
            if citation.text_excerpts_unavailable:
                click.echo("note: full text unavailable; the excerpts are the abstract's own sentences")
        sys.exit(exits.OK)
    report: Any = TypeAdapter(ConflictReport).validate_python(summary["conflict"])
    if fmt == "json":
        _emit_json({"ok": False, **report.model_dump(mode="json"), "job_id": job_id})
    if report.kind == "RetriesExhausted":
        # An outage decides nothing about the claim: not a refusal (exit 1), one line of its own.
        click.echo(
            f"aletheia cite: could not reach the sources: {_outage_line(report.error)}; nothing "
            "was decided about the claim, try again when they answer",
            err=True,
        )
        sys.exit(exits.SOURCES_UNREACHABLE)
    if fmt != "json":
        click.echo(f"refused: {report.kind}: {report.detail}")
        for name, value in report.model_dump(mode="json", exclude={"kind", "detail", "claim"}).items():
            if value not in (None, [], (), {}):
                click.echo(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    sys.exit(exits.FLAGGED)


_REQUEST = re.compile(r"\s*(?:GET|POST)\s+\S+:\s*")


def _outage_line(error: str) -> str:
    """A source client's error (`name: name: GET url: ConnectError: ...; other: ...`) as one short
    phrase: the sources that failed and the first failure, without the URLs."""
    names: list[str] = []
    reason = ""
    for part in error.split("; "):
        name = part.split(":", 1)[0].strip()
        if name and name not in names:
            names.append(name)
        if not reason:
            found = _REQUEST.split(part, maxsplit=1)
            reason = found[1].strip() if len(found) > 1 else part.split(": ")[-1].strip()
    return f"{', '.join(names)} ({reason})" if reason else ", ".join(names)


@click.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path())
@click.option("--max-age-days", type=click.IntRange(1), default=365, show_default=True)
@click.option("--exclude", multiple=True, help="Glob of root-relative paths to skip (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(path: Path, max_age_days: int, exclude: tuple[str, ...], fmt: str) -> None:
    """Every citation link under PATH resolves to a valid artifact verified within MAX_AGE_DAYS.

    No network, no model: fit for pre-commit and CI. Exit codes: 0 all good; 1 problems found.
    """
    from aletheia.pipeline.artifact_checks.link_check import check_citations

    report = check_citations(path, max_age_days=max_age_days, exclude=exclude)
    if fmt == "json":
        _emit_json(report.as_dict())
    else:
        for problem in report.problems:
            click.echo(str(problem))
        status = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        click.echo(
            f"aletheia check: {status}; {report.references} link(s) to {report.artifacts_checked} artifact(s)"
            f" in {report.files_scanned} files ({report.seconds:.2f} s)",
            err=not report.ok,
        )
    sys.exit(report.exit_code())


@click.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def audit(path: Path, fmt: str) -> None:
    """Re-check every artifact's identity against the sources and report drift.

    Exit codes: 0 no drift; 1 drift found; 3 no drift found but some sources could not be asked.
    """
    from aletheia.pipeline.artifact_checks.drift_check import audit_existing_citations
    from aletheia.pipeline.runtime import Runtime

    async def run() -> Any:
        runtime = Runtime.open()
        async with runtime.gateway() as gateway:
            return await audit_existing_citations(path, gateway)

    report = asyncio.run(run())
    if fmt == "json":
        _emit_json({**report.model_dump(mode="json"), "exit_code": report.exit_code()})
    else:
        for item in report.artifacts:
            if not item.drifts:
                click.echo(f"{item.path}: ok ({', '.join(item.sources_checked) or 'no source'})")
            for drift in item.drifts:
                click.echo(f"{item.path}: {drift.kind}: {drift.detail}")
            for accepted in item.accepted:
                click.echo(f"{item.path}: accepted: {accepted.detail}")
        click.echo(f"aletheia audit: {len(report.artifacts)} artifact(s), {len(report.drifted)} drifted")
    sys.exit(report.exit_code())


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the CSL-JSON here (atomically) instead of to standard output.",
)
def csl(paths: tuple[Path, ...], output: Path | None) -> None:
    """The citation artifacts as CSL-JSON (Zotero, pandoc --citeproc), one item per artifact.

    PATHS are artifact files or folders (a repository: its docs/citations/*.md; default .). Each
    item is keyed by the artifact's slug and notes how it was verified. Exit codes: 0 every
    artifact exported; 1 some could not be read (named on stderr; the others are exported).
    """
    from aletheia.pipeline.atomic_files import write_atomically
    from aletheia.pipeline.reports.artifact_csl import export_artifacts

    export = export_artifacts(list(paths) or [Path()])
    text = json.dumps(export.items, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomically(output, text.encode("utf-8"), prefix=f".{output.name}.")
    for problem in export.problems:
        click.echo(f"aletheia csl: unreadable artifact: {problem}", err=True)
    sys.exit(exits.FLAGGED if export.problems else exits.OK)


@click.command("web-claim")
@click.argument("claim")
@click.option("--url", "urls", multiple=True, help="A page the claim is about (repeatable, at most 3).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def web_claim(claim: str, urls: tuple[str, ...], fmt: str) -> None:
    """Check CLAIM (about an RFC, a standard, software docs) against the page itself: the --url
    pages, else those a web search finds (seed 001's verify_claim_with_search). Fetched through the
    SSRF-safe web tier, judged like a paper, every excerpt the page's own words.

    Exit codes: 0 supported; 1 contradicted or not supported; 2 usage error or offline; 3 no page
    could be read or found.
    """
    from aletheia.config import get_settings
    from aletheia.pipeline.claims.web_claims import MAX_PAGES, verify_claim_on_the_web

    if len(urls) > MAX_PAGES or any(not u.startswith(("http://", "https://")) for u in urls):
        click.echo(f"aletheia web-claim: --url takes at most {MAX_PAGES} http(s) URLs", err=True)
        sys.exit(exits.USAGE)
    if get_settings().offline:
        click.echo("aletheia web-claim: needs the network (offline)", err=True)
        sys.exit(exits.USAGE)
    result = asyncio.run(verify_claim_on_the_web(claim, urls))
    if fmt == "json":
        _emit_json(result.as_json())
    else:
        click.echo(f"{result.verdict}: {result.url or ''}".rstrip(": "))
        for excerpt in result.excerpts:
            click.echo(f'  "{excerpt["text"]}" ({excerpt["location"]}; judge {result.judge})')
        if result.why:
            click.echo(f"  why: {result.why}")
        for page in result.pages:
            if not page.get("read"):
                click.echo(f"  not read: {page['url']}: {page.get('why')}")
    sys.exit(result.exit_code())
