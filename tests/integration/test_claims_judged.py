"""Issue 19 end to end against the loopback simulator: a claim is cited only when its paper's own
words support it and none contradict it; `--paper` judges that paper and never another; every step
is in the claim's trail, and a replay of the trail agrees.

The universe (tests/fixtures/claims/judged_universe.jsonl) is hand-written: a trial whose abstract
says masks *reduced* infection, a review that says so too, and an unrelated paper.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.artifacts import parse_artifact
from aletheia.pipeline.audit.claim_events import CLAIM_EVENT_KINDS, ClaimTrail, replay_claim_events
from aletheia.pipeline.claims.judge import RuleJudge
from aletheia.pipeline.claims.model import ContradictedClaim, NoSupportingExcerpts, PaperNotFound
from aletheia.pipeline.claims.reasoner import LexicalReasoner
from aletheia.pipeline.claims.verify_and_cite import check_cited_claim, verify_and_cite
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from tests.integration.sim_pipeline import sim_settings

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "judged_universe.jsonl"
NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
TRIAL = "10.5555/jsic.2022.101"
REVIEW = "10.5555/srm.2023.7"
UNRELATED = "10.5555/shm.2020.3"
CONTRADICTED = (
    "Wearing surgical face masks increases the risk of respiratory virus infection in healthcare workers"
)
SUPPORTED = (
    "Wearing surgical face masks reduces the risk of respiratory virus infection in healthcare workers"
)


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def settings(simulator: SimulatorServer, tmp_path: Path) -> Settings:
    return sim_settings(tmp_path, simulator, claim_judge="rules")


async def _cite(claim: str, gateway: SourceGateway, settings: Settings, project: Path, **options: Any) -> Any:
    options.setdefault("reasoner", LexicalReasoner())
    return await verify_and_cite(
        claim, project_root=project, gateway=gateway, settings=settings, now=NOW, **options
    )


async def test_a_claim_its_paper_contradicts_is_refused_with_the_excerpt(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    trail = ClaimTrail()
    citation, report = await _cite(CONTRADICTED, gateway, settings, project, paper=TRIAL, trail=trail)
    assert citation is None and isinstance(report, ContradictedClaim), report
    assert report.excerpt == (
        "Wearing surgical face masks reduced the risk of respiratory virus infection in healthcare"
        " workers by 45%."
    )
    assert report.location == "Abstract" and "direction_flip" in report.reasons
    assert report.judge.startswith("rules:") and report.candidate["doi"] == TRIAL
    assert not (project / "docs").exists()  # nothing written
    kinds = [kind for kind, _ in trail.events]
    assert kinds[0] == "claim_extracted" and kinds[-1] == "claim_decision"
    assert set(kinds) <= CLAIM_EVENT_KINDS and "claim_judgement" in kinds
    replay = replay_claim_events(trail.events)
    assert replay.judged > 0 and replay.same == replay.judged and not replay.differences


async def test_a_searched_claim_is_refused_when_the_best_paper_contradicts_it(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite(CONTRADICTED, gateway, settings, project)
    assert citation is None and isinstance(report, ContradictedClaim), report
    assert not (project / "docs").exists()


async def test_paper_cites_that_paper_with_an_abstract_excerpt(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, path = await _cite(SUPPORTED, gateway, settings, project, paper=f"https://doi.org/{TRIAL}")
    assert citation is not None, path
    assert citation.record.doi == TRIAL and citation.judge and citation.judge.startswith("rules:")
    artifact = parse_artifact(path.read_text(encoding="utf-8"))
    assert artifact.frontmatter.doi == TRIAL and artifact.frontmatter.text_excerpts_unavailable
    assert [e.location for e in artifact.body.excerpts] == ["Abstract"]
    assert artifact.body.excerpts[0].text in (artifact.body.abstract or "")
    assert any(note.startswith("claim_judge: rules:") for note in artifact.frontmatter.triangulation.notes)


async def test_paper_never_substitutes_another_paper(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    # The review supports the claim, but the named paper is about shift scheduling.
    citation, report = await _cite(SUPPORTED, gateway, settings, project, paper=UNRELATED)
    assert citation is None and isinstance(report, NoSupportingExcerpts), report
    assert report.candidate["doi"] == UNRELATED and report.judge and report.judge.startswith("rules:")
    assert not (project / "docs").exists()


async def test_an_unknown_paper_is_not_found_not_replaced(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite(SUPPORTED, gateway, settings, project, paper="10.5555/nowhere.404")
    assert citation is None and isinstance(report, PaperNotFound), report
    assert report.paper == "10.5555/nowhere.404" and "semantic_scholar" in report.asked


async def test_a_malformed_paper_id_is_a_usage_error(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    with pytest.raises(ValueError, match="not a DOI, an arXiv id or a PMID"):
        await _cite(SUPPORTED, gateway, settings, project, paper="the mask paper")


async def test_a_cited_sentence_is_judged_against_its_paper(
    gateway: SourceGateway, settings: Settings
) -> None:
    against = await check_cited_claim(
        CONTRADICTED, TRIAL, gateway=gateway, settings=settings, judge=RuleJudge()
    )
    assert against.status == "contradicted" and against.excerpt and "45%" in against.excerpt["text"]
    agrees = await check_cited_claim(SUPPORTED, REVIEW, gateway=gateway, settings=settings, judge=RuleJudge())
    assert agrees.status == "supported", agrees
    missing = await check_cited_claim(SUPPORTED, "10.5555/nowhere.404", gateway=gateway, settings=settings)
    assert missing.status == "paper_not_found"


async def test_the_sentences_citing_one_paper_share_one_fetch_of_its_text(
    gateway: SourceGateway, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aletheia.pipeline.claims import stages as claim_stages

    fetches: list[str] = []
    real = claim_stages.fetch_paper_text

    async def counted(gw: Any, record: Any, **kw: Any) -> Any:
        fetches.append(record.doi or record.title or "")
        return await real(gw, record, **kw)

    monkeypatch.setattr(claim_stages, "fetch_paper_text", counted)
    texts: dict[str, Any] = {}
    first = await check_cited_claim(
        CONTRADICTED, TRIAL, gateway=gateway, settings=settings, judge=RuleJudge(), texts=texts
    )
    second = await check_cited_claim(
        SUPPORTED, TRIAL, gateway=gateway, settings=settings, judge=RuleJudge(), texts=texts
    )
    assert first.status == "contradicted" and second.status != "unchecked"
    assert len(fetches) == 1, fetches  # one download and conversion for both sentences
    # Without a shared memo (a single `cite --paper`), each call fetches.
    await check_cited_claim(SUPPORTED, TRIAL, gateway=gateway, settings=settings, judge=RuleJudge())
    assert len(fetches) == 2


async def test_the_readme_example_is_cited_when_searching(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    # README's `aletheia cite "Transformers dispense with recurrence entirely"` (issue 29): the
    # paper's "We introduce the Transformer ..., dispensing with recurrence and convolution
    # entirely" states the claim; it is not an aim or a hypothesis.
    citation, path = await _cite("Transformers dispense with recurrence entirely", gateway, settings, project)
    assert citation is not None, path
    assert citation.record.doi == "10.5555/sanc.2017.42"
    artifact = parse_artifact(path.read_text(encoding="utf-8"))
    assert "dispensing with recurrence" in artifact.body.excerpts[0].text


async def test_a_search_does_not_cite_a_paper_about_another_protein(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    # The RIG-I paper holds every other word of the claim; MDA5 is its key term (issue 29).
    citation, report = await _cite("MDA5 has two N-terminal CARD domains", gateway, settings, project)
    assert citation is None and isinstance(report, NoSupportingExcerpts), report
    assert any("key_term_absent: MDA5" in " ".join(row["reasons"]) for row in report.judgements)
    assert not (project / "docs").exists()
