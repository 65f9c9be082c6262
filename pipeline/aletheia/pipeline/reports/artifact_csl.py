"""CSL-JSON from citation artifacts (seed 000 §11): `aletheia csl`, so Zotero, pandoc and citeproc
take the verified works directly.

One item per artifact, under its slug (`[@2502.03801-zhang-flpoison]` in pandoc). The identity is
the frontmatter's, verbatim from the sources: title, authors, year, venue (`container-title`),
DOI, PMID, the arXiv id (`archive: arXiv`, `archive_location`, as Zotero writes it; an arXiv
preprint is CSL's `article`, with `number: arXiv:ID`), the abstract, and a URL (arXiv's abs page,
else the record's, else doi.org). The type follows the artifact's BibTeX entry (`CSL_TYPES`).
`note` says where the item comes from and how it was verified (the date, the sources, a
single-source or text-unavailable caveat, a human override and its reason), so the verification
trail travels with the item. Reading an item back (`iter_csl_json`) gives the same work.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aletheia.core.artifacts import ArtifactFormatError, CitationArtifact, parse_artifact
from aletheia.core.bibliography.artifact import reference_from_artifact
from aletheia.pipeline.reports.entry import CSL_TYPES, csl_name

__all__ = ["ArtifactExport", "artifact_csl_item", "export_artifacts"]

CITATIONS_DIR: Final = ("docs", "citations")


def _note(artifact: CitationArtifact, slug: str) -> str:
    front = artifact.frontmatter
    sources = ", ".join(source.value for source in front.sources_consulted)
    parts = [
        f"aletheia citation artifact docs/citations/{slug}.md",
        f"verified {front.verified_at:%Y-%m-%d} by {front.verified_by} ({sources})",
    ]
    if front.single_source_verified:
        parts.append("single-source verified")
    if front.text_excerpts_unavailable:
        parts.append("full text unavailable: excerpts from the abstract")
    if front.human_overridden:
        parts.append(f"human override: {front.override_reason}")
    if front.retraction_status is not None and front.retraction_status.value != "none":
        parts.append(f"the work is {front.retraction_status.value}")
    return "; ".join(parts)


def artifact_csl_item(artifact: CitationArtifact, slug: str) -> dict[str, Any]:
    """One artifact as a CSL-JSON item (see the module docstring)."""
    front = artifact.frontmatter
    # The entry type as `aletheia verify` reads the artifact (its BibTeX block's).
    entry_type = reference_from_artifact(artifact, key=slug, origin=None).entry_type or "article"
    preprint = front.venue == "arXiv preprint"
    item: dict[str, Any] = {
        "id": slug,
        "type": "article" if preprint else CSL_TYPES.get(entry_type, "document"),
        "title": front.title,
    }
    if front.authors:
        item["author"] = [csl_name(name) for name in front.authors]
    if front.year is not None:
        item["issued"] = {"date-parts": [[front.year]]}
    if front.venue and not preprint:
        item["container-title"] = front.venue
    if front.doi:
        item["DOI"] = front.doi
    if front.pmid:
        item["PMID"] = front.pmid
    if front.arxiv_id:
        item["archive"], item["archive_location"] = "arXiv", front.arxiv_id
        if preprint:
            item["publisher"], item["number"] = "arXiv", f"arXiv:{front.arxiv_id}"
    url = front.urls.abs or front.urls.doi
    if url:
        item["URL"] = url
    if artifact.body.abstract:
        item["abstract"] = artifact.body.abstract
    item["note"] = _note(artifact, slug)
    return item


@dataclass
class ArtifactExport:
    """The items of the artifacts read, in path order, and the files that could not be read."""

    items: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _artifact_paths(paths: Iterable[Path]) -> Iterable[Path]:
    """Each path given: an artifact file as it is; a directory as its `docs/citations/*.md` (or,
    when it is itself such a folder, its own `*.md`), README.md, hidden files and symlinks left out."""
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        folder = path.joinpath(*CITATIONS_DIR)
        folder = folder if folder.is_dir() else path
        if folder.is_symlink():
            continue
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            name = entry.name
            artifact_name = name.endswith(".md") and not name.startswith(".") and name.lower() != "readme.md"
            if artifact_name and entry.is_file(follow_symlinks=False):
                yield Path(entry.path)


def export_artifacts(paths: Sequence[Path]) -> ArtifactExport:
    """The CSL-JSON items of the artifacts at `paths` (files, or folders holding docs/citations/)."""
    export = ArtifactExport()
    for path in _artifact_paths(paths):
        try:
            artifact = parse_artifact(path.read_text(encoding="utf-8"))
        except (ArtifactFormatError, UnicodeDecodeError, OSError) as exc:
            export.problems.append(f"{path}: {exc}")
            continue
        export.items.append(artifact_csl_item(artifact, path.stem))
    return export
