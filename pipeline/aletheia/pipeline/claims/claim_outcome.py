"""The write stage of a claim (`stages.py`, pool `writer`): the artifact of a citation written under
the project's citations, the decision recorded in the trail; and the outcome of a state at `done`
(the citation and its artifact, or the refusal), which the queue and `run_claim` both hand back.
"""

from __future__ import annotations

from pathlib import Path

from aletheia.pipeline.audit.claim_events import CLAIM_DECISION, ClaimTrail
from aletheia.pipeline.claims.artifact import write_citation_artifact
from aletheia.pipeline.claims.claim_state import ClaimState, Outcome
from aletheia.pipeline.claims.model import Citation

__all__ = ["state_outcome", "write_stage"]


def state_outcome(state: ClaimState) -> Outcome:
    """The result of a state at `done`: the citation and its artifact, or the refusal."""
    if state.citation is not None and state.artifact is not None:
        pending = state.citation
        front = pending.artifact.frontmatter
        citation = Citation(
            text=pending.artifact.body.citation_snippet,
            bibtex=pending.artifact.body.bibtex,
            slug=pending.slug,
            artifact=Path(state.artifact),
            record=pending.record,
            single_source_verified=front.single_source_verified,
            text_excerpts_unavailable=pending.text_excerpts_unavailable,
            human_overridden=pending.human_overridden,
            signals=pending.signals,
            excerpts=pending.excerpts,
            judge=pending.judge,
        )
        return citation, Path(state.artifact)
    assert state.refusal is not None, f"a claim at stage {state.stage} has no outcome yet"
    return None, state.refusal


def write_stage(state: ClaimState, project_root: Path, trail: ClaimTrail) -> Outcome:
    """Write the artifact (a citation) and record the decision; the state is then `done`. Raises
    `ArtifactPathError` when the artifact cannot be written safely under `project_root`."""
    if state.citation is not None:
        path = write_citation_artifact(project_root, state.citation.artifact, slug=state.citation.slug)
        state.artifact = str(path)
    state.stage = "done"
    outcome = state_outcome(state)
    citation, detail = outcome
    if citation is None:
        assert not isinstance(detail, Path)
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": detail.kind, "detail": detail.detail})
    else:
        record = citation.record
        trail.add(
            CLAIM_DECISION,
            {
                "cited": True,
                "slug": citation.slug,
                "paper": record.doi or record.arxiv_id or record.pmid,
                "excerpts": list(citation.excerpts),
                "judge": citation.judge,
                **(
                    {"human_overridden": True, "override_reason": state.request.override_reason}
                    if citation.human_overridden
                    else {}
                ),
            },
        )
    return outcome
