"""Citation artifacts given as input (issue 29): one reference, the work the artifact cites, not a
Markdown list whose "references" are its frontmatter's author names; and their CSL-JSON export."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.core.artifacts import (
    CitationArtifact,
    Excerpt,
    OverriddenConflict,
    Triangulation,
    frontmatter_from_record,
    render_artifact,
    slug_for_record,
)
from aletheia.core.bibliography import InputFormat, InputProblem, detect_format, parse_text
from aletheia.core.bibliography.csl_json import iter_csl_json
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.render import body_from_record
from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.reports.artifact_csl import artifact_csl_item, export_artifacts

NOW = datetime(2026, 5, 23, 17, 42, tzinfo=UTC)
PREPRINT = WorkRecord(
    source=SourceName.ARXIV,
    title="SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning",
    authors=(
        Author(given="Heyi", family="Zhang"),
        Author(given="Yule", family="Liu"),
        Author(given="Xinlei", family="He"),
    ),
    year=2025,
    arxiv_id="2502.03801",
    is_preprint=True,
    work_type="preprint",
    abstract="We evaluate 15 representative poisoning attacks in a unified benchmark.",
)
ARTICLE = WorkRecord(
    source=SourceName.SEMANTIC_SCHOLAR,
    title="Lichen Growth Rates on Granite Tombstones",
    authors=(Author(given="Ewa", family="Nowicka"), Author(given="Sam", family="Ortega")),
    year=2018,
    venue="Lichenology Letters",
    doi="10.5555/lls.2018.5",
    pmid="31452104",
    work_type="journal-article",
    abstract="Lichens grow about half a millimetre per year on granite.",
)


def artifact_of(record: WorkRecord, *, override: str | None = None) -> CitationArtifact:
    secondary = SourceName.OPENALEX
    front = frontmatter_from_record(
        record,
        sources_consulted=[record.source, secondary],
        triangulation=Triangulation(
            primary_source=record.source,
            secondary_source=secondary,
            decisive_fields_agreed=override is None,
        ),
        verified_at=NOW,
        verification_version="1.0",
        claim_supported="A claim the abstract bears out",
        human_overridden=override is not None,
        override_reason=override,
        overridden_conflicts=[
            OverriddenConflict(field="year", source=secondary, recorded="2018", accepted="2019")
        ]
        if override
        else None,
    )
    excerpt = Excerpt(text=record.abstract or "", location="Abstract")
    return CitationArtifact(frontmatter=front, body=body_from_record(record, [excerpt]))


@pytest.mark.parametrize("name", ["docs/citations/x.md", "notes.txt", None, "refs.bib"])
def test_an_artifact_is_detected_by_its_content(name: str | None) -> None:
    text = render_artifact(artifact_of(PREPRINT))
    assert detect_format(text, name) is InputFormat.ARTIFACT
    assert detect_format("\ufeff" + text, name) is InputFormat.ARTIFACT


def test_other_front_matter_is_still_markdown() -> None:
    jekyll = "---\nlayout: post\ntitle: Reading list\n---\n\n# References\n\n- Smith, J. (2020). A title.\n"
    assert detect_format(jekyll, "list.md") is InputFormat.MARKDOWN
    # The keys must be in the frontmatter, not later in the text.
    later = "---\ntitle: x\n---\n\nsources_consulted: [a]\ntriangulation: b\n"
    assert detect_format(later, "x.md") is InputFormat.MARKDOWN


def test_an_artifact_reads_as_the_work_it_cites() -> None:
    slug = slug_for_record(PREPRINT)
    text = render_artifact(artifact_of(PREPRINT))
    (reference,) = parse_text(text, origin=f"docs/citations/{slug}.md")
    assert isinstance(reference, CitedReference)
    assert reference.key == slug == "2502.03801-zhang-sok"
    assert reference.title == PREPRINT.title
    assert [a.family for a in reference.authors] == ["Zhang", "Liu", "He"]
    assert (reference.year, reference.arxiv_id, reference.doi) == (2025, "2502.03801", None)
    assert reference.venue == "arXiv preprint" and reference.entry_type == "article"
    assert reference.url == "https://arxiv.org/abs/2502.03801"
    assert reference.heuristic_fields == ()  # read from the schema, not guessed
    (published,) = parse_text(render_artifact(artifact_of(ARTICLE)), origin="odd name.md")
    assert isinstance(published, CitedReference)
    assert published.key == "10.5555_lls.2018.5-nowicka-lichen"  # not a slug: the work's own
    assert (published.doi, published.pmid, published.venue) == (
        "10.5555/lls.2018.5",
        "31452104",
        "Lichenology Letters",
    )


def test_an_artifact_that_no_longer_parses_falls_back_to_its_bibtex() -> None:
    text = render_artifact(artifact_of(PREPRINT)).replace("year: 2025", "year: twenty-five", 1)
    problem, reference = list(parse_text(text, origin="broken.md"))
    assert isinstance(problem, InputProblem) and "citation artifact does not parse" in problem.message
    assert "year" in problem.message
    assert isinstance(reference, CitedReference) and reference.title == PREPRINT.title
    assert reference.arxiv_id == "2502.03801"


def test_verify_reads_an_artifact_file_as_one_reference(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "citations" / "2502.03801-zhang-sok.md"
    path.parent.mkdir(parents=True)
    path.write_text(render_artifact(artifact_of(PREPRINT)), encoding="utf-8")
    (reference,) = iter_references([str(path)], stdin=None, max_bytes=1 << 20)
    assert isinstance(reference, CitedReference) and reference.title == PREPRINT.title
    assert not any(reference.title == name for name in ("Heyi Zhang", "Yule Liu"))


# --- CSL-JSON export (seed 000 §11) ---------------------------------------------------------------


def test_an_artifact_exports_as_a_csl_item_that_reads_back_as_the_same_work() -> None:
    for record in (PREPRINT, ARTICLE):
        slug = slug_for_record(record)
        item = artifact_csl_item(artifact_of(record), slug)
        (again,) = iter_csl_json(json.dumps([item]), origin="export.json")
        assert isinstance(again, CitedReference)
        assert again.key == slug and again.title == record.title
        assert [a.family for a in again.authors] == [a.family for a in record.authors]
        assert (again.year, again.doi, again.arxiv_id, again.pmid) == (
            record.year,
            record.doi,
            record.arxiv_id,
            record.pmid,
        )
    preprint = artifact_csl_item(artifact_of(PREPRINT), "p")
    assert preprint["type"] == "article" and preprint["number"] == "arXiv:2502.03801"
    assert "container-title" not in preprint
    assert preprint["author"][0] == {"family": "Zhang", "given": "Heyi"}
    article = artifact_csl_item(artifact_of(ARTICLE, override="S2 has the wrong year"), "a")
    assert article["type"] == "article-journal" and article["container-title"] == "Lichenology Letters"
    assert article["URL"] == "https://doi.org/10.5555/lls.2018.5"
    assert article["note"] == (
        "aletheia citation artifact docs/citations/a.md; verified 2026-05-23 by aletheia"
        " (semantic_scholar, openalex); human override: S2 has the wrong year"
    )


def test_a_csl_item_keeps_the_dates_links_and_names_of_the_work() -> None:
    preprint = artifact_csl_item(artifact_of(PREPRINT), "p")
    assert preprint["issued"] == {"date-parts": [[2025]]}
    assert preprint["URL"] == "https://arxiv.org/abs/2502.03801"
    assert (preprint["archive"], preprint["archive_location"]) == ("arXiv", "2502.03801")
    named = ARTICLE.model_copy(
        update={
            "authors": (
                *ARTICLE.authors,
                Author(literal="The ATLAS Collaboration"),
                Author(family="Smith", suffix="Jr."),
            )
        }
    )
    item = artifact_csl_item(artifact_of(named), "a")
    assert (item["DOI"], item["PMID"]) == ("10.5555/lls.2018.5", "31452104")
    atlas, smith = item["author"][-2:]
    assert (atlas, smith) == ({"literal": "The ATLAS Collaboration"}, {"family": "Smith", "suffix": "Jr."})
    # A published arXiv work is cited in its venue, with its arXiv id kept as the archive.
    published = PREPRINT.model_copy(
        update={"venue": "IEEE S&P", "work_type": "proceedings-article", "is_preprint": False}
    )
    item = artifact_csl_item(artifact_of(published), "s")
    assert (item["type"], item["container-title"]) == ("paper-conference", "IEEE S&P")
    assert "publisher" not in item and item["archive_location"] == "2502.03801"


@pytest.mark.parametrize(
    ("record", "csl_type"),
    [
        (ARTICLE, "article-journal"),
        (ARTICLE.model_copy(update={"work_type": "proceedings-article"}), "paper-conference"),
        (ARTICLE.model_copy(update={"work_type": "book"}), "book"),
        (ARTICLE.model_copy(update={"work_type": "book-chapter"}), "chapter"),
        (ARTICLE.model_copy(update={"work_type": "report"}), "report"),
        (ARTICLE.model_copy(update={"work_type": "thesis"}), "thesis"),
        (ARTICLE.model_copy(update={"work_type": "other"}), "document"),
        (PREPRINT, "article"),
    ],
)
def test_the_csl_type_follows_the_artifacts_entry_type(record: WorkRecord, csl_type: str) -> None:
    """The work type decides the artifact's BibTeX entry type, and that one CSL's type
    (`reports/entry.CSL_TYPES`, the one map every CSL-JSON export uses)."""
    item = artifact_csl_item(artifact_of(record), "x")
    assert item["type"] == csl_type
    assert json.loads(json.dumps(item)) == item


def test_aletheia_csl_exports_a_repository(tmp_path: Path) -> None:
    from aletheia.producers.cli import main

    folder = tmp_path / "docs" / "citations"
    folder.mkdir(parents=True)
    for record in (ARTICLE, PREPRINT):
        (folder / f"{slug_for_record(record)}.md").write_text(render_artifact(artifact_of(record)))
    (folder / "README.md").write_text("# Citations\n")
    runner = CliRunner()
    done = runner.invoke(main, ["csl", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert [item["id"] for item in json.loads(done.stdout)] == [
        "10.5555_lls.2018.5-nowicka-lichen",
        "2502.03801-zhang-sok",
    ]
    (folder / "zz-broken.md").write_text("---\ntitle: x\n---\n")
    out = tmp_path / "refs.json"
    partial = runner.invoke(main, ["csl", str(folder), "-o", str(out)])
    assert partial.exit_code == 1 and "zz-broken.md" in partial.stderr
    assert len(json.loads(out.read_text())) == 2
    assert len(export_artifacts([folder / "2502.03801-zhang-sok.md"]).items) == 1
