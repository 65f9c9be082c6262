"""`aletheia check` (links to artifacts) and `aletheia audit` (drift), and safe artifact writing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.artifact_overrides import override_note
from aletheia.core.artifacts import (
    ArtifactPathError,
    CitationArtifact,
    Excerpt,
    OverriddenConflict,
    Triangulation,
    frontmatter_from_record,
)
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.render import body_from_record
from aletheia.pipeline.artifact_checks.drift_check import audit_existing_citations
from aletheia.pipeline.artifact_checks.link_check import check_citations
from aletheia.pipeline.claims.verify_and_cite import write_citation_artifact
from aletheia.sources.base import SourceRecord, TransientSourceError

NOW = datetime(2026, 5, 23, 12, 0, tzinfo=UTC)
WORK = WorkRecord(
    source=SourceName.SEMANTIC_SCHOLAR,
    title="Lichen Growth Rates on Granite Tombstones",
    authors=(Author(given="Ewa", family="Nowicka"), Author(given="Sam", family="Ortega")),
    year=2018,
    venue="Lichenology Letters Simulated",
    doi="10.5555/lls.2018.5",
    abstract="Lichens grow about half a millimetre per year on granite.",
)
SLUG = "10.5555_lls.2018.5-nowicka-lichen"


def artifact(verified_at: datetime = NOW, work: WorkRecord = WORK) -> CitationArtifact:
    front = frontmatter_from_record(
        work,
        sources_consulted=[SourceName.SEMANTIC_SCHOLAR, SourceName.OPENALEX],
        triangulation=Triangulation(
            primary_source=SourceName.SEMANTIC_SCHOLAR,
            secondary_source=SourceName.OPENALEX,
            decisive_fields_agreed=True,
            decisive_fields_checked=["doi", "title", "first_author_surname", "year"],
        ),
        verified_at=verified_at,
        verification_version="1.0",
        claim_supported="Lichens grow slowly on granite",
    )
    excerpts = [
        Excerpt(text="Lichens grow about half a millimetre per year on granite.", location="Abstract")
    ]
    return CitationArtifact(frontmatter=front, body=body_from_record(work, excerpts))


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_citation_artifact(tmp_path, artifact())
    write(
        tmp_path,
        "src/lichen.py",
        f"# research(2026-05): lichen growth\n# see docs/citations/{SLUG}.md\nx = 1\n",
    )
    write(
        tmp_path,
        "README.md",
        f"Lichens grow slowly[^l].\n\n[^l]: See [docs/citations/{SLUG}.md] for the source.\n",
    )
    return tmp_path


def kinds(root: Path, **options: Any) -> list[str]:
    return [p.kind for p in check_citations(root, now=NOW, **options).problems]


def test_a_clean_repository_passes(repo: Path) -> None:
    report = check_citations(repo, now=NOW)
    assert report.ok and report.exit_code() == 0
    assert report.references == 2 and report.artifacts_checked == 1


def test_missing_artifact(repo: Path) -> None:
    write(repo, "src/other.py", "# see docs/citations/1902.06156-baruch-alie.md\n")
    report = check_citations(repo, now=NOW)
    assert [(p.path, p.line, p.kind) for p in report.problems] == [("src/other.py", 1, "missing")]
    assert report.exit_code() == 1


def test_research_comment_without_a_link(repo: Path) -> None:
    write(repo, "src/bad.py", "x = 1\n# research: a claim with no artifact\ndef f():\n    pass\n")
    assert kinds(repo) == ["unlinked_research_comment"]
    write(repo, "src/bad.py", "# research: shown in docs  aletheia-check: ignore\n")
    assert kinds(repo) == []


def test_stale_and_retracted_artifacts(repo: Path) -> None:
    write_citation_artifact(repo, artifact(verified_at=NOW - timedelta(days=400)))
    assert kinds(repo) == ["stale", "stale"]
    assert kinds(repo, max_age_days=500) == []
    front = artifact().frontmatter.model_copy(update={"retraction_status": RetractionKind.RETRACTED})
    write_citation_artifact(repo, CitationArtifact(frontmatter=front, body=artifact().body), slug=SLUG)
    assert kinds(repo) == ["retracted", "retracted"]


def test_invalid_artifact_and_symlink(repo: Path) -> None:
    path = repo / "docs" / "citations" / f"{SLUG}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("year: 2018", "year: twenty"), encoding="utf-8")
    assert set(kinds(repo)) == {"invalid"}
    path.unlink()
    path.symlink_to(repo / "README.md")
    assert set(kinds(repo)) == {"symlink"}


def test_bad_slug_and_exclusions(repo: Path) -> None:
    write(repo, "docs/citations/README.md", "What this directory holds.")
    assert kinds(repo) == []
    write(repo, "docs/citations/con.md", "x")
    assert kinds(repo) == ["bad_slug"]
    write(repo, "vendor/x.py", "# see docs/citations/nothing-here.md\n")
    assert "missing" not in kinds(repo, exclude=["vendor/*"])


def test_hidden_and_vendored_directories_are_not_scanned(repo: Path) -> None:
    write(repo, ".git/x", "docs/citations/missing-one.md")
    write(repo, "node_modules/p/index.js", "// see docs/citations/missing-two.md")
    assert kinds(repo) == []


# --- writing -------------------------------------------------------------------------------------------


def test_writing_refuses_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "citations").symlink_to(outside)
    with pytest.raises(ArtifactPathError, match="symbolic link"):
        write_citation_artifact(root, artifact())
    assert list(outside.iterdir()) == []
    (root / "docs" / "citations").unlink()
    (root / "docs" / "citations").mkdir()
    (root / "docs" / "citations" / f"{SLUG}.md").symlink_to(outside / "target.md")
    with pytest.raises(ArtifactPathError, match="symbolic link"):
        write_citation_artifact(root, artifact())
    with pytest.raises(ArtifactPathError):
        write_citation_artifact(root, artifact(), slug="../escape")


def test_writing_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = write_citation_artifact(tmp_path, artifact())
    path2 = write_citation_artifact(tmp_path, artifact())
    assert path == path2 == tmp_path / "docs" / "citations" / f"{SLUG}.md"
    assert [p.name for p in path.parent.iterdir()] == [f"{SLUG}.md"]


# --- audit ----------------------------------------------------------------------------------------------


@dataclass
class _Lookup:
    answer: WorkRecord | Exception | None

    async def __call__(self, *args: Any) -> SourceRecord | None:
        if isinstance(self.answer, Exception):
            raise self.answer
        return None if self.answer is None else SourceRecord(self.answer, {}, NOW)


class _Client:
    def __init__(self, answer: WorkRecord | Exception | None) -> None:
        self.work_by_doi = _Lookup(answer)
        self.by_id = _Lookup(answer)


class FakeGateway:
    def __init__(self, openalex: Any, crossref: Any) -> None:
        self.openalex = _Client(openalex)
        self.crossref = _Client(crossref)

    def retraction_notices(self, cited: Any, records: Any) -> list[RetractionNotice]:
        return []

    def stats(self) -> dict[str, Any]:
        """No source of this fake is turned off (what a bibliography item notes, `item_stats`)."""
        return {}


def drift_kinds(report: Any) -> list[str]:
    return [d.kind for a in report.artifacts for d in a.drifts]


async def test_audit_without_drift(repo: Path) -> None:
    same = WORK.model_copy(update={"source": SourceName.OPENALEX})
    report = await audit_existing_citations(
        repo, FakeGateway(same, same.model_copy(update={"source": SourceName.CROSSREF}))
    )
    assert drift_kinds(report) == [] and report.exit_code() == 0
    assert report.artifacts[0].sources_checked == ["openalex", "crossref"]


async def test_audit_reports_each_kind_of_drift(repo: Path) -> None:
    corrected = WORK.model_copy(
        update={
            "source": SourceName.OPENALEX,
            "authors": (Author(given="Ewa", family="Nowak"),),
            "year": 2019,
            "retraction_notices": (
                RetractionNotice(kind=RetractionKind.RETRACTED, source=SourceName.OPENALEX),
            ),
        }
    )
    elsewhere = WorkRecord(
        source=SourceName.CROSSREF, title="Sea Ice Albedo Feedbacks", doi=WORK.doi, year=2018
    )
    report = await audit_existing_citations(repo, FakeGateway(corrected, elsewhere))
    assert sorted(drift_kinds(report)) == [
        "doi_resolves_elsewhere",
        "first_author_changed",
        "retracted",
        "year_changed",
    ]
    assert report.exit_code() == 1


async def test_audit_not_found_and_unreachable(repo: Path) -> None:
    report = await audit_existing_citations(
        repo, FakeGateway(None, TransientSourceError("crossref", "HTTP 503"))
    )
    assert drift_kinds(report) == ["identifier_not_found", "unreachable"]
    assert report.exit_code() == 1
    only_unreachable = await audit_existing_citations(
        repo,
        FakeGateway(
            TransientSourceError("openalex", "down"), WORK.model_copy(update={"source": SourceName.CROSSREF})
        ),
    )
    assert drift_kinds(only_unreachable) == ["unreachable"] and only_unreachable.exit_code() == 3


# --- accepted overrides (issue 29) -----------------------------------------------------------------


def overridden_artifact(*, structured: bool = True) -> CitationArtifact:
    """The lichen artifact accepted past a first-author conflict: Semantic Scholar said Nowicka,
    OpenAlex said Nowak, and a human decided (older artifacts kept it as a note only)."""
    accepted = OverriddenConflict(
        field="first_author_surname", source=SourceName.OPENALEX, recorded="Nowicka", accepted="Nowak"
    )
    plain = artifact()
    front = plain.frontmatter.model_copy(
        update={
            "human_overridden": True,
            "override_reason": "OpenAlex merged two authors; the paper's PDF says Nowicka",
            "overridden_conflicts": [accepted] if structured else [],
            "triangulation": plain.frontmatter.triangulation.model_copy(
                update={
                    "decisive_fields_agreed": False,
                    "notes": [override_note(accepted, SourceName.SEMANTIC_SCHOLAR)],
                }
            ),
        }
    )
    return plain.model_copy(update={"frontmatter": front})


def now_says(**update: Any) -> WorkRecord:
    return WORK.model_copy(update={"source": SourceName.OPENALEX, **update})


NOWAK = (Author(given="Ewa", family="Nowak"), Author(given="Sam", family="Ortega"))


@pytest.mark.parametrize("structured", [True, False], ids=["overridden_conflicts", "legacy_notes"])
async def test_an_accepted_override_is_not_drift(tmp_path: Path, structured: bool) -> None:
    write_citation_artifact(tmp_path, overridden_artifact(structured=structured))
    same = now_says(authors=NOWAK)
    report = await audit_existing_citations(
        tmp_path, FakeGateway(same, same.model_copy(update={"source": SourceName.CROSSREF}))
    )
    assert drift_kinds(report) == [] and report.exit_code() == 0
    (audited,) = report.artifacts
    assert [(a.kind, a.source, a.current) for a in audited.accepted] == [
        ("first_author_changed", "openalex", "Nowak"),
        ("first_author_changed", "crossref", "Nowak"),
    ]
    assert "accepted by override: OpenAlex merged two authors" in audited.accepted[0].detail


async def test_real_drift_of_an_overridden_artifact_is_still_reported(tmp_path: Path) -> None:
    write_citation_artifact(tmp_path, overridden_artifact())
    # The accepted disagreement stays accepted; the year is new drift.
    report = await audit_existing_citations(
        tmp_path, FakeGateway(now_says(authors=NOWAK, year=2020), now_says(authors=NOWAK))
    )
    assert drift_kinds(report) == ["year_changed"] and report.exit_code() == 1
    assert len(report.artifacts[0].accepted) == 2
    # A source now naming a third first author is not what was accepted.
    third = (Author(given="Ewa", family="Kowalska"),)
    report = await audit_existing_citations(
        tmp_path, FakeGateway(now_says(authors=third), now_says(authors=NOWAK))
    )
    assert drift_kinds(report) == ["first_author_changed"]
    assert report.artifacts[0].drifts[0].current == "Kowalska"


async def test_an_artifact_without_override_still_drifts_on_the_same_answer(repo: Path) -> None:
    report = await audit_existing_citations(repo, FakeGateway(now_says(authors=NOWAK), None))
    assert sorted(drift_kinds(report)) == ["first_author_changed", "identifier_not_found"]
    assert report.artifacts[0].accepted == []
