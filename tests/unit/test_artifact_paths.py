"""Artifact slugs and paths never leave docs/citations/: parent references, absolute paths, path
separators, odd Unicode, and symlinks planted in the repository are all refused by the writer, and
nothing is written anywhere else."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia.core.artifacts import (
    ArtifactPathError,
    CitationArtifact,
    Triangulation,
    artifact_path,
    frontmatter_from_record,
    validate_slug,
)
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.render import body_from_record
from aletheia.pipeline.claims.verify_and_cite import write_citation_artifact

HOSTILE_SLUGS = [
    "../escape",
    "../../etc/passwd",
    "/etc/passwd",
    "a/b",
    "a\\b",
    "..",
    ".",
    ".hidden",
    "a\x00b",
    "ok\n",
    "ﬁle",  # a ligature that NFKC folds to "file"
    "ＡＢＣ",  # fullwidth letters
    "a\u2215b",  # DIVISION SLASH, looks like "/"
    "a\u2044b",  # FRACTION SLASH
    "a\u202eb",  # RIGHT-TO-LEFT OVERRIDE
    "café",
    "con",
    "nul",
    "trailing.",
    "a" * 200,
    "C:\\windows",
    "~/x",
    "%2e%2e%2fx",
]


def artifact() -> CitationArtifact:
    record = WorkRecord(
        source=SourceName.CROSSREF,
        title="Seasonal variation in glacier retreat",
        authors=(Author(given="Imani", family="Okafor"),),
        year=2019,
        doi="10.5555/paths.1",
    )
    front = frontmatter_from_record(
        record,
        sources_consulted=[SourceName.CROSSREF, SourceName.OPENALEX],
        triangulation=Triangulation(
            primary_source=SourceName.CROSSREF,
            secondary_source=SourceName.OPENALEX,
            decisive_fields_agreed=True,
        ),
        verified_at=datetime(2026, 1, 2, tzinfo=UTC),
        verification_version="1.1.0",
    )
    return CitationArtifact(frontmatter=front, body=body_from_record(record, []))


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*") if p.is_file() or p.is_symlink()}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and, beside it, a directory that must never be written to."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (outside / "victim.md").write_text("untouched\n")
    return repo, outside


@pytest.mark.parametrize("slug", HOSTILE_SLUGS)
def test_hostile_slugs_are_refused_and_nothing_is_written(slug: str, layout: tuple[Path, Path]) -> None:
    repo, outside = layout
    with pytest.raises(ArtifactPathError):
        validate_slug(slug)
    with pytest.raises(ArtifactPathError):
        write_citation_artifact(repo, artifact(), slug=slug)
    assert files_under(repo) == set()
    assert (outside / "victim.md").read_text() == "untouched\n"


def test_an_empty_slug_is_refused_and_the_writer_derives_its_own(layout: tuple[Path, Path]) -> None:
    repo, _ = layout
    with pytest.raises(ArtifactPathError):
        validate_slug("")
    path = write_citation_artifact(repo, artifact(), slug="")
    assert path.parent == (repo / "docs" / "citations").resolve()


def test_a_good_slug_lands_in_docs_citations(layout: tuple[Path, Path]) -> None:
    repo, _ = layout
    path = write_citation_artifact(repo, artifact(), slug="okafor2019seasonal")
    assert path == (repo / "docs" / "citations" / "okafor2019seasonal.md").resolve()
    assert files_under(repo) == {path}


@pytest.mark.parametrize("link", ["docs", "docs/citations"])
def test_a_symlinked_directory_is_refused(link: str, layout: tuple[Path, Path]) -> None:
    repo, outside = layout
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    (repo / link).symlink_to(outside, target_is_directory=True)
    with pytest.raises(ArtifactPathError, match="symbolic link"):
        write_citation_artifact(repo, artifact(), slug="okafor2019seasonal")
    assert {p.name for p in outside.iterdir()} == {"victim.md"}


def test_an_existing_artifact_that_is_a_symlink_is_not_written_through(layout: tuple[Path, Path]) -> None:
    repo, outside = layout
    citations = repo / "docs" / "citations"
    citations.mkdir(parents=True)
    (citations / "okafor2019seasonal.md").symlink_to(outside / "victim.md")
    with pytest.raises(ArtifactPathError, match="symbolic link"):
        write_citation_artifact(repo, artifact(), slug="okafor2019seasonal")
    assert (outside / "victim.md").read_text() == "untouched\n"


def test_a_dangling_symlink_is_not_followed_to_create_a_file(layout: tuple[Path, Path]) -> None:
    repo, outside = layout
    citations = repo / "docs" / "citations"
    citations.mkdir(parents=True)
    (citations / "okafor2019seasonal.md").symlink_to(outside / "created-by-us.md")
    with pytest.raises(ArtifactPathError):
        write_citation_artifact(repo, artifact(), slug="okafor2019seasonal")
    assert not (outside / "created-by-us.md").exists()


def test_the_citations_directory_must_be_a_safe_relative_path() -> None:
    for bad in ("/abs", "../up", "docs/../..", "docs//citations", "docs/./citations", "docs/ci tations"):
        with pytest.raises(ArtifactPathError):
            artifact_path("okafor2019seasonal", bad)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(slug=st.text(min_size=1, max_size=40) | st.from_regex(r"[a-z0-9._/\\-]{1,20}", fullmatch=True))
def test_any_slug_is_refused_or_written_inside_docs_citations(
    slug: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo = tmp_path_factory.mktemp("repo")
    try:
        path = write_citation_artifact(repo, artifact(), slug=slug)
    except ArtifactPathError:
        assert files_under(repo) == set()
        return
    citations = (repo / "docs" / "citations").resolve()
    assert path.parent == citations and path.name == f"{slug}.md"
    assert os.path.commonpath([path.resolve(), citations]) == str(citations)
