"""The citation artifact of a proven claim: built from the source's record and the located
excerpts, written atomically under `docs/citations/` and never outside it (no symlink is
followed). Re-exported by `aletheia.pipeline.claims.verify_and_cite`.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Final

from aletheia.core.artifact_overrides import override_note
from aletheia.core.artifacts import (
    ArtifactPathError,
    CitationArtifact,
    Excerpt,
    OverriddenConflict,
    Triangulation,
    artifact_path,
    frontmatter_from_record,
    parse_artifact,
    record_of_artifact,
    render_artifact,
    slug_for_record,
)
from aletheia.core.excerpts import ExcerptMatch
from aletheia.core.records import RetractionKind
from aletheia.core.render import body_from_record
from aletheia.pipeline.atomic_files import write_atomically
from aletheia.pipeline.claims.identity_gate import IdentityCheck

CITATIONS_DIR: Final = "docs/citations"
VERIFICATION_VERSION: Final = "1.0"


# --- the artifact -----------------------------------------------------------------------------------


def build_artifact(
    *,
    claim: str,
    check: IdentityCheck,
    matches: Sequence[ExcerptMatch],
    text_excerpts_unavailable: bool,
    verified_at: datetime,
    retraction: RetractionKind | None = None,
    override_reason: str | None = None,
    extra_notes: Sequence[str] = (),
) -> CitationArtifact:
    """The artifact for a candidate that passed (or, with `override_reason`, was overridden past)
    the gate. Identity fields come from the primary source's record as it is. An override records
    each disagreement it accepted (`overridden_conflicts`, and a note for the reader), so the drift
    audit does not report it again."""
    record = check.primary
    result = check.result
    notes = list(dict.fromkeys([*(result.notes if result else ()), *check.notes, *extra_notes]))
    overridden = (
        [
            OverriddenConflict(
                field=c.field,
                source=c.secondary_source,
                recorded=c.primary_value,
                accepted=c.secondary_value,
            )
            for c in check.conflicts
        ]
        if override_reason is not None
        else []
    )
    notes.extend(override_note(conflict, record.source) for conflict in overridden)
    secondary = check.secondary.record.source if check.secondary is not None else None
    triangulation = Triangulation(
        primary_source=record.source,
        secondary_source=secondary,
        decisive_fields_agreed=check.agreed,
        decisive_fields_checked=list(result.decisive_fields_checked) if result else [],
        notes=[note for note in notes if note.strip()],
    )
    consulted = list(dict.fromkeys([*check.consulted, *([secondary] if secondary else [])]))
    front = frontmatter_from_record(
        record,
        sources_consulted=consulted,
        triangulation=triangulation,
        verified_at=verified_at,
        verification_version=VERIFICATION_VERSION,
        claim_supported=claim,
        human_overridden=override_reason is not None,
        override_reason=override_reason,
        overridden_conflicts=overridden,
        text_excerpts_unavailable=text_excerpts_unavailable,
        retraction_status=retraction,
    )
    # Always quoted: from the full text, or (text_excerpts_unavailable) the abstract's own sentences.
    excerpts = [Excerpt(text=m.text, location=m.location) for m in matches]
    return CitationArtifact(frontmatter=front, body=body_from_record(record, excerpts))


def _refuse_symlinks(root: Path, relative: str) -> Path:
    """`root/relative`, each existing component checked: none may be a symlink or a non-directory."""
    current = root
    for part in relative.split("/"):
        current = current / part
        try:
            mode = current.lstat().st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise ArtifactPathError(f"{current} is a symbolic link; artifacts are never written through one")
        if not stat.S_ISDIR(mode):
            raise ArtifactPathError(f"{current} exists and is not a directory")
    return current


# How many artifacts for one paper, each for another claim, sit beside each other (`-2`, `-3`...).
MAX_CLAIMS_PER_PAPER: Final = 50


def _claim_of(path: Path) -> str | None:
    """The claim an artifact on disk supports, whitespace collapsed ("" when it cannot be read)."""
    try:
        claim = parse_artifact(path.read_text(encoding="utf-8")).frontmatter.claim_supported
    except (OSError, UnicodeDecodeError, ValueError):
        return ""  # unreadable: never taken for ours, so never overwritten
    return " ".join(claim.split()) if claim is not None else None


def _slug_for_claim(directory: Path, slug: str, claim: str | None) -> str:
    """The slug to write under: the paper's own, unless an artifact for another claim is there
    (issue 20: `aletheia claims` overwrote the artifact `aletheia cite` wrote for another sentence);
    then the one already holding this claim, or the first free `{slug}-N`."""
    for n in range(1, MAX_CLAIMS_PER_PAPER + 1):
        candidate = slug if n == 1 else f"{slug}-{n}"
        path = directory / f"{candidate}.md"
        if not path.exists() or path.is_symlink() or _claim_of(path) == claim:
            return candidate  # free, ours (a refresh), or a symlink the caller refuses below
    raise ArtifactPathError(f"{MAX_CLAIMS_PER_PAPER} artifacts for other claims already cite {slug}")


def write_citation_artifact(
    project_root: Path,
    artifact: CitationArtifact,
    *,
    slug: str | None = None,
    replace_other_claim: bool = False,
) -> Path:
    """Write `docs/citations/{slug}.md` under `project_root`, atomically (temp file + rename).

    The slug is validated (`artifact_path`), no directory on the way may be a symlink, an existing
    artifact that is a symlink is refused, and the final path must resolve inside the citations
    directory. An existing artifact for the same paper and the same claim is replaced; one for
    another claim is kept, and this one written beside it as `{slug}-2.md` (or the next free
    number), unless `replace_other_claim`. The path written is returned.
    """
    root = Path(project_root).resolve()
    if not root.is_dir():
        raise ArtifactPathError(f"project root {root} is not a directory")
    slug = slug or slug_for_record(record_of_artifact(artifact))
    artifact_path(slug, CITATIONS_DIR)  # validated before anything is read or made
    directory = _refuse_symlinks(root, CITATIONS_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    _refuse_symlinks(root, CITATIONS_DIR)  # again: nothing may have been swapped in meanwhile
    if not replace_other_claim:
        claim = artifact.frontmatter.claim_supported
        slug = _slug_for_claim(directory, slug, " ".join(claim.split()) if claim is not None else None)
    relative = artifact_path(slug, CITATIONS_DIR)
    target = root / relative
    if target.is_symlink():
        raise ArtifactPathError(f"{target} is a symbolic link; refusing to write through it")
    if target.resolve().parent != directory.resolve():
        raise ArtifactPathError(f"{target} would fall outside {directory}")
    text = render_artifact(artifact)
    # newline="\n" as before: the rendered text is written byte for byte.
    write_atomically(target, text.encode("utf-8"), prefix=f".{slug}.")
    return target
