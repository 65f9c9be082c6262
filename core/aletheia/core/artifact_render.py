"""Citation artifacts: rendering a `CitationArtifact` as the Markdown file's text (the format is
described in `aletheia.core.artifacts`). Re-exported by `aletheia.core.artifacts`.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

from aletheia.core.artifact_model import (
    ArtifactBody,
    ArtifactFrontmatter,
    CitationArtifact,
    Excerpt,
)

# --- rendering --------------------------------------------------------------------------------------

_FRONTMATTER_GROUPS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "Identity (verbatim from API; never LLM-generated)",
        ("title", "authors", "year", "venue", "venue_full"),
    ),
    (
        "Identifiers (at least one of arxiv_id, doi required; pmid counts; none only if single-source)",
        ("arxiv_id", "doi", "pmid"),
    ),
    ("Resolvable URLs", ("urls",)),
    (
        "Verification trail (Aletheia-populated)",
        (
            "sources_consulted",
            "triangulation",
            "single_source_verified",
            "verified_by",
            "verified_at",
            "verification_version",
            "retraction_status",
        ),
    ),
    ("Human override (optional)", ("human_overridden", "override_reason", "overridden_conflicts")),
    (
        "Claim linkage (LLM-generated; supported by verbatim excerpts below)",
        ("claim_supported", "text_excerpts_unavailable"),
    ),
)
# Lists of identifiers read best on one line, as in the seed: `[semantic_scholar, openalex]`.
_FLOW_LISTS: Final = frozenset({"sources_consulted", "decisive_fields_checked"})
# Written only when they hold something, so an artifact without them reads as the seed's schema.
_OMITTED_WHEN_EMPTY: Final = frozenset({"overridden_conflicts"})
_IDENTIFIER: Final = re.compile(r"[a-z][a-z0-9_]*")
_NO_WRAP: Final = 1 << 30

H_ABSTRACT: Final = "## Abstract"
H_EXCERPTS: Final = "## Excerpts supporting the claim"
H_SNIPPET: Final = "## Citation snippet"
H_BIBTEX: Final = "## BibTeX"
_SECTIONS: Final = (H_ABSTRACT, H_EXCERPTS, H_SNIPPET, H_BIBTEX)


class _FlowList(list[Any]):
    """A list the frontmatter emitter writes in flow style."""


class _FrontmatterDumper(yaml.SafeDumper):
    """SafeDumper that indents block lists under their key and double-quotes free text."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # Identifiers (keys, source names, `aletheia`) may stay plain: PyYAML still quotes any that would
    # read back as something else (`null`, `yes`). Everything else is double-quoted, which escapes
    # line breaks and control characters and keeps the value on one line.
    style = None if _IDENTIFIER.fullmatch(data) else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_flow_list(dumper: yaml.SafeDumper, data: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


_FrontmatterDumper.add_representer(str, _represent_str)
_FrontmatterDumper.add_representer(_FlowList, _represent_flow_list)


def _yaml_ready(key: str, value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _yaml_ready(k, v) for k, v in value.items() if not (key == "urls" and v is None)}
    if isinstance(value, list):
        items = [_yaml_ready(key, item) for item in value]
        return _FlowList(items) if key in _FLOW_LISTS else items
    return value


def _render_frontmatter(front: ArtifactFrontmatter) -> str:
    data = front.model_dump(mode="json")
    lines: list[str] = []
    for header, keys in _FRONTMATTER_GROUPS:
        lines.append(f"# === {header} ===\n")
        group = {
            key: _yaml_ready(key, data[key]) for key in keys if key not in _OMITTED_WHEN_EMPTY or data[key]
        }
        lines.append(
            yaml.dump(
                group,
                Dumper=_FrontmatterDumper,
                sort_keys=False,
                allow_unicode=True,
                default_flow_style=False,
                width=_NO_WRAP,
            )
        )
    return "".join(lines)


# A line of prose that could be read as Markdown structure: a header, a code fence, or such a line
# already escaped (so that escaping stays reversible).
_NEEDS_ESCAPE: Final = re.compile(r"\\*(?:#|```|~~~)")
_ESCAPED: Final = re.compile(r"\\+(?:#|```|~~~)")


def _escape_prose(text: str) -> str:
    return "\n".join("\\" + line if _NEEDS_ESCAPE.match(line) else line for line in text.split("\n"))


def _unescape_prose(text: str) -> str:
    return "\n".join(line[1:] if _ESCAPED.match(line) else line for line in text.split("\n"))


def _render_excerpt(excerpt: Excerpt) -> str:
    quoted = [*f'"{excerpt.text}"'.split("\n"), f"({excerpt.location})"]
    return "\n".join(f"> {line}" if line else ">" for line in quoted)


def _fence_for(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _render_body(body: ArtifactBody) -> str:
    def section(header: str, payload: str | None) -> str:
        return f"{header}\n\n" if payload is None else f"{header}\n\n{payload}\n\n"

    excerpts = "\n\n".join(_render_excerpt(excerpt) for excerpt in body.excerpts) or None
    fence = _fence_for(body.bibtex)
    return (
        section(H_ABSTRACT, None if body.abstract is None else _escape_prose(body.abstract))
        + section(H_EXCERPTS, excerpts)
        + section(H_SNIPPET, _escape_prose(body.citation_snippet))
        + f"{H_BIBTEX}\n\n{fence}bibtex\n{body.bibtex}\n{fence}\n"
    )


def render_artifact(artifact: CitationArtifact) -> str:
    """The artifact's file text: YAML frontmatter between `---` lines, then the four body sections."""
    return f"---\n{_render_frontmatter(artifact.frontmatter)}---\n\n{_render_body(artifact.body)}"
