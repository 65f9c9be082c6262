"""`verify_and_cite`: ground a research claim in a paper, prove it, write the artifact, or refuse.

The flow of seed 000 §4.2, each step a function the queue can run on its own pool:

    extract_claim        (evidence)   the assertion and its search queries
    search_papers        (retrieval)  Semantic Scholar and OpenAlex searches -> candidates
    rank_candidates      (evidence)   at most 3 ranking iterations; none plausible -> NoCandidates
    fetch_paper_text     (retrieval)  arXiv HTML -> PDF -> abstract (`fulltext.py`)
    convert_document     (parsing)    bytes -> PaperText, cached by content hash
    match_evidence       (evidence)   proposed quotes, each located verbatim or dropped
    identity_check       (retrieval)  the triangulation gate against a second source
    write_citation_artifact (writer)  docs/citations/{slug}.md, atomically, never outside it

Default-deny: every path that cannot prove the citation returns `(None, ConflictReport)`. What is
mechanical and what is judgement: the identity fields come from the source's record (never from the
model), every excerpt is a located span of the paper's text, and the gate compares two sources'
records with `aletheia.core.triangulate`. Ranking and quote proposal are the reasoner's
(`llm.py`), and whatever they say is checked by the steps above.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from aletheia.config import Settings, get_settings
from aletheia.core.artifacts import (
    ArtifactPathError,
    CitationArtifact,
    Excerpt,
    Triangulation,
    artifact_path,
    frontmatter_from_record,
    record_of_artifact,
    render_artifact,
    slug_for_record,
)
from aletheia.core.excerpts import ExcerptMatch, PaperText, locate_excerpt
from aletheia.core.identifiers import arxiv_id_from_doi
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.render import body_from_record
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.triangulate import TriangulationResult, triangulate
from aletheia.pipeline.claim_types import (
    Candidate,
    Citation,
    ConflictReport,
    ExtractedClaim,
    FieldDisagreement,
    NoCandidates,
    NoSupportingExcerpts,
    Ranking,
    RetractedWork,
    RetriesExhausted,
    TriangulationConflict,
)
from aletheia.pipeline.fulltext import Converter, FetchedText, convert_document, fetch_paper_text
from aletheia.pipeline.llm import LLM, TOOL_DEFINITIONS, ClaimReasoner, LLMError, reasoner_from_settings
from aletheia.sources.base import SourceError, SourceRecord

__all__ = [
    "CITATIONS_DIR",
    "VERIFICATION_VERSION",
    "ClaimTools",
    "EvidenceResult",
    "IdentityCheck",
    "SearchOutcome",
    "SourcesFailed",
    "build_artifact",
    "convert_document",
    "fetch_paper_text",
    "identity_check",
    "match_evidence",
    "outcome_as_dict",
    "search_papers",
    "verify_and_cite",
    "verify_and_cite_sync",
    "write_citation_artifact",
]

CITATIONS_DIR: Final = "docs/citations"
VERIFICATION_VERSION: Final = "1.0"
MAX_CANDIDATES_TRIED: Final = 3  # candidates whose text is read before giving up on excerpts
SEARCH_LIMIT: Final = 10


class SourcesFailed(Exception):
    """Every source a step needed failed after its retries."""

    def __init__(self, source: str, error: str) -> None:
        super().__init__(source, error)
        self.source = source
        self.error = error


# --- search -----------------------------------------------------------------------------------------


@dataclass
class SearchOutcome:
    candidates: list[Candidate]
    failures: list[str] = field(default_factory=list)  # "source: error" for each search that failed
    answered: int = 0  # searches that answered (with results or none)


async def _guarded(source: str, call: Awaitable[Any], failures: list[str]) -> Any:
    try:
        return await call
    except SourceError as exc:
        failures.append(f"{source}: {exc}")
        return None


async def search_papers(gateway: Any, query: str, year_hint: int | None = None) -> SearchOutcome:
    """Semantic Scholar's relevance search (the seed's retriever) and OpenAlex's, merged: S2's hits
    first, a work both return kept once (as S2 returned it). A failed search is recorded, not raised."""
    failures: list[str] = []
    s2_call = gateway.semantic_scholar.search(query, year=year_hint, limit=SEARCH_LIMIT)
    openalex_call = gateway.openalex.search(query=query, year=year_hint, per_page=SEARCH_LIMIT)
    s2_hits, openalex_hits = await asyncio.gather(
        _guarded(SourceName.SEMANTIC_SCHOLAR.value, s2_call, failures),
        _guarded(SourceName.OPENALEX.value, openalex_call, failures),
    )
    merged: dict[str, Candidate] = {}
    answered = 0
    for hits in (s2_hits, openalex_hits):
        if hits is None:
            continue
        answered += 1
        for hit in hits:
            record = hit.record
            if record.notice_for or not record.title:
                continue  # a retraction notice is never the work itself
            candidate = Candidate.of(record)
            merged.setdefault(candidate.key, candidate)
    return SearchOutcome(candidates=list(merged.values()), failures=failures, answered=answered)


async def _direct_candidates(gateway: Any, claim: ExtractedClaim, failures: list[str]) -> list[Candidate]:
    """The paper a hint names by identifier, straight from Semantic Scholar."""
    ids = [f"DOI:{claim.doi}"] if claim.doi else []
    if claim.arxiv_id:
        ids.append(f"ARXIV:{claim.arxiv_id}")
    found: list[Candidate] = []
    for paper_id in ids:
        hit = await _guarded(
            SourceName.SEMANTIC_SCHOLAR.value, gateway.semantic_scholar.paper(paper_id), failures
        )
        if hit is not None:
            found.append(Candidate.of(hit.record))
    return found


# --- evidence ---------------------------------------------------------------------------------------


@dataclass
class EvidenceResult:
    """The quotes that were proposed, and the ones found verbatim in the text (with locations)."""

    matches: list[ExcerptMatch]
    rejected: list[str]

    @property
    def supported(self) -> bool:
        return bool(self.matches)


async def match_evidence(
    claim: str, paper: PaperText, reasoner: ClaimReasoner, *, limit: int = 3
) -> EvidenceResult:
    """Quotes proposed by the reasoner, each kept only if it is in the text (tolerant rule of
    `core.excerpts`); a failing quote is dropped, never repaired. Duplicates are kept once."""
    proposals = await reasoner.propose_excerpts(claim, paper, limit=limit)
    matches: list[ExcerptMatch] = []
    rejected: list[str] = []
    seen: set[str] = set()
    for proposal in proposals:
        found = locate_excerpt(proposal, paper)
        if found is None:
            rejected.append(proposal)
        elif found.text not in seen:
            seen.add(found.text)
            matches.append(found)
    return EvidenceResult(matches=matches[:limit], rejected=rejected)


# --- the triangulation gate -------------------------------------------------------------------------


@dataclass
class IdentityCheck:
    """The gate's outcome for one candidate: the second source's record and the comparison, or
    neither (single-source) with the reason in `notes`."""

    primary: WorkRecord
    secondary: SourceRecord | None
    result: TriangulationResult | None
    notes: list[str]
    consulted: list[SourceName]

    @property
    def conflicts(self) -> list[FieldDisagreement]:
        if self.result is None or self.secondary is None:
            return []
        return [
            FieldDisagreement(
                field=conflict.field,
                primary_source=self.primary.source,
                primary_value=conflict.primary_value,
                secondary_source=self.secondary.record.source,
                secondary_value=conflict.secondary_value,
                similarity=conflict.similarity,
            )
            for conflict in self.result.conflicts
        ]

    @property
    def agreed(self) -> bool:
        return self.result is None or self.result.verified


def _secondary_lookups(
    gateway: Any, record: WorkRecord
) -> list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]]:
    """Seed §5.1's order: OpenAlex by DOI (Crossref after it), else arXiv by id, else PubMed."""
    lookups: list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]] = []
    doi = record.doi if record.doi and arxiv_id_from_doi(record.doi) is None else None
    if doi:
        lookups.append((SourceName.OPENALEX, f"doi:{doi}", lambda: gateway.openalex.work_by_doi(doi)))
        lookups.append((SourceName.CROSSREF, f"doi:{doi}", lambda: gateway.crossref.work_by_doi(doi)))
    arxiv = record.arxiv_id or (
        parsed.id if record.doi and (parsed := arxiv_id_from_doi(record.doi)) else None
    )
    if arxiv:
        lookups.append((SourceName.ARXIV, f"arxiv:{arxiv}", lambda: gateway.arxiv.by_id(arxiv)))
        lookups.append(
            (
                SourceName.SEMANTIC_SCHOLAR,
                f"arxiv:{arxiv}",
                lambda: gateway.semantic_scholar.paper(f"ARXIV:{arxiv}"),
            )
        )
    if record.pmid:
        pmid = record.pmid
        lookups.append((SourceName.PUBMED, f"pmid:{pmid}", lambda: gateway.pubmed.by_pmid(pmid)))
    return [lookup for lookup in lookups if lookup[0] != record.source]


async def identity_check(gateway: Any, record: WorkRecord) -> IdentityCheck:
    """Triangulate `record` against the first second source that knows it (seed 000 §5).

    No identifier to look up: single-source, noted `no_secondary_source_available` (§5.1). Every
    second source answered "not found": single-source too, noted `secondary_not_found: ...`.
    Raises `SourcesFailed` when a second source could not be asked and none answered.
    """
    consulted = [record.source]
    notes: list[str] = []
    failures: list[str] = []
    lookups = _secondary_lookups(gateway, record)
    if not lookups:
        return IdentityCheck(record, None, None, ["no_secondary_source_available"], consulted)
    for source, query, lookup in lookups:
        try:
            found = await lookup()
        except SourceError as exc:
            failures.append(f"{source.value}: {exc}")
            continue
        if source not in consulted:
            consulted.append(source)
        if found is None:
            notes.append(f"secondary_not_found: {source.value} {query}")
            continue
        result = triangulate(record, found.record)
        notes.extend(f"secondary_unavailable: {failure}" for failure in failures)
        return IdentityCheck(record, found, result, notes, consulted)
    if failures:
        raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
    return IdentityCheck(record, None, None, notes, consulted)


def _retraction(gateway: Any, check: IdentityCheck) -> tuple[RetractionKind, str | None]:
    records = [check.primary] + ([check.secondary.record] if check.secondary else [])
    notices = [notice for record in records for notice in record.retraction_notices]
    lookup = getattr(gateway, "retraction_notices", None)
    if lookup is not None:
        cited = CitedReference(key="claim", doi=check.primary.doi, pmid=check.primary.pmid)
        notices.extend(lookup(cited, records))
    status = combine_retraction_status(notices, consulted=check.consulted)
    notice = status.notice
    return status.kind, notice.notice_doi if notice else None


# --- the artifact -----------------------------------------------------------------------------------


def build_artifact(
    *,
    claim: str,
    check: IdentityCheck,
    matches: Sequence[ExcerptMatch],
    text_excerpts_unavailable: bool,
    verified_at: datetime,
    retraction: RetractionKind | None = None,
    override_reason: str | None = None,
    extra_notes: Sequence[str] = (),
) -> CitationArtifact:
    """The artifact for a candidate that passed (or, with `override_reason`, was overridden past)
    the gate. Identity fields come from the primary source's record as it is."""
    record = check.primary
    result = check.result
    notes = list(dict.fromkeys([*(result.notes if result else ()), *check.notes, *extra_notes]))
    if override_reason is not None:
        notes.extend(
            f"overridden_conflict: {c.field}: {c.primary_source.value} says {c.primary_value}"
            f" vs {c.secondary_source.value} says {c.secondary_value}"
            for c in check.conflicts
        )
    secondary = check.secondary.record.source if check.secondary is not None else None
    triangulation = Triangulation(
        primary_source=record.source,
        secondary_source=secondary,
        decisive_fields_agreed=check.agreed,
        decisive_fields_checked=list(result.decisive_fields_checked) if result else [],
        notes=[note for note in notes if note.strip()],
    )
    consulted = list(dict.fromkeys([*check.consulted, *([secondary] if secondary else [])]))
    front = frontmatter_from_record(
        record,
        sources_consulted=consulted,
        triangulation=triangulation,
        verified_at=verified_at,
        verification_version=VERIFICATION_VERSION,
        claim_supported=claim,
        human_overridden=override_reason is not None,
        override_reason=override_reason,
        text_excerpts_unavailable=text_excerpts_unavailable,
        retraction_status=retraction,
    )
    excerpts = (
        [] if text_excerpts_unavailable else [Excerpt(text=m.text, location=m.location) for m in matches]
    )
    return CitationArtifact(frontmatter=front, body=body_from_record(record, excerpts))


def _refuse_symlinks(root: Path, relative: str) -> Path:
    """`root/relative`, each existing component checked: none may be a symlink or a non-directory."""
    current = root
    for part in relative.split("/"):
        current = current / part
        try:
            mode = current.lstat().st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise ArtifactPathError(f"{current} is a symbolic link; artifacts are never written through one")
        if not stat.S_ISDIR(mode):
            raise ArtifactPathError(f"{current} exists and is not a directory")
    return current


def write_citation_artifact(
    project_root: Path, artifact: CitationArtifact, *, slug: str | None = None
) -> Path:
    """Write `docs/citations/{slug}.md` under `project_root`, atomically (temp file + rename).

    The slug is validated (`artifact_path`), no directory on the way may be a symlink, an existing
    artifact that is a symlink is refused, and the final path must resolve inside the citations
    directory. An existing artifact for the same paper is replaced.
    """
    root = Path(project_root).resolve()
    if not root.is_dir():
        raise ArtifactPathError(f"project root {root} is not a directory")
    slug = slug or slug_for_record(record_of_artifact(artifact))
    relative = artifact_path(slug, CITATIONS_DIR)
    directory = _refuse_symlinks(root, CITATIONS_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    _refuse_symlinks(root, CITATIONS_DIR)  # again: nothing may have been swapped in meanwhile
    target = root / relative
    if target.is_symlink():
        raise ArtifactPathError(f"{target} is a symbolic link; refusing to write through it")
    if target.resolve().parent != directory.resolve():
        raise ArtifactPathError(f"{target} would fall outside {directory}")
    text = render_artifact(artifact)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{slug}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        Path(temporary).replace(target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


# --- verify_and_cite ----------------------------------------------------------------------------------


@dataclass
class _Attempt:
    candidate: Candidate
    fetched: FetchedText
    evidence: EvidenceResult | None


def _summaries(
    candidates: Sequence[Candidate], skip: str | None = None, limit: int = 5
) -> tuple[dict[str, object], ...]:
    return tuple(c.summary() for c in candidates if c.key != skip)[:limit]


@contextlib.asynccontextmanager
async def _open_gateway(settings: Settings) -> AsyncIterator[Any]:
    from aletheia.pipeline.runtime import Runtime

    runtime = Runtime.open(settings)
    async with runtime.gateway() as gateway:
        yield gateway


async def verify_and_cite(
    claim: str,
    hint: str | None = None,
    *,
    project_root: Path | str = ".",
    override: bool = False,
    override_reason: str | None = None,
    gateway: Any = None,
    settings: Settings | None = None,
    reasoner: ClaimReasoner | None = None,
    llm: LLM | None = None,
    convert: Converter | None = None,
    now: datetime | None = None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """Find the paper that supports `claim`, prove it, write the artifact: `(citation, path)`.
    Otherwise `(None, report)`: NoCandidates, NoSupportingExcerpts, TriangulationConflict,
    RetractedWork or RetriesExhausted.

    `override=True` (with a non-empty `override_reason`) lets a triangulation conflict through and
    records `human_overridden: true` and the reason; nothing else can be overridden. Without a
    `gateway` one is opened from `settings` (a `Runtime`); without a `reasoner` Claude is used when
    an Anthropic key is set (or `llm` is given), the lexical path otherwise.
    """
    if override and not (override_reason and override_reason.strip()):
        raise ValueError("override=True needs a non-empty override_reason (it is recorded in the artifact)")
    settings = settings or get_settings()
    reasoner = reasoner or reasoner_from_settings(settings, llm)
    if gateway is None:
        async with _open_gateway(settings) as opened:
            return await _verify(
                claim,
                hint,
                Path(project_root),
                override_reason if override else None,
                opened,
                reasoner,
                convert,
                now,
            )
    return await _verify(
        claim,
        hint,
        Path(project_root),
        override_reason if override else None,
        gateway,
        reasoner,
        convert,
        now,
    )


def verify_and_cite_sync(
    claim: str, hint: str | None = None, **options: Any
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """`verify_and_cite` for callers without an event loop."""
    return asyncio.run(verify_and_cite(claim, hint, **options))


async def _verify(
    claim: str,
    hint: str | None,
    project_root: Path,
    override_reason: str | None,
    gateway: Any,
    reasoner: ClaimReasoner,
    convert: Converter | None,
    now: datetime | None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    try:
        return await _verify_steps(
            claim, hint, project_root, override_reason, gateway, reasoner, convert, now
        )
    except SourcesFailed as exc:
        return None, RetriesExhausted(
            claim=claim, source=exc.source, error=exc.error, detail=f"{exc.source} kept failing: {exc.error}"
        )
    except LLMError as exc:
        return None, RetriesExhausted(
            claim=claim, source=reasoner.name, error=str(exc), detail=f"the model could not be asked: {exc}"
        )


async def _verify_steps(
    claim: str,
    hint: str | None,
    project_root: Path,
    override_reason: str | None,
    gateway: Any,
    reasoner: ClaimReasoner,
    convert: Converter | None,
    now: datetime | None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    extracted = await reasoner.extract_claim(claim, hint)
    if not extracted.queries and not (extracted.doi or extracted.arxiv_id):
        return None, NoCandidates(
            claim=claim,
            detail="the claim is too vague to search for"
            f" (content terms: {', '.join(extracted.terms) or 'none'})",
        )
    failures: list[str] = []
    answered = 0

    async def search(query: str, year_hint: int | None) -> list[Candidate]:
        nonlocal answered
        outcome = await search_papers(gateway, query, year_hint)
        failures.extend(outcome.failures)
        answered += outcome.answered
        return outcome.candidates

    initial = await _direct_candidates(gateway, extracted, failures)
    ranking: Ranking = await reasoner.rank_candidates(extracted, initial, search)
    if not ranking.ranked:
        if failures and not answered and not initial:
            raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
        queries = ranking.queries or extracted.queries
        return None, NoCandidates(
            claim=claim,
            query=queries[0] if queries else None,
            queries=queries,
            detail=f"no candidate from {len(queries)} search(es) fits the claim (ranker: {ranking.ranker})",
        )

    attempts: list[_Attempt] = []
    chosen: _Attempt | None = None
    for candidate in ranking.ranked[:MAX_CANDIDATES_TRIED]:
        fetched = await fetch_paper_text(gateway, candidate.record, convert=convert)
        evidence = None
        if fetched.paper is not None:
            evidence = await match_evidence(extracted.assertion, fetched.paper, reasoner)
        attempts.append(_Attempt(candidate, fetched, evidence))
        if evidence is not None and evidence.supported:
            chosen = attempts[-1]
            break
    if chosen is None:
        first = attempts[0]
        return None, NoSupportingExcerpts(
            claim=claim,
            candidate=first.candidate.summary(),
            proposed=tuple(first.evidence.rejected) if first.evidence else (),
            text_origin=first.fetched.paper.origin if first.fetched.paper else None,
            attempts=tuple(first.fetched.attempts),
            alternatives=_summaries(ranking.ranked, skip=first.candidate.key),
            detail=f"no verbatim excerpt supporting the claim in {len(attempts)} candidate(s)' text",
        )

    record = chosen.candidate.record
    check = await identity_check(gateway, record)
    if not check.agreed and override_reason is None:
        fields = check.conflicts
        named = ", ".join(f.field for f in fields) or "no identity field agreed"
        other = check.secondary.record.source.value if check.secondary else "?"
        return None, TriangulationConflict(
            claim=claim,
            candidate=chosen.candidate.summary(),
            fields=tuple(fields),
            notes=tuple(check.result.notes if check.result else ()),
            alternatives=_summaries(ranking.ranked, skip=chosen.candidate.key),
            detail=f"{record.source.value} and {other} disagree: {named}",
        )
    kind, notice_doi = _retraction(gateway, check)
    if kind in (RetractionKind.RETRACTED, RetractionKind.WITHDRAWN):
        return None, RetractedWork(
            claim=claim,
            candidate=chosen.candidate.summary(),
            status=kind.value,
            notice_doi=notice_doi,
            detail=f"the supporting paper is {kind.value}"
            + (f" (notice {notice_doi})" if notice_doi else ""),
        )
    assert chosen.fetched.paper is not None and chosen.evidence is not None
    abstract_only = chosen.fetched.abstract_only
    artifact = build_artifact(
        claim=extracted.assertion,
        check=check,
        matches=chosen.evidence.matches,
        text_excerpts_unavailable=abstract_only,
        verified_at=now or datetime.now(UTC),
        retraction=kind if kind is not RetractionKind.NONE else None,
        override_reason=override_reason,
        extra_notes=[f"full_text: {chosen.fetched.paper.origin}", f"ranker: {ranking.ranker}"],
    )
    slug = slug_for_record(record)
    path = write_citation_artifact(project_root, artifact, slug=slug)
    citation = Citation(
        text=artifact.body.citation_snippet,
        bibtex=artifact.body.bibtex,
        slug=slug,
        artifact=path,
        record=record,
        single_source_verified=artifact.frontmatter.single_source_verified,
        text_excerpts_unavailable=abstract_only,
        human_overridden=override_reason is not None,
    )
    return citation, path


# --- the five tools, composable and dispatchable -----------------------------------------------------


class ClaimTools:
    """The five tools of seed 000 §4.1 over one gateway, as methods and as a `dispatch` for a
    model's tool calls (`TOOL_DEFINITIONS` are their Anthropic definitions). Papers are referred to
    by the `paper_id` a search returned; their texts are kept for `match_evidence`."""

    definitions: Final = TOOL_DEFINITIONS

    def __init__(self, gateway: Any, reasoner: ClaimReasoner, *, convert: Converter | None = None) -> None:
        self.gateway = gateway
        self.reasoner = reasoner
        self.convert = convert
        self.papers: dict[str, Candidate] = {}
        self.texts: dict[str, FetchedText] = {}

    async def extract_claim(self, text: str, hint: str | None = None) -> ExtractedClaim:
        return await self.reasoner.extract_claim(text, hint)

    async def search_papers(self, query: str, year_hint: int | None = None) -> SearchOutcome:
        outcome = await search_papers(self.gateway, query, year_hint)
        for candidate in outcome.candidates:
            self.papers.setdefault(candidate.key, candidate)
        return outcome

    def _paper(self, paper_id: str) -> Candidate:
        try:
            return self.papers[paper_id]
        except KeyError:
            raise KeyError(f"unknown paper_id {paper_id!r}: search for it first") from None

    async def fetch_paper_text(self, paper_id: str) -> FetchedText:
        if paper_id not in self.texts:
            record = self._paper(paper_id).record
            self.texts[paper_id] = await fetch_paper_text(self.gateway, record, convert=self.convert)
        return self.texts[paper_id]

    async def match_evidence(
        self, paper_id: str, claim: str, excerpts: Sequence[str] | None = None
    ) -> EvidenceResult:
        fetched = await self.fetch_paper_text(paper_id)
        if fetched.paper is None:
            return EvidenceResult(matches=[], rejected=list(excerpts or []))
        if excerpts is None:
            return await match_evidence(claim, fetched.paper, self.reasoner)
        located = [(quote, locate_excerpt(quote, fetched.paper)) for quote in excerpts]
        return EvidenceResult(
            matches=[found for _, found in located if found is not None],
            rejected=[quote for quote, found in located if found is None],
        )

    async def triangulate(self, paper_id: str) -> IdentityCheck:
        return await identity_check(self.gateway, self._paper(paper_id).record)

    async def dispatch(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call and return its JSON-able result (errors as `{"error": ...}`)."""
        try:
            return await self._dispatch(name, arguments)
        except (KeyError, ValueError, SourcesFailed, SourceError, LLMError) as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}

    async def _dispatch(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "extract_claim":
            extracted = await self.extract_claim(str(arguments["text"]), arguments.get("hint"))
            return extracted.model_dump(mode="json")
        if name == "search_papers":
            outcome = await self.search_papers(str(arguments["query"]), arguments.get("year_hint"))
            return {
                "candidates": [{**c.summary(), "abstract": c.record.abstract} for c in outcome.candidates],
                "failures": outcome.failures,
            }
        if name == "fetch_paper_text":
            fetched = await self.fetch_paper_text(str(arguments["paper_id"]))
            paper = fetched.paper
            return {
                "origin": paper.origin if paper else None,
                "text": paper.text if paper else None,
                "attempts": fetched.attempts,
            }
        if name == "match_evidence":
            excerpts = arguments.get("excerpts")
            result = await self.match_evidence(
                str(arguments["paper_id"]),
                str(arguments["claim"]),
                [str(e) for e in excerpts] if isinstance(excerpts, list) else None,
            )
            return {
                "excerpts": [{"text": m.text, "location": m.location} for m in result.matches],
                "rejected": result.rejected,
            }
        if name == "triangulate":
            check = await self.triangulate(str(arguments["paper_id"]))
            return {
                "verified": check.agreed,
                "secondary_source": check.secondary.record.source.value if check.secondary else None,
                "conflicts": [c.model_dump(mode="json") for c in check.conflicts],
                "notes": [*(check.result.notes if check.result else ()), *check.notes],
            }
        raise KeyError(f"no tool named {name!r}")


def outcome_as_dict(outcome: tuple[Citation, Path] | tuple[None, ConflictReport]) -> dict[str, Any]:
    """A `verify_and_cite` result as JSON-able data (for a job summary or `--format json`)."""
    citation, detail = outcome
    if citation is None:
        assert not isinstance(detail, Path)
        return {"ok": False, **detail.model_dump(mode="json")}
    return {
        "ok": True,
        "citation": citation.text,
        "artifact": str(detail),
        "slug": citation.slug,
        "bibtex": citation.bibtex,
        "single_source_verified": citation.single_source_verified,
        "text_excerpts_unavailable": citation.text_excerpts_unavailable,
        "human_overridden": citation.human_overridden,
    }
