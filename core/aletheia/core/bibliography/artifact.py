"""A citation artifact (`docs/citations/{slug}.md`, seed 000 §6) read as what it is: one reference,
the work it cites.

An artifact is Markdown, but reading it as a Markdown reference list takes its frontmatter's
`authors:` list for references (entries titled with author names, issue 29). Its frontmatter is
the cited work's identity verbatim from the sources, so it is read through the artifact schema
(`parse_artifact`): title, authors, year, venue, DOI, arXiv id, PMID, the abs URL, and the entry
type of its BibTeX block. The key is the file's slug.

An artifact that no longer parses (a hand edit broke its schema) is a problem at the file, and its
`## BibTeX` block, when there is one, is read instead, so the work it cites is still checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Final

from aletheia.core.artifact_model import CitationArtifact, record_of_artifact
from aletheia.core.artifact_parse import ArtifactFormatError, parse_artifact
from aletheia.core.artifact_render import H_BIBTEX
from aletheia.core.artifact_slugs import ArtifactPathError, slug_for_record, validate_slug
from aletheia.core.bibliography.bibtex import iter_bibtex
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import CitedReference

__all__ = ["iter_artifact", "reference_from_artifact"]

_ENTRY_TYPE: Final = re.compile(r"^\s*@\s*([A-Za-z]+)\s*[{(]")
# The BibTeX block ends an artifact: only the last `## BibTeX` header is tried (one linear match,
# however many headers a hostile file repeats).
_BIBTEX_BLOCK: Final = re.compile(
    r"[ \t]*\r?\n\s*(?P<fence>`{3,})bibtex[ \t]*\r?\n(?P<code>.*)^(?P=fence)[ \t]*\s*\Z",
    re.DOTALL | re.MULTILINE,
)


def _key(origin: str, artifact: CitationArtifact) -> str:
    """The file's slug when it is one (how the artifact is linked), else the slug of the work."""
    stem = PurePath(origin.replace("\\", "/")).stem
    try:
        return validate_slug(stem)
    except ArtifactPathError:
        return slug_for_record(record_of_artifact(artifact))


def reference_from_artifact(artifact: CitationArtifact, *, key: str, origin: str | None) -> CitedReference:
    """The reference an artifact records: the cited work's identity, as the sources gave it."""
    front = artifact.frontmatter
    record = record_of_artifact(artifact)
    entry_type = _ENTRY_TYPE.match(artifact.body.bibtex)
    return CitedReference(
        key=key,
        entry_type=entry_type.group(1).lower() if entry_type else None,
        title=front.title,
        authors=record.authors,
        year=front.year,
        venue=front.venue,
        doi=front.doi,
        arxiv_id=front.arxiv_id,
        pmid=front.pmid,
        url=front.urls.abs or front.urls.doi,
        origin=origin,
    )


def iter_artifact(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """The one reference of an artifact; a problem (and its BibTeX block's entries) when it does
    not parse."""
    try:
        artifact = parse_artifact(text.lstrip("\ufeff").replace("\r\n", "\n"))
    except ArtifactFormatError as exc:
        yield InputProblem(origin=origin, line=1, message=f"citation artifact does not parse: {exc}")
        header = text.rfind(f"\n{H_BIBTEX}")
        block = _BIBTEX_BLOCK.match(text, header + 1 + len(H_BIBTEX)) if header >= 0 else None
        if block is not None:
            yield from iter_bibtex(iter([block["code"]]), origin=origin)
        return
    yield reference_from_artifact(artifact, key=_key(origin, artifact), origin=origin)
