"""Paper-mill signals from a cited work's full text (issue 13): the text the full-text chain
already fetched for excerpts (here Europe PMC's JATS, from the simulator) feeds the heuristics,
with its sections for the methods indicator, and no request is added."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.artifacts import parse_artifact
from aletheia.core.excerpts import PaperText, TextBlock
from aletheia.core.paper_mill import work_text_of_paper
from aletheia.core.records import SourceName, WorkRecord
from aletheia.pipeline.claims.reasoner import LexicalReasoner
from aletheia.pipeline.claims.verify_and_cite import outcome_as_dict, verify_and_cite
from aletheia.pipeline.documents.fulltext_signals import cited_text_signals
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from tests.unit.test_pmc_fulltext import gateway, settings  # noqa: F401  (fixtures, on this module's sim)

NOW = datetime(2026, 5, 23, 17, 42, tzinfo=UTC)
RESULT = (
    "An irregular woodland classifier found bosom peril in mammography pictures of four hundred women "
    "with a sensitivity of ninety percent."
)
# A paper-mill paper in the style the published lists document (constructed): one tortured phrase
# in the abstract (alone it says nothing), a second one in the body, and no methods-like section.
SPUN: dict[str, Any] = {
    "title": "Breast lesion detection in screening mammography with ensemble classifiers",
    "authors": [{"given": "Rana", "family": "Halvorsen"}],
    "year": 2022,
    "venue": "Journal of Screening Imaging Reports",
    "doi": "10.5555/spun.2022.3",
    "pmid": "33000888",
    "pmcid": "PMC8000888",
    "abstract": (
        "An irregular woodland classifier found lesions in mammography pictures of four hundred women."
    ),
    "pmc_body": [
        {"title": "Introduction", "paragraphs": ["Profound learning has changed the reading of mammograms."]},
        {"title": "Results", "paragraphs": [RESULT]},
        {"title": "Discussion", "paragraphs": ["The outcomes are promising for screening programmes."]},
    ],
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe([SimWork.model_validate(SPUN)]), SimulatorConfig.unlimited()) as server:
        yield server


def _paper(origin: Any, *sections: tuple[str | None, str]) -> PaperText:
    return PaperText(blocks=tuple(TextBlock(text=t, section=s) for s, t in sections), origin=origin)


def test_the_full_texts_sections_and_body_are_read() -> None:
    paper = _paper(
        "pmc_jats", ("Introduction", "Profound learning."), ("Results", RESULT), ("Discussion", "x")
    )
    text = work_text_of_paper(paper, title="A title", abstract="An abstract.")
    assert set(text.parts) == {"title", "abstract", "full_text"}
    assert text.headings == ("Introduction", "Results", "Discussion")
    # A converter that named no sections: the headings found in the text itself.
    plain = _paper("pdf_text", (None, "1 Introduction\nText.\n2 Results\nMore.\n3 Discussion\nEnd."))
    assert work_text_of_paper(plain).headings == ("1 Introduction", "2 Results", "3 Discussion")
    # The abstract fallback is no full text: no headings, so no methods indicator.
    fallback = work_text_of_paper(_paper("abstract", ("Abstract", "An abstract.")))
    assert fallback.headings is None and "full_text" not in fallback.parts


def test_the_cited_works_text_fires_where_title_and_abstract_do_not() -> None:
    record = WorkRecord(source=SourceName.OPENALEX, title=SPUN["title"], abstract=SPUN["abstract"])
    paper = _paper(
        "pmc_jats", ("Introduction", "Profound learning."), ("Results", RESULT), ("Discussion", "x")
    )
    [signal] = cited_text_signals(record, paper)
    assert signal["kind"] == "ai_generated_suspect"
    ev = signal["evidence"]
    assert set(ev["indicators"]) == {"tortured_phrases", "no_methods_section"}
    assert {p["phrase"] for p in ev["tortured_phrases"]} >= {"irregular woodland", "bosom peril"}
    assert {p["phrase"]: p["where"] for p in ev["tortured_phrases"]}["bosom peril"] == ["full_text"]
    assert cited_text_signals(record, _paper("abstract", ("Abstract", SPUN["abstract"]))) == []
    assert cited_text_signals(record, None) == []


async def test_a_suggested_citation_carries_the_signal_of_its_fetched_text(
    gateway: SourceGateway,  # noqa: F811
    settings: Settings,  # noqa: F811
    sim: SimulatorServer,
    tmp_path: Path,
) -> None:
    claim = "An irregular woodland classifier found bosom peril in mammography pictures of four hundred women"
    citation, path = await verify_and_cite(
        claim, project_root=tmp_path, gateway=gateway, settings=settings, reasoner=LexicalReasoner(), now=NOW
    )
    assert citation is not None, path
    [signal] = citation.signals
    assert signal["kind"] == "ai_generated_suspect" and "full_text" in signal["evidence"]["checked"]
    artifact = parse_artifact(await asyncio.to_thread(Path(path).read_text, encoding="utf-8"))
    notes = artifact.frontmatter.triangulation.notes
    assert "full_text: pmc_jats" in notes
    assert any(n.startswith("signal ai_generated_suspect: tortured phrases") for n in notes)
    assert outcome_as_dict((citation, path))["signals"] == [signal]
    # The check read the text fetched for the excerpts: Europe PMC was asked for it once.
    assert sim.source_stats("europe_pmc")["requests"] == 1
