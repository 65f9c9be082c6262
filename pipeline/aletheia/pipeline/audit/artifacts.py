"""`aletheia check` and `aletheia audit`: the mechanical gate on citation links, and the drift audit.

`check_citations(root)` (seed 000's `check_citations.py`, tiers 2 and 3 of §8): no network, no
model. Every reference to `docs/citations/<slug>.md` in the repository's text files (a
`# see docs/citations/...` line under a `research:` comment, a Markdown footnote
`[^x]: See [docs/citations/...]`, any other mention) must name an artifact that exists, is not a
symlink, parses against the schema, was verified within `max_age_days` (365) and is not retracted.
A `research:` comment must be followed, within three lines, by such a link. Every artifact in
`docs/citations/` must parse, referenced or not. A line holding `aletheia-check: ignore` is skipped
(for documentation that shows example links), and so is syntax shown rather than used: a Markdown
code span or fenced block, a Python string literal (`citable_text.py`).

`audit_existing_citations(root, gateway)` (tier 4): re-asks the sources for every artifact's
identifiers and reports drift: a DOI now resolving to a different work, a retraction, a corrected
first author, a changed year or title, an identifier that no longer resolves. A disagreement a
human accepted when the artifact was written (`overridden_conflicts`, seed 000 §5.4) is listed as
accepted, with the reason, not as drift, for as long as the source says what was accepted.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from aletheia.core.artifact_overrides import accepted_override, overrides_of
from aletheia.core.artifacts import (
    ArtifactFormatError,
    CitationArtifact,
    parse_artifact,
    record_of_artifact,
    validate_slug,
)
from aletheia.core.identifiers import arxiv_id_from_doi
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.triangulate import triangulate
from aletheia.pipeline.audit.citable_text import citable_text
from aletheia.sources.base import SourceError, SourceRecord

__all__ = [
    "DEFAULT_MAX_AGE_DAYS",
    "ArtifactAudit",
    "AuditReport",
    "CheckReport",
    "CitationProblem",
    "Drift",
    "audit_existing_citations",
    "check_citations",
]

CITATIONS_DIR: Final = ("docs", "citations")
DEFAULT_MAX_AGE_DAYS: Final = 365
MAX_FILE_BYTES: Final = 2 * 1024 * 1024  # larger files are data, not source code
SKIPPED_DIRS: Final = frozenset(
    {"node_modules", "__pycache__", "venv", "site-packages", "build", "dist", "target", "htmlcov"}
)
IGNORE_MARKER: Final = "aletheia-check: ignore"
_REFERENCE: Final = re.compile(r"docs/citations/([A-Za-z0-9._-]+)\.md\b")
_RESEARCH_COMMENT: Final = re.compile(
    r"(?:#|//|--|/\*|^\s*\*|<!--)\s*research(?:\([^)\n]{0,40}\))?:", re.MULTILINE
)
_RESEARCH_WINDOW: Final = 3  # lines after a research comment in which its link must appear
_QUICK_FILTER: Final = (b"docs/citations/", b"research")

ProblemKind = Literal[
    "missing", "symlink", "invalid", "stale", "retracted", "bad_slug", "unlinked_research_comment"
]


@dataclass(frozen=True)
class CitationProblem:
    path: str  # the file holding the reference (or the artifact itself), relative to the root
    line: int | None
    kind: ProblemKind
    message: str
    artifact: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class CheckReport:
    root: str
    files_scanned: int = 0
    references: int = 0
    artifacts_checked: int = 0
    problems: list[CitationProblem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def exit_code(self) -> int:
        """0: every link resolves to a valid, fresh artifact; 1: at least one problem."""
        return 0 if self.ok else 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "ok": self.ok,
            "files_scanned": self.files_scanned,
            "references": self.references,
            "artifacts_checked": self.artifacts_checked,
            "seconds": round(self.seconds, 4),
            "problems": [problem.__dict__ for problem in self.problems],
        }


def _walk(root: Path, exclude: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(absolute path, root-relative POSIX path) of every regular file, hidden and vendored
    directories skipped, symlinks not followed."""
    stack = [root]
    root_text = str(root)
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            relative = entry.path[len(root_text) + 1 :].replace(os.sep, "/")
            if any(fnmatch(relative, pattern) for pattern in exclude):
                continue
            if entry.is_dir(follow_symlinks=False):
                if not name.startswith(".") and name not in SKIPPED_DIRS:
                    stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                yield entry.path, relative


def _read_candidate(path: str) -> str | None:
    """The file's text when it may hold a reference; None for large, binary or irrelevant files."""
    try:
        with open(path, "rb") as handle:  # noqa: PTH123 - os-level speed matters on 10,000 files
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES or not any(marker in data for marker in _QUICK_FILTER):
        return None
    if b"\x00" in data[:1024]:
        return None
    return data.decode("utf-8", errors="replace")


@dataclass
class _ArtifactVerdict:
    problems: list[tuple[ProblemKind, str]]


def _judge_artifact(path: Path, now: datetime, max_age: timedelta) -> _ArtifactVerdict:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return _ArtifactVerdict([("missing", "no such artifact")])
    except OSError as exc:
        return _ArtifactVerdict([("missing", f"cannot be read: {exc}")])
    if stat.S_ISLNK(mode):
        return _ArtifactVerdict([("symlink", "the artifact is a symbolic link")])
    if not stat.S_ISREG(mode):
        return _ArtifactVerdict([("invalid", "the artifact is not a regular file")])
    try:
        artifact = parse_artifact(path.read_text(encoding="utf-8"))
    except (ArtifactFormatError, UnicodeDecodeError, OSError) as exc:
        return _ArtifactVerdict([("invalid", str(exc))])
    return _ArtifactVerdict(_freshness(artifact, now, max_age))


def _freshness(
    artifact: CitationArtifact, now: datetime, max_age: timedelta
) -> list[tuple[ProblemKind, str]]:
    problems: list[tuple[ProblemKind, str]] = []
    front = artifact.frontmatter
    age = now - front.verified_at
    if age > max_age:
        problems.append(
            (
                "stale",
                f"verified {age.days} days ago ({front.verified_at:%Y-%m-%d}); the limit is {max_age.days}",
            )
        )
    if front.retraction_status in (RetractionKind.RETRACTED, RetractionKind.WITHDRAWN):
        problems.append(("retracted", f"the cited work is {front.retraction_status.value}"))
    return problems


def check_citations(
    root: Path | str,
    *,
    now: datetime | None = None,
    max_age_days: int = DEFAULT_MAX_AGE_DAYS,
    exclude: Sequence[str] = (),
) -> CheckReport:
    """Check every citation link under `root` (see the module docstring). Pure file reading."""
    started = time.perf_counter()
    base = Path(root).resolve()
    now = now or datetime.now(UTC)
    max_age = timedelta(days=max_age_days)
    report = CheckReport(root=str(base))
    citations = base.joinpath(*CITATIONS_DIR)
    verdicts: dict[str, _ArtifactVerdict] = {}

    def verdict_for(slug: str) -> _ArtifactVerdict:
        if slug not in verdicts:
            verdicts[slug] = _judge_artifact(citations / f"{slug}.md", now, max_age)
        return verdicts[slug]

    citations_prefix = "/".join(CITATIONS_DIR) + "/"
    for absolute, relative in _walk(base, exclude):
        report.files_scanned += 1
        if relative.startswith(citations_prefix):
            continue  # the artifacts themselves are checked below
        text = _read_candidate(absolute)
        if text is None:
            continue
        _check_file(relative, text, report, verdict_for)

    if citations.is_dir() and not citations.is_symlink():
        for entry in sorted(os.scandir(citations), key=lambda e: e.name):
            if (
                not entry.name.endswith(".md")
                or entry.name.startswith(".")
                or entry.name.lower() == "readme.md"
            ):
                continue
            slug = entry.name[: -len(".md")]
            relative = f"{citations_prefix}{entry.name}"
            try:
                validate_slug(slug)
            except ValueError as exc:
                report.problems.append(CitationProblem(relative, None, "bad_slug", str(exc), slug))
                continue
            for kind, message in verdict_for(slug).problems:
                if kind != "stale" and kind != "retracted":  # reported where the artifact is cited
                    report.problems.append(CitationProblem(relative, None, kind, message, slug))
    report.artifacts_checked = len(verdicts)
    report.seconds = time.perf_counter() - started
    return report


def _check_file(
    relative: str, text: str, report: CheckReport, verdict_for: Callable[[str], _ArtifactVerdict]
) -> None:
    if not _REFERENCE.search(text) and not _RESEARCH_COMMENT.search(text):
        return  # nothing that looks like a link or a comment: no need to find the prose
    original = text.splitlines()
    text = citable_text(relative, text)  # prose and comments: never a code span or a string
    lines = text.splitlines()
    linked_lines: set[int] = set()
    for number, line in enumerate(lines, start=1):
        if "docs/citations/" not in line or IGNORE_MARKER in original[number - 1]:
            continue
        for match in _REFERENCE.finditer(line):
            slug = match.group(1)
            report.references += 1
            linked_lines.add(number)
            try:
                validate_slug(slug)
            except ValueError as exc:
                report.problems.append(CitationProblem(relative, number, "bad_slug", str(exc), slug))
                continue
            for kind, message in verdict_for(slug).problems:
                report.problems.append(
                    CitationProblem(relative, number, kind, f"docs/citations/{slug}.md: {message}", slug)
                )
    if "research" not in text:
        return
    for match in _RESEARCH_COMMENT.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        if IGNORE_MARKER in original[number - 1]:
            continue
        if not any(n in linked_lines for n in range(number, number + _RESEARCH_WINDOW + 1)):
            report.problems.append(
                CitationProblem(
                    relative,
                    number,
                    "unlinked_research_comment",
                    "a research: comment needs a 'see docs/citations/<slug>.md' link within 3 lines",
                )
            )


# --- the audit --------------------------------------------------------------------------------------

DriftKind = Literal[
    "doi_resolves_elsewhere",
    "retracted",
    "first_author_changed",
    "year_changed",
    "title_changed",
    "identifier_changed",
    "identifier_not_found",
    "unreachable",
    "unreadable",
]


class Drift(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: DriftKind
    source: str | None = None
    recorded: str | None = None
    current: str | None = None
    detail: str


class ArtifactAudit(BaseModel):
    path: str
    slug: str
    drifts: list[Drift] = []
    # Disagreements a human override accepted when the artifact was written: not drift.
    accepted: list[Drift] = []
    sources_checked: list[str] = []

    @property
    def drifted(self) -> bool:
        return any(d.kind not in ("unreachable",) for d in self.drifts)


class AuditReport(BaseModel):
    root: str
    artifacts: list[ArtifactAudit] = []

    @property
    def drifted(self) -> list[ArtifactAudit]:
        return [a for a in self.artifacts if a.drifted]

    @property
    def unreachable(self) -> list[ArtifactAudit]:
        return [a for a in self.artifacts if any(d.kind == "unreachable" for d in a.drifts)]

    def exit_code(self) -> int:
        """0: no drift; 1: drift in at least one artifact; 3: none, but some could not be checked."""
        if self.drifted:
            return 1
        return 3 if self.unreachable else 0


Lookup = tuple[SourceName, str, Callable[[], Awaitable[Any]]]


def _audit_lookups(gateway: Any, recorded: WorkRecord) -> list[Lookup]:
    lookups: list[Lookup] = []
    doi = recorded.doi if recorded.doi and arxiv_id_from_doi(recorded.doi) is None else None
    if doi:
        lookups.append((SourceName.OPENALEX, "doi", lambda: gateway.openalex.work_by_doi(doi)))
        lookups.append((SourceName.CROSSREF, "doi", lambda: gateway.crossref.work_by_doi(doi)))
    if recorded.arxiv_id:
        arxiv = recorded.arxiv_id
        lookups.append((SourceName.ARXIV, "arxiv_id", lambda: gateway.arxiv.by_id(arxiv)))
    if recorded.pmid:
        pmid = recorded.pmid
        lookups.append((SourceName.PUBMED, "pmid", lambda: gateway.pubmed.by_pmid(pmid)))
    return lookups


_FIELD_DRIFT: Final[dict[str, DriftKind]] = {
    "first_author_surname": "first_author_changed",
    "year": "year_changed",
    "title": "title_changed",
    "doi": "identifier_changed",
    "arxiv_id": "identifier_changed",
}


async def _audit_one(
    gateway: Any, path: Path, relative: str, learnt: list[SourceRecord] | None = None
) -> ArtifactAudit:
    slug = path.name[: -len(".md")]
    audit = ArtifactAudit(path=relative, slug=slug)
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        artifact = parse_artifact(text)
    except (ArtifactFormatError, UnicodeDecodeError, OSError) as exc:
        audit.drifts.append(Drift(kind="unreadable", detail=str(exc)))
        return audit
    recorded = record_of_artifact(artifact)
    overrides = overrides_of(artifact.frontmatter)
    reason = artifact.frontmatter.override_reason
    found_records: list[WorkRecord] = []
    seen: set[tuple[str, str | None]] = set()

    def add(drift: Drift) -> None:
        if (drift.kind, drift.current) not in seen:
            seen.add((drift.kind, drift.current))
            audit.drifts.append(drift)

    for source, by, lookup in _audit_lookups(gateway, recorded):
        try:
            found = await lookup()
        except SourceError as exc:
            add(Drift(kind="unreachable", source=source.value, detail=str(exc)))
            continue
        audit.sources_checked.append(source.value)
        if found is None:
            add(
                Drift(
                    kind="identifier_not_found",
                    source=source.value,
                    detail=f"{source.value} no longer knows the {by}",
                )
            )
            continue
        fresh = found.record
        found_records.append(fresh)
        if learnt is not None:
            learnt.append(found)
        result = triangulate(recorded, fresh)
        for conflict in result.conflicts:
            kind = _FIELD_DRIFT.get(conflict.field, "identifier_changed")
            if by == "doi" and conflict.field == "title":
                kind = "doi_resolves_elsewhere"
            drift = Drift(
                kind=kind,
                source=source.value,
                recorded=conflict.primary_value,
                current=conflict.secondary_value,
                detail=f"{conflict.field}: artifact says {conflict.primary_value!r},"
                f" {source.value} now says {conflict.secondary_value!r}",
            )
            if accepted_override(conflict.field, conflict.primary_value, conflict.secondary_value, overrides):
                audit.accepted.append(
                    drift.model_copy(update={"detail": f"{drift.detail} (accepted by override: {reason})"})
                )
            else:
                add(drift)
    notices = [notice for record in found_records for notice in record.retraction_notices]
    lookup_notices = getattr(gateway, "retraction_notices", None)
    if lookup_notices is not None:
        notices.extend(
            lookup_notices(CitedReference(key=slug, doi=recorded.doi, pmid=recorded.pmid), found_records)
        )
    status = combine_retraction_status(notices)
    if status.flagged and status.kind != artifact.frontmatter.retraction_status:
        notice = status.notice
        add(
            Drift(
                kind="retracted",
                source=",".join(s.value for s in status.sources) or None,
                recorded=(artifact.frontmatter.retraction_status or RetractionKind.NONE).value,
                current=status.kind.value,
                detail=f"the work is now {status.kind.value}"
                + (f" (notice {notice.notice_doi})" if notice and notice.notice_doi else ""),
            )
        )
    return audit


def _artifact_files(root: Path) -> tuple[Path, list[Path]]:
    base = root.resolve()
    citations = base.joinpath(*CITATIONS_DIR)
    if not citations.is_dir() or citations.is_symlink():
        return base, []
    found = [p for p in citations.iterdir() if p.suffix == ".md" and not p.name.startswith(".")]
    return base, sorted(p for p in found if not p.is_symlink())


async def audit_existing_citations(
    root: Path | str, gateway: Any, *, concurrency: int = 4, learnt: list[SourceRecord] | None = None
) -> AuditReport:
    """Re-check every artifact in `root/docs/citations/` against the sources (see the module
    docstring). The weekly beat task calls this with the worker's gateway; every record the
    sources gave is appended to `learnt` (the audit keeps them in the Tier-0 library)."""
    base, paths = await asyncio.to_thread(_artifact_files, Path(root))
    report = AuditReport(root=str(base))
    gate = asyncio.Semaphore(concurrency)

    async def one(path: Path) -> ArtifactAudit:
        async with gate:
            return await _audit_one(gateway, path, "/".join(CITATIONS_DIR) + "/" + path.name, learnt)

    report.artifacts = list(await asyncio.gather(*(one(p) for p in paths)))
    return report
