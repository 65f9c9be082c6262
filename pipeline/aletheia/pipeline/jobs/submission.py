"""Submission (producers): a job row from the submitted documents, a claim or repositories, then
the first step asked for.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.jobs.context import Dispatcher
from aletheia.pipeline.jobs.enqueue import enqueue_first_step
from aletheia.pipeline.jobs.kinds import JobKind, kind_record
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import JobStatus

# A job input flag: the producer read the references and wrote the items (`submit_references`).
READ_BY_PRODUCER = "read_by_producer"


@dataclass(frozen=True)
class InputDocument:
    """A submitted file, carried in the job row so any worker on any host can read it."""

    name: str
    data: bytes
    role: str = "bibliography"  # bibliography | artifact

    def as_json(self) -> dict[str, Any]:
        try:
            return {"name": self.name, "role": self.role, "text": self.data.decode("utf-8")}
        except UnicodeDecodeError:
            return {
                "name": self.name,
                "role": self.role,
                "base64": base64.b64encode(self.data).decode("ascii"),
            }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> InputDocument:
        data = obj["text"].encode("utf-8") if "text" in obj else base64.b64decode(obj["base64"])
        return cls(name=obj["name"], data=data, role=obj.get("role", "bibliography"))

    @classmethod
    def read(cls, path: Path, *, role: str = "bibliography", name: str | None = None) -> InputDocument:
        return cls(name=name or str(path), data=path.read_bytes(), role=role)


def check_input_size(runtime: Runtime, documents: Sequence[InputDocument]) -> None:
    """Refuse (ValueError) documents larger together than `max_input_bytes`."""
    total = sum(len(d.data) for d in documents)
    if total > runtime.settings.max_input_bytes:
        raise ValueError(
            f"input of {total} bytes exceeds max_input_bytes ({runtime.settings.max_input_bytes})"
        )


def submit_bibliography(
    runtime: Runtime,
    dispatcher: Dispatcher,
    documents: Sequence[InputDocument],
    *,
    submitted_by: str | None = None,
    parent_id: str | None = None,
    repository: str | None = None,
    job_id: str | None = None,
    fresh_sources: bool = False,
) -> str:
    """Create a bibliography job from the documents' contents, then ask for it to start.
    `fresh_sources`: its references are checked with every source asked again (no cached answer)."""
    if not documents:
        raise ValueError("a bibliography job needs at least one document")
    check_input_size(runtime, documents)
    job_input: dict[str, Any] = {"documents": [d.as_json() for d in documents]}
    if repository is not None:
        job_input["repository"] = repository
    if fresh_sources:
        job_input["fresh_sources"] = True  # jobs/bibliography.py's FRESH_SOURCES
    job_id = runtime.jobs.create_job(
        JobKind.BIBLIOGRAPHY, job_input, submitted_by=submitted_by, parent_id=parent_id, job_id=job_id
    )
    if parent_id is None:  # a producer's job: refused by the broker, it is failed, never left queued
        enqueue_first_step(
            runtime, dispatcher, kind_record(JobKind.BIBLIOGRAPHY).first_step, job_id
        )  # after the commit
    else:  # a sweep's child: its parent's step retries, and the re-drive finds it queued
        dispatcher.send(kind_record(JobKind.BIBLIOGRAPHY).first_step, job_id)
    return job_id


@dataclass
class ReadReferences:
    """What `submit_references` took from the producer's reader: the job, and what the terminal
    needs to follow it (the input problems, the positions of the references)."""

    job_id: str
    problems: list[InputProblem]
    reference_positions: list[int]


def item_row(position: int, entry: CitedReference | InputProblem) -> tuple[int, str, str, dict[str, Any]]:
    """A bibliography job's item for one entry of its input: (position, key, kind, payload)."""
    if isinstance(entry, InputProblem):
        return position, f"problem-{position}", "problem", entry.model_dump(mode="json")
    return position, entry.key, "reference", entry.model_dump(mode="json")


# Items written per transaction while the producer's reader is consumed: memory stays flat.
SUBMIT_CHUNK = 500


def submit_references(
    runtime: Runtime,
    dispatcher: Dispatcher,
    entries: Iterable[CitedReference | InputProblem],
    *,
    input_description: dict[str, Any],
    document_signals: Callable[[], Sequence[dict[str, Any]]] = lambda: (),
    submitted_by: str | None = None,
) -> ReadReferences:
    """A bibliography job over references its producer reads itself (`aletheia verify` reads
    files, folders and stdin with `inputs.iter_references`, so an unreadable input is refused
    before any source is asked). Its items are the entries, in order, written here in chunks as
    the reader yields them (as the expansion step would write them from documents); then the job
    runs the steps every bibliography job runs (expand: the items are there, so it fans them out;
    verify each item; the writer). `document_signals`: read once the entries are consumed."""
    job_id = runtime.jobs.create_job(
        JobKind.BIBLIOGRAPHY, {**input_description, READ_BY_PRODUCER: True}, submitted_by=submitted_by
    )
    read = ReadReferences(job_id=job_id, problems=[], reference_positions=[])
    rows: list[tuple[int, str, str, dict[str, Any]]] = []
    try:
        for position, entry in enumerate(entries, 1):
            if isinstance(entry, InputProblem):
                read.problems.append(entry)
            else:
                read.reference_positions.append(position)
            rows.append(item_row(position, entry))
            if len(rows) >= SUBMIT_CHUNK:
                runtime.jobs.add_items(job_id, rows)
                rows = []
        runtime.jobs.add_items(job_id, rows)
    except BaseException as exc:  # an unreadable input: the job never runs, and says why
        runtime.jobs.set_job_status(
            job_id, JobStatus.FAILED, error=f"input error: {type(exc).__name__}: {exc}"
        )
        raise
    signals = list(document_signals())
    if signals:  # kept in the summary row, as the expansion keeps a document's
        runtime.jobs.set_summary(job_id, {"document_signals": signals})
    runtime.jobs.settle_problem_items(job_id)  # problems are settled at once: nothing to verify
    enqueue_first_step(runtime, dispatcher, kind_record(JobKind.BIBLIOGRAPHY).first_step, job_id)
    return read


def submit_claim(
    runtime: Runtime,
    dispatcher: Dispatcher,
    claim: str,
    *,
    submitted_by: str | None = None,
    hint: str | None = None,
    paper: str | None = None,
    repository: str | Path | None = None,
    override_reason: str | None = None,
) -> str:
    """A claim job; its citation artifact goes to `repository`/docs/citations (default: the job's
    report folder). `paper` (DOI, arXiv id, PMID) judges that paper alone; `hint` is a search hint;
    `override_reason` lets a triangulation conflict through, recorded in the artifact. Its first
    stage (`CLAIM_CANDIDATES`) is asked for; the others follow (jobs/claims.py)."""
    claim = claim.strip()
    if not claim:
        raise ValueError("the claim is empty")
    if override_reason is not None and not override_reason.strip():
        raise ValueError("override=True needs a non-empty override_reason (it is recorded in the artifact)")
    job_input: dict[str, Any] = {"claim": claim}
    if hint:
        job_input["hint"] = hint
    if paper:
        from aletheia.pipeline.claims.candidate_search import parse_paper_id

        if parse_paper_id(paper) is None:
            raise ValueError(f"paper {paper!r} is not a DOI, an arXiv id or a PMID")
        job_input["paper"] = paper.strip()
    if override_reason is not None:
        job_input["override_reason"] = override_reason
    if repository is not None:
        job_input["repository"] = str(Path(repository).resolve())
    job_id = runtime.jobs.create_job(JobKind.CLAIM, job_input, submitted_by=submitted_by)
    runtime.jobs.add_items(job_id, [(1, claim[:80], "claim", {"claim": claim})])
    enqueue_first_step(runtime, dispatcher, kind_record(JobKind.CLAIM).first_step, job_id)
    return job_id


def submit_sweep(
    runtime: Runtime,
    dispatcher: Dispatcher,
    repositories: Sequence[str | Path],
    *,
    submitted_by: str | None = None,
    kind: str = JobKind.SWEEP,
    register: bool = True,
) -> str:
    """Re-verify every citation artifact and bibliography of each repository (one child job each)."""
    paths = sorted({str(Path(p).resolve()) for p in repositories})
    for path in paths:
        if not Path(path).is_dir():
            raise FileNotFoundError(f"not a directory: {path}")
    if register:
        register_repositories(runtime, paths)
    job_id = runtime.jobs.create_job(kind, {"repositories": paths}, submitted_by=submitted_by)
    enqueue_first_step(runtime, dispatcher, kind_record(kind).first_step, job_id)
    return job_id


def register_repositories(runtime: Runtime, paths: Iterable[str]) -> None:

    runtime.repositories.register(paths)
