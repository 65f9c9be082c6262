"""`aletheia check`: the mechanical gate on citation links.

`check_citations(root)` (seed 000's `check_citations.py`, tiers 2 and 3 of §8): no network, no
model. Every reference to `docs/citations/<slug>.md` in the repository's text files (a
`# see docs/citations/...` line under a `research:` comment, a Markdown footnote
`[^x]: See [docs/citations/...]`, any other mention) must name an artifact that exists, is not a
symlink, parses against the schema, was verified within `max_age_days` (365) and is not retracted.
A `research:` comment must be followed, within three lines, by such a link. Every artifact in
`docs/citations/` must parse, referenced or not. A line holding `aletheia-check: ignore` is skipped
(for documentation that shows example links), and so is syntax shown rather than used: a Markdown
code span or fenced block, a Python string literal (`citable_text.py`).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Final, Literal

from aletheia.core.artifacts import (
    ArtifactFormatError,
    CitationArtifact,
    parse_artifact,
    validate_slug,
)
from aletheia.core.records import RetractionKind
from aletheia.pipeline.artifact_checks.citable_text import citable_text

__all__ = [
    "CITATIONS_DIR",
    "DEFAULT_MAX_AGE_DAYS",
    "CheckReport",
    "CitationProblem",
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
            for kind, message in _slug_problems(slug, verdict_for):
                if kind != "stale" and kind != "retracted":  # reported where the artifact is cited
                    report.problems.append(CitationProblem(relative, None, kind, message, slug))
    report.artifacts_checked = len(verdicts)
    report.seconds = time.perf_counter() - started
    return report


def _slug_problems(
    slug: str, verdict_for: Callable[[str], _ArtifactVerdict]
) -> list[tuple[ProblemKind, str]]:
    """What is wrong with the artifact a slug names: the slug itself when it is not a valid one (no
    file is looked for then), else the artifact's own problems."""
    try:
        validate_slug(slug)
    except ValueError as exc:
        return [("bad_slug", str(exc))]
    return list(verdict_for(slug).problems)


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
            for kind, message in _slug_problems(slug, verdict_for):
                if kind != "bad_slug":  # the artifact's own problem: say which file has it
                    message = f"docs/citations/{slug}.md: {message}"
                report.problems.append(CitationProblem(relative, number, kind, message, slug))
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
