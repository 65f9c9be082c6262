"""Cited claims judged against their papers (issue 19), without sources: which paper a citation is
judged against, how a claim's checks combine, the cap, a (sentence, paper) judged once, the trails
handed to the job, and the exit codes. `check_cited_claim` is a stand-in here; the real one runs
end to end in tests/integration/test_cited_claims_e2e.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.audit.claim_events import CLAIM_DECISION, CLAIM_EXTRACTED, ClaimTrail
from aletheia.pipeline.claims import verify_and_cite as claims_module
from aletheia.pipeline.claims.cited_claims import claim_status_with_judgement, paper_for
from aletheia.pipeline.claims.model import NoCandidates
from aletheia.pipeline.claims.research_text import check_claims_text, claims_exit_code
from aletheia.pipeline.claims.verify_and_cite import CitedClaimCheck
from aletheia.pipeline.jobs.submission import InputDocument
from aletheia.producers.tools import TOOLS


def _cited(**ids: str) -> CitedReference:
    return CitedReference(key="k", title="T", authors=(Author(family="A"),), year=2020, origin="r.bib", **ids)


def test_the_paper_a_citation_is_judged_against() -> None:
    match = {"doi": "10.5555/x.1", "arxiv_id": "2208.04321", "pmid": None}
    assert paper_for({"verdict": "metadata_error", "match": match}, _cited()) == ("10.5555/x.1", "")
    assert paper_for({"verdict": "verified", "match": {"arxiv_id": "2208.04321"}}, None) == (
        "arXiv:2208.04321",
        "",
    )
    # Verified, the match has no identifier: the entry's own.
    no_ids = {"doi": None, "arxiv_id": None, "pmid": None, "title": "T"}
    assert paper_for({"verdict": "verified", "match": no_ids}, _cited(pmid="31452104")) == (
        "PMID:31452104",
        "",
    )
    # Not verified: the entry's own identifier is not trusted.
    assert paper_for({"verdict": "retracted", "match": no_ids}, _cited(pmid="31452104")) == (
        None,
        "the cited work has no DOI, arXiv id or PMID to read it by",
    )
    assert paper_for({"verdict": "not_found", "match": None}, _cited(doi="10.5555/x.1")) == (
        None,
        "the reference check found no work (not_found)",
    )
    assert paper_for(None, None) == (None, "the reference was not checked")


@pytest.mark.parametrize(
    ("status", "judgement", "expected"),
    [
        ("verified", "contradicted", "contradicted"),
        ("verified", "unsupported", "unsupported_by_paper"),
        ("verified", "unchecked", "unchecked"),
        ("verified", "supported", "verified"),
        ("verified", "not_judged", "verified"),  # a book without an identifier: nothing to read
        ("doubtful", "contradicted", "contradicted"),
        ("doubtful", "unchecked", "doubtful"),
        ("flagged", "contradicted", "flagged"),  # the citation itself is the first thing to fix
        ("unchecked", "not_judged", "unchecked"),
    ],
)
def test_claim_status_with_its_judgement(status: str, judgement: str, expected: str) -> None:
    assert claim_status_with_judgement(status, {"status": judgement}) == expected
    assert claim_status_with_judgement(status, None) == status


def test_exit_codes_of_judged_claims() -> None:
    def code(*statuses: str) -> int:
        return claims_exit_code({"claims": [{"status": s} for s in statuses]})

    assert code("verified", "contradicted") == 1
    assert code("verified", "unsupported_by_paper") == 1
    assert code("verified", "unchecked") == 3
    assert code("verified", "own_work") == 0


BIB = (
    "@article{a, author={Virtanen, Aino}, title={Spectral Warm Starts}, year={2022}, doi={10.5555/a.1}}\n"
    "@article{b, author={Mensah, Kwame}, title={Coarsening}, year={2021}, doi={10.5555/b.2}}\n"
    "@book{c, author={Knuth, Donald}, title={Sorting}, year={1998}}\n"
)


class _Judged:
    """`check_cited_claim` as a table: (paper, a word of the sentence) -> status."""

    def __init__(self, table: dict[tuple[str, str], str]) -> None:
        self.table = table
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, claim: str, paper: str, *, trail: ClaimTrail, **_: Any) -> CitedClaimCheck:
        self.calls.append((claim, paper))
        status = next(
            (s for (p, word), s in self.table.items() if p == paper and word in claim), "unsupported"
        )
        trail.add(CLAIM_EXTRACTED, {"claim": claim, "paper": paper})
        trail.add(CLAIM_DECISION, {"cited": status == "supported", "refusal": status, "detail": "stand-in"})
        excerpt = {"text": f"the paper on {claim}", "location": "Abstract", "why": "stand-in"}
        return CitedClaimCheck(claim, paper, status, f"{status} (stand-in)", "rules:test", excerpt)


async def _verified(claims: list[dict[str, Any]], index: Any, gateway: Any) -> dict[str, dict[str, Any]]:
    """The reference check as a stand-in: every entry verified, matched to its own DOI (none for c)."""
    return {
        f"{r.key}@{r.origin}": {
            "key": r.key,
            "verdict": "verified",
            "match": {"doi": r.doi, "title": r.title},
        }
        for r in index.refs
    }


def _report(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    paper: str,
    judged: _Judged,
    settings: Settings | None = None,
    **options: Any,
) -> tuple[dict[str, Any], list[ClaimTrail]]:
    import aletheia.pipeline.claims.research_text as claims_text

    monkeypatch.setattr(claims_module, "check_cited_claim", judged)
    monkeypatch.setattr(claims_text, "_verify_cited", _verified)
    trails: list[ClaimTrail] = []
    report = asyncio.run(
        check_claims_text(
            InputDocument("paper.md", paper.encode()),
            [InputDocument("refs.bib", BIB.encode())],
            gateway=object(),
            settings=settings or Settings(data_dir=tmp_path / "data", offline=True, claim_judge="rules"),
            project_root=tmp_path,
            trails=trails,
            **options,
        )
    )
    return report, trails


PAPER = (
    "# Introduction\n\n"
    "Warm starts shrink the edge cut on road networks [@a].\n"  # claim 1: supported
    "Warm starts speed up coarsening on social graphs [@a; @b].\n"  # claim 2: a contradicts, b supports
    "Coarsening depth grows with the degree skew [@b; @c].\n"  # claim 3: b unsupported, c not judged
    "Warm starts shrink the edge cut on road networks [@a].\n"  # claim 4: claim 1 again
    "Warm starts halve the memory of coarsening [@b].\n"  # claim 5: b unsupported
)
TABLE = {("10.5555/a.1", "road"): "supported", ("10.5555/a.1", "social"): "contradicted",
         ("10.5555/b.2", "social"): "supported"}  # fmt: skip


def test_each_cited_claim_is_judged_once_per_paper_and_the_checks_combine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged = _Judged(TABLE)
    report, trails = _report(tmp_path, monkeypatch, PAPER, judged, suggest=False)
    claims = report["claims"]
    assert [c["judgement"]["status"] for c in claims] == [
        "supported",
        "contradicted",  # a contradiction outweighs the other paper's support
        "not_judged",  # c (a book, no identifier) might be the one that supports it
        "supported",
        "unsupported",
    ]
    assert [c["status"] for c in claims] == [
        "verified",
        "contradicted",
        "verified",
        "verified",
        "unsupported_by_paper",
    ]
    # The markers are cut from what is judged; claim 4 repeats claim 1's (sentence, paper): once.
    assert judged.calls[0] == ("Warm starts shrink the edge cut on road networks.", "10.5555/a.1")
    assert len(judged.calls) == len(set(judged.calls)) == 5
    assert (
        claims[1]["judgement"]["excerpt"]["text"]
        == "the paper on Warm starts speed up coarsening on social graphs."
    )
    assert [(r["key"], r["status"]) for r in claims[2]["judgement"]["checks"]] == [
        ("b", "unsupported"),
        ("c", "not_judged"),
    ]
    assert (
        claims[2]["judgement"]["checks"][1]["detail"]
        == "the cited work has no DOI, arXiv id or PMID to read it by"
    )
    summary = report["summary"]
    assert summary["judged"] == {"contradicted": 1, "not_judged": 1, "supported": 2, "unsupported": 1}
    assert summary["judgements_checked"] == 5 and summary["exit_code"] == 1
    # The trails, in claim order; claim 4 points at claim 1's judgement instead of repeating it.
    items = [t.item for t in trails]
    assert items == ["claim 1", "claim 2", "claim 2", "claim 3", "claim 4", "claim 5"]
    (pointer,) = trails[4].events
    assert pointer == (
        CLAIM_DECISION,
        {"item": "claim 4", "cited": True, "refusal": None,
         "detail": "judged once with claim 1: same sentence, same paper 10.5555/a.1"},
    )  # fmt: skip


def test_the_cap_bounds_the_judgements(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judged = _Judged(TABLE)
    report, _ = _report(tmp_path, monkeypatch, PAPER, judged, suggest=False, max_judgements=2)
    assert len(judged.calls) == 2
    statuses = [c["judgement"]["status"] for c in report["claims"]]
    assert statuses == ["supported", "contradicted", "unchecked", "supported", "unchecked"]
    assert "--max-judgements" in report["claims"][4]["judgement"]["detail"]
    assert report["summary"]["max_judgements"] == 2 and report["summary"]["judgements_checked"] == 2


def test_no_check_judges_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judged = _Judged(TABLE)
    report, trails = _report(tmp_path, monkeypatch, PAPER, judged, suggest=False, check=False)
    assert judged.calls == [] and trails == []
    assert {c["judgement"]["status"] for c in report["claims"]} == {"not_judged"}
    assert {c["status"] for c in report["claims"]} == {"unchecked"}
    assert report["summary"]["exit_code"] == 3


def test_a_judge_that_cannot_be_had_leaves_every_claim_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = Settings(
        data_dir=tmp_path / "data", offline=True, claim_judge="anthropic", anthropic_api_key=None
    )
    judged = _Judged(TABLE)
    report, trails = _report(tmp_path, monkeypatch, PAPER, judged, settings, suggest=False)
    assert judged.calls == []
    assert [c["judgement"]["status"] for c in report["claims"]] == [
        "unchecked", "unchecked", "unchecked", "unchecked", "unchecked"
    ]  # fmt: skip
    assert "ANTHROPIC_API_KEY" in report["claims"][0]["judgement"]["detail"]
    assert report["summary"]["exit_code"] == 3 and trails[0].events[0][1]["refusal"] == "unchecked"


def test_the_suggestions_trails_are_collected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refusing(claim: str, *, trail: ClaimTrail, **_: Any) -> tuple[None, NoCandidates]:
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": "NoCandidates", "detail": "none fits"})
        return None, NoCandidates(claim=claim, detail="none fits")

    paper = PAPER + "Studies have shown that warm starts always help.\n"
    report, trails = _report(tmp_path, monkeypatch, paper, _Judged(TABLE), suggester=refusing)
    assert report["claims"][-1]["status"] == "unsupported"
    assert trails[-1].item == "claim 6" and trails[-1].events[0][1]["refusal"] == "NoCandidates"


def test_validate_research_describes_the_judgement() -> None:
    tool = next(t for t in TOOLS if t["name"] == "validate_research")
    assert "judge each cited sentence against the paper it cites" in tool["description"]
    assert tool["input_schema"]["properties"]["max_judgements"]["default"] == 50
