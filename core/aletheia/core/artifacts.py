"""Citation artifacts (seed 000 §6): the slug, the frontmatter schema, and the Markdown file format.

An artifact is one Markdown file, `docs/citations/{slug}.md`, whose YAML frontmatter carries the
identity of a work verbatim from the APIs plus the verification trail, and whose body carries the
abstract, the verbatim excerpts that support a claim, a citation snippet and a BibTeX entry. This
module is pure: `render_artifact` turns a `CitationArtifact` into the file's text and
`parse_artifact` turns the text back, exactly (`parse_artifact(render_artifact(a)) == a`); writing
the file is the pipeline's job, which asks `artifact_path` where it may write.

The file format, and the choices that keep it lossless:

- Frontmatter: `---`, the fields in six groups under the seed's `# === ... ===` comment headers,
  `---`. Every string that is not a plain lower-case identifier is emitted double-quoted, so line
  breaks and control characters become YAML escapes and no value can spill onto a line of its own
  (in particular, never onto a `---` line). It is read back with `yaml.safe_load` only.
- Body: the four sections of §6.3 in fixed order, each header on a line of its own. In the prose
  sections (abstract, citation snippet) a line that starts with `#`, a code fence or a run of
  backslashes before those gets one more backslash in front, so no text can forge a section header
  or open a code block that swallows the sections after it; reading strips it again. Excerpts are
  `>` quote blocks (every line of the quote is prefixed, so a quote may hold blank lines, `>`,
  quotes and headers), the last line of each block being `(location)`. The BibTeX block is fenced
  with more backticks than any run of backticks inside it.
- Line endings: body texts are stored with `\\n` line breaks only (`\\r\\n` and `\\r` are converted
  when the model is built), so the file survives text-mode I/O on any platform.

Where the code is: `artifact_slugs` (slugs, the safe path, the verbatim-excerpt rule),
`artifact_model` (the validated model; a record's frontmatter and back), `artifact_render` (model
to text), `artifact_parse` (text to model). This module re-exports them all.
"""

from __future__ import annotations

from aletheia.core.artifact_model import (
    DECISIVE_FIELDS,
    ArtifactBody,
    ArtifactFrontmatter,
    ArtifactUrls,
    BodyText,
    CitationArtifact,
    DecisiveField,
    Excerpt,
    NonBlankBodyText,
    NonBlankText,
    OverriddenConflict,
    Text,
    Triangulation,
    Url,
    frontmatter_from_record,
    is_arxiv_preprint,
    record_of_artifact,
    urls_for,
)
from aletheia.core.artifact_parse import (
    MAX_FLOW_NESTING,
    MAX_FRONTMATTER_CHARS,
    ArtifactFormatError,
    parse_artifact,
)
from aletheia.core.artifact_render import H_ABSTRACT, H_BIBTEX, H_EXCERPTS, H_SNIPPET, render_artifact
from aletheia.core.artifact_slugs import (
    SLUG_MAX_LENGTH,
    ArtifactPathError,
    artifact_path,
    author_token,
    excerpt_verifies,
    slug_for_paper,
    slug_for_record,
    surname_token,
    title_keyword,
    validate_slug,
)
from aletheia.core.text import normalize_whitespace

# Everything the module held before it was split (slugs, model, render, parse), so callers need
# not know the split.
__all__ = [
    "DECISIVE_FIELDS",
    "H_ABSTRACT",
    "H_BIBTEX",
    "H_EXCERPTS",
    "H_SNIPPET",
    "MAX_FLOW_NESTING",
    "MAX_FRONTMATTER_CHARS",
    "SLUG_MAX_LENGTH",
    "ArtifactBody",
    "ArtifactFormatError",
    "ArtifactFrontmatter",
    "ArtifactPathError",
    "ArtifactUrls",
    "BodyText",
    "CitationArtifact",
    "DecisiveField",
    "Excerpt",
    "NonBlankBodyText",
    "NonBlankText",
    "OverriddenConflict",
    "Text",
    "Triangulation",
    "Url",
    "artifact_path",
    "author_token",
    "excerpt_verifies",
    "frontmatter_from_record",
    "is_arxiv_preprint",
    "normalize_whitespace",
    "parse_artifact",
    "record_of_artifact",
    "render_artifact",
    "slug_for_paper",
    "slug_for_record",
    "surname_token",
    "title_keyword",
    "urls_for",
    "validate_slug",
]
