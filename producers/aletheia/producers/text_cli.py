"""`aletheia claims FILE` (a research text's claims and their citations) and `aletheia fix FILE.bib`
(values the sources contradict replaced, span by span)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from aletheia.producers import exits


def _emit(data: Any, out: Any) -> None:
    out.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def _excerpt_line(label: str, excerpt: dict[str, Any] | None) -> str:
    if not excerpt:
        return ""
    where = f" ({excerpt['location']})" if excerpt.get("location") else ""
    why = f"\n        why: {excerpt['why']}" if excerpt.get("why") else ""
    return f'      {label}: "{excerpt["text"]}"{where}{why}\n'


def _judgement_text(judgement: dict[str, Any] | None, out: Any) -> None:
    """The cited paper's answer: the status, the paper, the deciding (or closest) excerpt verbatim
    with its location, and why."""
    if not judgement:
        return
    if judgement["status"] == "not_judged":
        out.write(f"    not judged: {judgement.get('detail') or ''}\n")
        return
    judge = f", {judgement['judge']}" if judgement.get("judge") else ""
    paper = f" against {judgement['paper']}" if judgement.get("paper") else ""
    out.write(f"    judged {judgement['status']}{paper}{judge}: {judgement.get('detail') or ''}\n")
    label = "excerpt" if judgement["status"] in ("contradicted", "supported") else "closest"
    out.write(_excerpt_line(label, judgement.get("excerpt") or judgement.get("closest")))


def _claims_text(report: dict[str, Any], out: Any) -> None:
    bibliography = report.get("bibliography") or {}
    origins = "; ".join(bibliography.get("origins") or []) or "no bibliography"
    if bibliography.get("found_by") == "beside":  # not named by anyone: say where it came from
        origins += " (found beside the document, which has no reference list of its own)"
    out.write(f"aletheia claims: citations resolved against {origins}\n")
    for claim in report["claims"]:
        # A verified claim is shown when its paper was read: the excerpt that bears it out is the proof.
        judged = (claim.get("judgement") or {}).get("status")
        if claim["status"] == "own_work" or (claim["status"] == "verified" and judged != "supported"):
            continue
        out.write(f"{report['document']}:{claim['line']}: {claim['status']}: {claim['sentence']}\n")
        for c in claim["citations"]:
            state = c.get("verdict") or c.get("unresolved_reason") or "not checked"
            out.write(f"    {c['key']}: {state}\n")
        _judgement_text(claim.get("judgement"), out)
        suggestion = claim.get("suggestion")
        if suggestion:
            if suggestion.get("verified"):
                out.write(f"    suggested (verified): {suggestion['citation']} [{suggestion['artifact']}]\n")
            else:
                out.write(f"    {suggestion.get('result')}: {suggestion.get('detail') or ''}\n")
    s = report["summary"]
    judged = f"{json.dumps(s.get('judged', {}))} ({s.get('judgements_checked', 0)} sentence-paper pair(s))"
    out.write(
        f"aletheia claims: {s['claims']} claim(s), {s['needs_citation']} need a citation, "
        f"{s['unsupported']} unsupported, {s['citations_checked']} citation(s) checked "
        f"{json.dumps(s['citations_by_verdict'])}, cited claims by judgement {judged}, "
        f"{s['suggestions_verified']} verified suggestion(s)\n"
    )


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--bib",
    "bibs",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The bibliography (repeatable). Default: the files the document names, else the document's "
    "own reference list, else FILE's stem .bib or the only .bib beside it (named in the report).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "html"]),
    default=None,
    help="Default: text on a terminal, json otherwise.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
@click.option("--no-check", is_flag=True, help="Do not verify the citations (find and resolve only).")
@click.option("--no-suggest", is_flag=True, help="Do not search for citations for unsupported claims.")
@click.option("--max-suggestions", type=click.IntRange(0), default=20, show_default=True)
@click.option(
    "--max-judgements",
    type=click.IntRange(0),
    default=50,
    show_default=True,
    help="Judge at most this many (sentence, cited paper) pairs; the rest are reported unchecked.",
)
@click.option(
    "--project-root",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where docs/citations/ receives the suggestions' artifacts (default: the job's report folder).",
)
@click.option("--offline", is_flag=True, help="Consult only the local library (no network).")
def claims(
    file: Path,
    bibs: tuple[Path, ...],
    fmt: str | None,
    output: Path | None,
    no_check: bool,
    no_suggest: bool,
    max_suggestions: int,
    max_judgements: int,
    project_root: Path | None,
    offline: bool,
) -> None:
    """Find the claims in FILE (Markdown, LaTeX, plain text, PDF, Word .docx) that need a citation, check the
    citations they carry, judge every cited sentence against the paper it cites (supported,
    contradicted, unsupported: with the excerpt) and suggest a verified citation for the claims
    that have none.

    Exit codes: 0 every claim that needs a citation has one, all verified and none contradicted or
    unsupported by its paper; 1 an unsupported claim, a citation not in the bibliography, a flagged
    citation, or a cited sentence its paper contradicts or does not support; 2 usage or input
    error; 3 nothing flagged but some citations or judgements could not be made.
    """
    from aletheia.config import get_settings
    from aletheia.pipeline.jobs.claims_text import claims_report
    from aletheia.pipeline.runtime import Runtime

    settings = get_settings()
    if offline:
        settings = settings.model_copy(update={"offline": True})
    _check_claims_usage(settings.offline and not (no_check and no_suggest), output)
    runtime = Runtime.open(settings)
    job_id = _run_claims_job(
        runtime,
        file,
        bibs,
        suggest=not no_suggest,
        check=not no_check,
        max_suggestions=max_suggestions,
        max_judgements=max_judgements,
        repository=project_root,
    )
    report = claims_report(runtime, job_id)
    if report["status"] != "done":
        click.echo(f"aletheia: {report.get('error') or 'the claims job did not finish'}", err=True)
        sys.exit(exits.USAGE)
    _write_claims_report(report, fmt, output)
    sys.exit(report["summary"]["exit_code"])


def _run_claims_job(
    runtime: Any,
    file: Path,
    bibs: tuple[Path, ...],
    *,
    suggest: bool,
    check: bool,
    max_suggestions: int,
    max_judgements: int,
    repository: Path | None,
) -> str:
    """The claims-text job of FILE run in this process (its bibliographies: those given, else those
    it names, else those beside it); exit 2 on an input error."""
    from aletheia.pipeline.claims.research_document import discover_bibliographies
    from aletheia.pipeline.jobs.claims_text import submit_claims_text
    from aletheia.pipeline.jobs.submission import InputDocument
    from aletheia.pipeline.service import InlineDispatcher, LoopThread, ServiceContext

    data = file.read_bytes()
    found = discover_bibliographies(file, data.decode("utf-8", errors="replace"))
    inline = InlineDispatcher()
    ctx = ServiceContext(runtime=runtime, dispatcher=inline, runner=LoopThread(), defer_tokens=False)
    try:
        job_id = submit_claims_text(
            runtime,
            inline,
            InputDocument(name=str(file), data=data),
            [InputDocument.read(p) for p in (bibs or found.named)],
            beside=[] if bibs else [InputDocument.read(p) for p in found.beside],
            suggest=suggest,
            check=check,
            max_suggestions=max_suggestions,
            max_judgements=max_judgements,
            repository=repository,
        )
        inline.drain(ctx)
    except ValueError as exc:
        click.echo(f"aletheia: input error: {exc}", err=True)
        sys.exit(exits.USAGE)
    finally:
        ctx.close()
    return job_id


def _check_claims_usage(needs_network_offline: bool, output: Path | None) -> None:
    """Exit 2 before the run when it would need the network offline, or `output` cannot be written."""
    if needs_network_offline:
        # One line, not a "turned off" error per source and claim (issue 20).
        click.echo(
            "aletheia claims: needs the network (offline): checking citations and suggesting new ones "
            "ask the sources; --no-check --no-suggest finds and resolves the claims without them",
            err=True,
        )
        sys.exit(exits.USAGE)
    if output is not None:
        from aletheia.producers.report_output import OutputError, check_output

        try:  # before the run: a missing folder is one line, never a traceback after the work
            check_output(output)
        except OutputError as exc:
            click.echo(f"aletheia: {exc}", err=True)
            sys.exit(exits.USAGE)


def _write_claims_report(report: dict[str, Any], fmt: str | None, output: Path | None) -> None:
    """The claims report as JSON, HTML or text (text on a terminal, JSON otherwise), to `output` or stdout."""
    from aletheia.pipeline.reports.claims_html import render_claims_html

    out = output.open("w", encoding="utf-8") if output else sys.stdout
    chosen = fmt or ("text" if out.isatty() else "json")
    try:
        if chosen == "json":
            _emit(report, out)
        elif chosen == "html":
            out.write(render_claims_html(report))
        else:
            _claims_text(report, out)
    finally:
        if output:
            out.close()


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="The fixed file.")
@click.option("--in-place", is_flag=True, help="Overwrite FILE (refused otherwise).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--offline", is_flag=True, help="Consult only the local library (no network).")
def fix(file: Path, output: Path | None, in_place: bool, fmt: str, offline: bool) -> None:
    """Verify FILE.bib and write it with the author lists, titles and years the sources contradict
    replaced by the sources' values; everything else is kept byte for byte. References that could
    not be verified get a `% aletheia:` comment line above them.

    Exit codes: 0 nothing to fix; 1 values replaced or references marked as not verified; 2 usage
    or input error (an output that would overwrite FILE without --in-place); 3 only references
    that could not be checked were marked.
    """
    from aletheia.config import get_settings
    from aletheia.pipeline.fix import fix_bibtex_text
    from aletheia.pipeline.reports.bib_fix import decode, write_atomically
    from aletheia.pipeline.runtime import Runtime

    if output is None and not in_place:
        raise click.UsageError("give -o FIXED.bib, or --in-place to overwrite FILE")
    target = file if in_place else output
    assert target is not None
    if not in_place and target.resolve() == file.resolve():
        click.echo(f"aletheia: refusing to overwrite {file} without --in-place", err=True)
        sys.exit(exits.USAGE)
    settings = get_settings()
    if offline:
        settings = settings.model_copy(update={"offline": True})
    text, encoding = decode(file.read_bytes())
    from aletheia.core.bibliography import InputFormat, detect_format

    if text.strip() and detect_format(text, str(file)) is not InputFormat.BIBTEX:
        click.echo(f"aletheia: {file} is not a BibTeX file (fix edits BibTeX only)", err=True)
        sys.exit(exits.USAGE)
    plan, report = fix_bibtex_text(Runtime.open(settings), text, origin=str(file))
    write_atomically(target, plan.fixed_text(), encoding)
    report["output"] = str(target)
    if fmt == "json":
        _emit(report, sys.stdout)
    else:
        for c in plan.changes:
            click.echo(
                f"{file}:{c.line}: {c.key}: {c.field} changed: {c.cited!r} -> {c.new!r} "
                f"(source: {c.source}, similarity: {c.similarity})"
            )
        for m in plan.marks:
            click.echo(f"{file}:{m.line}: {m.key}: marked: {m.comment}")
        for n in plan.not_applied:
            click.echo(f"{file}:{n.line}: {n.key}: {n.field} not changed: {n.why}")
        click.echo(
            f"aletheia fix: {plan.references} reference(s), {len(plan.changes)} value(s) replaced, "
            f"{len(plan.marks)} marked; written to {target}"
        )
    sys.exit(plan.exit_code())
