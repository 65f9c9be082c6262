"""`aletheia claims FILE`: the claims of a research text, their citations checked, and a verified
suggestion (or "no verified citation found") for each claim that has none.

    report = await check_claims_text(document, bibliographies, gateway=gw, settings=s, project_root=p)

Steps: the text (PDF through the same reading path as `verify`; `research_document.py`), the claims
and their citation markers (`aletheia.core.claim_text`, pure), the bibliography (the `.bib` files
given or named by the document, else the document's own reference list, else a `.bib` found next to
it), each marker resolved to a reference, each resolved reference verified as `aletheia verify`
does, each cited claim judged against the paper it cites (`cited_claims.py`: supported,
contradicted, unsupported, with the deciding excerpt), and each unsupported claim given to
`verify_and_cite`, whose answer is either a citation proven by excerpts and triangulation or a
refusal. A suggestion is never a citation the pipeline did not verify. Every judgement's and every
suggestion's `ClaimTrail` is handed to the caller (`trails=`): the job appends them to its audit
log.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

from aletheia.config import Settings
from aletheia.core.bibliography import InputProblem
from aletheia.core.claim_rules import RULES_VERSION
from aletheia.core.claim_text import ClaimFinding, find_claims
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION, VerdictStatus
from aletheia.pipeline.audit.claim_events import ClaimTrail
from aletheia.pipeline.claims.cited_claims import (
    DEFAULT_MAX_JUDGEMENTS,
    claim_status_with_judgement,
    judge_cited_claims,
    judgement_summary,
)
from aletheia.pipeline.claims.research_document import (
    NamedBytes,
    bibliography_references,
    document_text,
)
from aletheia.pipeline.evidence.outcome import ReferenceOutcome

NO_SUGGESTION: Final = "no verified citation found"
# The cited references, verified through the engine (`pipeline/jobs/in_process.verify_references`, run by
# the claims-text job): each one's outcome.
VerifyReferences = Callable[[list[CitedReference]], Awaitable[list[ReferenceOutcome]]]
DEFAULT_MAX_SUGGESTIONS: Final = 20
# Verdicts that neither confirm nor accuse: the claim is `doubtful`, never `flagged`.
_DOUBTFUL = (
    VerdictStatus.UNVERIFIABLE.value,
    VerdictStatus.AMBIGUOUS.value,
    VerdictStatus.OUT_OF_SCOPE.value,
)


# --- resolving markers to references ---------------------------------------------------------------


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _first_family(ref: CitedReference) -> str | None:
    if not ref.authors:
        return None
    return _ascii(ref.authors[0].family or ref.authors[0].display).split(" ")[-1]


class ReferenceIndex:
    """Find the reference a marker key means: by key, by position (numeric markers), or by first
    author's family name and year (author-year markers; more than one match is not a resolution)."""

    def __init__(self, refs: Sequence[CitedReference]) -> None:
        self.refs = list(refs)
        self.by_key: dict[str, CitedReference] = {}
        for ref in self.refs:
            self.by_key.setdefault(ref.key, ref)
            self.by_key.setdefault(ref.key.lower(), ref)

    def resolve(self, by: str, key: str) -> tuple[CitedReference | None, str | None]:
        """(reference, None) or (None, why not)."""
        if by in ("key", "footnote"):
            ref = self.by_key.get(key) or self.by_key.get(key.lower())
            return (ref, None) if ref else (None, f"no entry with key {key!r} in the bibliography")
        if by == "position":
            ref = self.by_key.get(key)
            if ref is None and key.isdigit() and 1 <= int(key) <= len(self.refs):
                ref = self.refs[int(key) - 1]
            return (ref, None) if ref else (None, f"no reference number {key} in the bibliography")
        family, _, year = key.rpartition(" ")
        hits = [r for r in self.refs if _first_family(r) == _ascii(family) and str(r.year) == year[:4]]
        if len(hits) == 1:
            return hits[0], None
        if hits:
            return None, f"{len(hits)} references by {family} in {year}: ambiguous"
        return None, f"no reference by {family} in {year} in the bibliography"


# --- the report ------------------------------------------------------------------------------------


def _query_text(sentence: str) -> str:
    """A claim as a search would read it: LaTeX commands, math marks and markers dropped."""
    text = re.sub(r"\\[a-zA-Z]+\*?(?:\[[^\]]*\])?(?:\{[^{}]*\})?", " ", sentence)
    text = re.sub(r"\[[^\]]*\]|[{}$~\\]", " ", text)
    return " ".join(text.split())


async def check_claims_text(
    document: NamedBytes,
    bibliographies: Sequence[NamedBytes],
    *,
    gateway: Any,
    settings: Settings,
    project_root: Path,
    beside: Sequence[NamedBytes] = (),
    suggest: bool = True,
    check: bool = True,
    max_suggestions: int = DEFAULT_MAX_SUGGESTIONS,
    max_judgements: int = DEFAULT_MAX_JUDGEMENTS,
    suggester: Any = None,
    judge: Any = None,
    reasoner: Any = None,
    trails: list[ClaimTrail] | None = None,
    verify_references: VerifyReferences | None = None,
) -> dict[str, Any]:
    """The claims report of docs/report-schema.md ("The claims report"). The markers resolve
    against `bibliographies` (given or named by the document), else the document's own reference
    list, else `beside` (files only found next to it). Every claim's audit trail
    (its judgements, then the suggestions' searches) is appended to `trails` when it is given.
    `verify_references` (needed to `check`): the engine the cited references go through, as every
    reference verified (the claims-text job's, `jobs/claims_text.py`)."""
    trails = trails if trails is not None else []
    text, fmt, own = document_text(document, settings)
    findings = find_claims(text, fmt=fmt)
    bibliography = _chosen_bibliography(document, own, bibliographies, beside)
    index = ReferenceIndex(bibliography.refs)
    claims = [_claim_json(n, f, index) for n, f in enumerate(findings, 1)]
    references = await _verify_cited(claims, index, verify_references) if check else {}
    for claim in claims:
        for citation in claim["citations"]:
            ref = references.get(citation.get("reference_key") or "")
            citation["verdict"] = ref["verdict"] if ref else None
    judged, judgement_trails = await judge_cited_claims(
        claims, findings, text, refs_by_id={_ref_id(r): r for r in bibliography.refs},
        references=references, checked=check, gateway=gateway, settings=settings,
        limit=max_judgements, judge=judge, reasoner=reasoner,
    )  # fmt: skip
    trails.extend(judgement_trails)
    for claim in claims:
        claim["status"] = claim_status_with_judgement(_claim_status(claim, check), claim["judgement"])
    if suggest:
        await _suggest(
            claims,
            gateway=gateway,
            settings=settings,
            project_root=project_root,
            limit=max_suggestions,
            suggester=suggester,
            trails=trails,
        )
    summary = _summary(claims, references, suggest, check) | judgement_summary(claims, judged, max_judgements)
    return _report(document.name, fmt, bibliography, claims, references, summary)


def _report(
    name: str,
    fmt: str,
    bibliography: _Bibliography,
    claims: list[dict[str, Any]],
    references: dict[str, dict[str, Any]],
    summary: dict[str, Any],
) -> dict[str, Any]:
    """The claims report (docs/report-schema.md), its exit code in the summary."""
    report: dict[str, Any] = {
        "document": name,
        "format": fmt,
        "bibliography": bibliography.as_json(),
        "summary": summary,
        "claims": claims,
        "references": list(references.values()),
        "rules_version": RULES_VERSION,
        "logic_version": LOGIC_VERSION,
    }
    report["summary"]["exit_code"] = claims_exit_code(report)
    return report


class _Bibliography(NamedTuple):
    """The references the markers resolve against, where they came from, and how they were found."""

    refs: list[CitedReference]
    problems: list[InputProblem]
    origins: list[str]
    found_by: str  # given | own_list | beside | none

    def as_json(self) -> dict[str, Any]:
        return {
            "origins": self.origins,
            "found_by": self.found_by,
            "references": len(self.refs),
            "problems": [p.model_dump(mode="json") for p in self.problems],
        }


def _chosen_bibliography(
    document: NamedBytes,
    own: list[CitedReference | InputProblem],
    bibliographies: Sequence[NamedBytes],
    beside: Sequence[NamedBytes],
) -> _Bibliography:
    """The bibliographies given, else the document's own reference list, else the files beside it."""
    own_refs = [r for r in own if isinstance(r, CitedReference)]
    if bibliographies:
        refs, problems = bibliography_references(bibliographies)
        return _Bibliography(refs, problems, [d.name for d in bibliographies], "given")
    if own_refs or not beside:
        problems = [p for p in own if isinstance(p, InputProblem)]
        origins = [f"{document.name} (its own reference list)"] if own_refs else []
        return _Bibliography(own_refs, problems, origins, "own_list" if own_refs else "none")
    refs, problems = bibliography_references(beside)
    return _Bibliography(refs, problems, [d.name for d in beside], "beside")


def _claim_json(number: int, finding: ClaimFinding, index: ReferenceIndex) -> dict[str, Any]:
    citations: list[dict[str, Any]] = []
    for mark in finding.citations:
        for key in mark.keys:
            ref, why = index.resolve(mark.by, key)
            citations.append(
                {
                    "marker": mark.text,
                    "style": mark.style,
                    "key": key,
                    "resolved": ref is not None,
                    "reference_key": _ref_id(ref) if ref else None,
                    "unresolved_reason": why,
                }
            )
    return {
        "id": number,
        "line": finding.line,
        "sentence": finding.sentence,
        "triggers": [{"rule": t.rule, "kind": t.kind, "text": t.text} for t in finding.triggers],
        "own_work": finding.own_work,
        "needs_citation": finding.needs_citation,
        "citations": citations,
        "status": None,
        "judgement": None,
        "suggestion": None,
    }


def _ref_id(ref: CitedReference) -> str:
    return f"{ref.key}@{ref.origin or ''}"


async def _verify_cited(
    claims: list[dict[str, Any]], index: ReferenceIndex, verify_references: VerifyReferences | None
) -> dict[str, dict[str, Any]]:
    from aletheia.pipeline.reports.formats import reference_json

    if verify_references is None:
        raise TypeError("checking the cited references needs `verify_references` (the engine)")
    wanted = {c["reference_key"] for claim in claims for c in claim["citations"] if c["resolved"]}
    refs = [r for r in index.refs if _ref_id(r) in wanted]
    unique = list({_ref_id(r): r for r in refs}.values())
    return {_ref_id(outcome.cited): reference_json(outcome) for outcome in await verify_references(unique)}


def _claim_status(claim: dict[str, Any], checked: bool) -> str:
    """own_work | unsupported | unresolved | flagged | unchecked | doubtful | verified, from the
    citations alone (`claim_status_with_judgement` then adds what the cited papers say)."""
    if not claim["citations"]:
        return "own_work" if claim["own_work"] else "unsupported"
    if any(not c["resolved"] for c in claim["citations"]):
        return "unresolved"
    if not checked:
        return "unchecked"
    verdicts = [c["verdict"] for c in claim["citations"]]
    if any(v not in ("verified", "metadata_error", *_DOUBTFUL) for v in verdicts):
        return "flagged"
    if any(v in _DOUBTFUL for v in verdicts):
        return "doubtful"
    return "verified"


async def _suggest(
    claims: list[dict[str, Any]],
    *,
    gateway: Any,
    settings: Settings,
    project_root: Path,
    limit: int,
    suggester: Any,
    trails: list[ClaimTrail],
) -> None:
    """A verified citation from `verify_and_cite` for each unsupported claim, or the refusal; each
    search's trail is appended to `trails`."""
    from aletheia.pipeline.claims.verify_and_cite import outcome_as_dict, verify_and_cite

    suggester = suggester or verify_and_cite
    asked = 0
    for claim in claims:
        if claim["status"] != "unsupported":
            continue
        if asked >= limit:
            claim["suggestion"] = {
                "verified": False,
                "result": "not searched",
                "detail": f"over --max-suggestions ({limit})",
            }
            continue
        asked += 1
        trail = ClaimTrail(item=f"claim {claim['id']}")
        outcome = await suggester(
            _query_text(claim["sentence"]),
            project_root=project_root,
            gateway=gateway,
            settings=settings,
            trail=trail,
        )
        trails.append(trail)
        found = outcome_as_dict(outcome)
        if found.get("ok"):
            claim["suggestion"] = {
                "verified": True,
                "citation": found["citation"],
                "artifact": found["artifact"],
                "bibtex": found["bibtex"],
                "single_source_verified": found["single_source_verified"],
                "text_excerpts_unavailable": found["text_excerpts_unavailable"],
                **({"signals": found["signals"]} if found.get("signals") else {}),
            }
        else:
            claim["suggestion"] = {
                "verified": False,
                "result": NO_SUGGESTION,
                "refusal": found.get("kind"),
                "detail": found.get("detail"),
            }


def _summary(
    claims: list[dict[str, Any]], references: dict[str, dict[str, Any]], suggest: bool, check: bool
) -> dict[str, Any]:
    statuses = Counter(c["status"] for c in claims)
    suggestions = [c["suggestion"] for c in claims if c["suggestion"]]
    return {
        "claims": len(claims),
        "needs_citation": sum(c["needs_citation"] for c in claims),
        "own_work": sum(c["own_work"] for c in claims),
        "with_citation": sum(bool(c["citations"]) for c in claims),
        "unsupported": statuses["unsupported"],
        "by_status": dict(sorted(statuses.items())),
        "citations_checked": len(references) if check else 0,
        "citations_by_verdict": dict(sorted(Counter(r["verdict"] for r in references.values()).items())),
        "suggestions_verified": sum(bool(s.get("verified")) for s in suggestions) if suggest else 0,
        "suggestions_refused": sum(s.get("result") == NO_SUGGESTION for s in suggestions) if suggest else 0,
    }


def claims_exit_code(report: dict[str, Any]) -> int:
    """0 every claim that needs a citation has one, every citation verified and no cited paper
    contradicts or fails to support its sentence; 1 an unsupported claim, an unresolved marker, a
    flagged citation, or a cited claim its paper contradicts or does not support; 3 otherwise, when
    some citation or judgement could not be made (unverifiable, ambiguous, checking turned off, a
    source down, past --max-judgements)."""
    statuses = Counter(c["status"] for c in report["claims"])
    if any(
        statuses[s] for s in ("unsupported", "unresolved", "flagged", "contradicted", "unsupported_by_paper")
    ):
        return 1
    if statuses["doubtful"] or statuses["unchecked"]:
        return 3
    return 0
