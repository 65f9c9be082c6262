"""Issue 20: `aletheia claims` suggested a citation for another sentence and overwrote the artifact
`aletheia cite` had written for the same paper, claim and all. An artifact is replaced only by one
for the same claim (a refresh); one for another claim is written beside it, unless the caller asks
to replace it (`replace_other_claim`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from aletheia.core.artifacts import (
    CitationArtifact,
    Excerpt,
    Triangulation,
    frontmatter_from_record,
    parse_artifact,
)
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.render import body_from_record
from aletheia.pipeline.claims.verify_and_cite import write_citation_artifact

RECORD = WorkRecord(
    source=SourceName.CROSSREF,
    title="Seasonal variation in glacier retreat",
    authors=(Author(given="Imani", family="Okafor"),),
    year=2019,
    doi="10.5555/paths.1",
)


def artifact(claim: str) -> CitationArtifact:
    front = frontmatter_from_record(
        RECORD,
        sources_consulted=[SourceName.CROSSREF, SourceName.OPENALEX],
        triangulation=Triangulation(
            primary_source=SourceName.CROSSREF,
            secondary_source=SourceName.OPENALEX,
            decisive_fields_agreed=True,
        ),
        verified_at=datetime(2026, 1, 2, tzinfo=UTC),
        verification_version="1.0",
        claim_supported=claim,
    )
    excerpt = Excerpt(text="Glaciers retreated faster in warm seasons.", location="Abstract")
    return CitationArtifact(frontmatter=front, body=body_from_record(RECORD, [excerpt]))


def claim_of(path: Path) -> str | None:
    return parse_artifact(path.read_text(encoding="utf-8")).frontmatter.claim_supported


def test_an_artifact_for_another_claim_is_written_beside_it(tmp_path: Path) -> None:
    cited = write_citation_artifact(tmp_path, artifact("Glaciers retreat faster in warm seasons."))
    suggested = write_citation_artifact(tmp_path, artifact("Glacier retreat is seasonal."))
    assert suggested != cited and suggested.parent == cited.parent
    assert claim_of(cited) == "Glaciers retreat faster in warm seasons."
    assert claim_of(suggested) == "Glacier retreat is seasonal."
    # The same claim again replaces its own artifact (a refresh), wherever it was written.
    assert write_citation_artifact(tmp_path, artifact("Glacier retreat is seasonal.")) == suggested
    assert write_citation_artifact(tmp_path, artifact("Glaciers retreat faster in warm seasons.")) == cited
    assert len(list(cited.parent.glob("*.md"))) == 2


def test_replacing_another_claim_is_asked_for(tmp_path: Path) -> None:
    cited = write_citation_artifact(tmp_path, artifact("Glaciers retreat faster in warm seasons."))
    again = write_citation_artifact(
        tmp_path, artifact("Glacier retreat is seasonal."), replace_other_claim=True
    )
    assert again == cited and claim_of(cited) == "Glacier retreat is seasonal."
