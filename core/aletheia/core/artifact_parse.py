"""Citation artifacts: parsing the Markdown file's text back into a `CitationArtifact`, exactly
(`parse_artifact(render_artifact(a)) == a`), refusing malformed or hostile text with an
`ArtifactFormatError` that names the problem and its line. Re-exported by `aletheia.core.artifacts`.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml
from pydantic import (
    ValidationError,
)

from aletheia.core.artifact_model import (
    ArtifactBody,
    ArtifactFrontmatter,
    CitationArtifact,
)
from aletheia.core.artifact_render import (
    _SECTIONS,
    H_ABSTRACT,
    H_BIBTEX,
    H_EXCERPTS,
    H_SNIPPET,
    _unescape_prose,
)
from aletheia.core.errors import AletheiaError


class ArtifactFormatError(ValueError, AletheiaError):
    """Text that is not a well-formed artifact; the message names the problem and where it is."""


# --- parsing ----------------------------------------------------------------------------------------


def _describe(exc: ValidationError, prefix: str) -> str:
    problems = []
    for error in exc.errors():
        location = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        problems.append(f"{prefix}{location}: {message}" if location else f"{prefix.rstrip('.')}: {message}")
    return "; ".join(problems)


def _reject_duplicate_keys(node: yaml.Node | None, visited: set[int] | None = None) -> None:
    """Refuse a key given twice, and any YAML alias: artifacts never use anchors, and nested aliases
    (`&a [x, x]`, `&b [*a, *a]`, ...) expand exponentially ("billion laughs") when walked or built."""
    if node is None:
        return
    visited = set() if visited is None else visited
    if id(node) in visited:
        raise ArtifactFormatError(
            f"frontmatter: YAML aliases are not allowed (line {node.start_mark.line + 2})"
        )
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ArtifactFormatError(
                    f"frontmatter: keys must be plain scalars (line {key_node.start_mark.line + 2})"
                )
            key = key_node.value
            if key in seen:
                raise ArtifactFormatError(
                    f"frontmatter: key {key!r} appears twice (line {key_node.start_mark.line + 2})"
                )
            seen.add(key)
            _reject_duplicate_keys(value_node, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _reject_duplicate_keys(item, visited)


# libyaml's safe loader when it is built in (about 8x faster; `aletheia check` parses every
# artifact of a repository), the pure-Python safe loader otherwise. Safe constructors only.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Frontmatter is a few kilobytes; these bounds keep hostile YAML from exhausting the parser (libyaml
# overflows its C stack on ~100,000 nested brackets and takes the process down with it).
MAX_FRONTMATTER_CHARS: Final = 256 * 1024
MAX_FLOW_NESTING: Final = 64


def _flow_nesting(source: str) -> int:
    """The deepest run of unclosed `[`/`{` (quotes ignored: an over-estimate is only stricter)."""
    depth = deepest = 0
    for char in source:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


def _load_frontmatter(source: str) -> dict[str, Any]:
    if len(source) > MAX_FRONTMATTER_CHARS:
        raise ArtifactFormatError(
            f"frontmatter is {len(source)} characters long; the limit is {MAX_FRONTMATTER_CHARS}"
        )
    if _flow_nesting(source) > MAX_FLOW_NESTING:
        raise ArtifactFormatError(f"frontmatter nests brackets more than {MAX_FLOW_NESTING} levels deep")
    try:
        loader = _SAFE_LOADER(source)
        try:
            node = loader.get_single_node()
            _reject_duplicate_keys(node)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise ArtifactFormatError("frontmatter is nested too deeply") from None
    except (ValueError, OverflowError) as exc:
        # A scalar the safe constructors cannot build (an integer of more than 4,300 digits, say);
        # ArtifactFormatError is a ValueError too, and passes through unchanged.
        if isinstance(exc, ArtifactFormatError):
            raise
        raise ArtifactFormatError(f"frontmatter holds a value that cannot be read: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark is not None else ""
        raise ArtifactFormatError(f"frontmatter is not valid YAML{where}: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise ArtifactFormatError(f"frontmatter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ArtifactFormatError(f"frontmatter must be a YAML mapping, not {type(data).__name__}")
    return data


def _split_frontmatter(text: str) -> tuple[str, list[str], int]:
    """(frontmatter YAML, body lines, file line number of the first body line)."""
    lines = text.split("\n")
    if lines[0] != "---":
        raise ArtifactFormatError("missing frontmatter: the file must start with a '---' line")
    try:
        closing = lines.index("---", 1)
    except ValueError:
        raise ArtifactFormatError("unterminated frontmatter: no closing '---' line") from None
    return "\n".join(lines[1:closing]) + "\n", lines[closing + 1 :], closing + 2


def _section_payload(lines: list[str]) -> str | None:
    """The text of a section as `_render_body` wrote it: a blank line after the header, the
    payload, a blank line before the next header. A section with no payload is one blank line."""
    content = "\n".join(lines)
    if not content.strip():
        return None
    return content.removeprefix("\n").removesuffix("\n")


def _parse_excerpts(payload: str | None, first_line: int) -> list[dict[str, str]]:
    if payload is None:
        return []
    blocks: list[list[tuple[int, str]]] = [[]]
    for offset, line in enumerate(payload.split("\n")):
        line_number = first_line + offset
        if not line:
            if blocks[-1]:
                blocks.append([])
            continue
        if not line.startswith(">"):
            raise ArtifactFormatError(
                f"line {line_number}: the excerpts section holds only '>' quote blocks, found {line[:40]!r}"
            )
        content = line[1:]
        blocks[-1].append((line_number, content[1:] if content.startswith(" ") else content))
    excerpts = []
    for block in (b for b in blocks if b):
        start, location_line = block[0][0], block[-1][1]
        quote = "\n".join(content for _, content in block[:-1])
        if len(block) < 2 or not (location_line.startswith("(") and location_line.endswith(")")):
            raise ArtifactFormatError(
                f"line {start}: an excerpt needs a quoted text and a final '(location)' line"
            )
        if len(quote) < 2 or not (quote.startswith('"') and quote.endswith('"')):
            raise ArtifactFormatError(f"line {start}: the excerpt text must be enclosed in double quotes")
        excerpts.append({"text": quote[1:-1], "location": location_line[1:-1]})
    return excerpts


def _parse_bibtex(lines: list[str], first_line: int) -> str:
    while lines and not lines[-1]:
        lines = lines[:-1]
    start = next((i for i, line in enumerate(lines) if line), None)
    opening = re.fullmatch(r"(`{3,})bibtex", lines[start]) if start is not None else None
    if start is None or opening is None:
        raise ArtifactFormatError(f"line {first_line}: the BibTeX section must hold a ```bibtex fenced block")
    if any(lines[:start]) or len(lines) < start + 2 or lines[-1] != opening.group(1):
        raise ArtifactFormatError(
            f"line {first_line + start}: the BibTeX block must end the file, closed by {opening.group(1)}"
        )
    return "\n".join(lines[start + 1 : -1])


def _find_sections(body: list[str], first_line: int) -> dict[str, tuple[list[str], int]]:
    """Each section's lines (between its header and the next) and the file line they start on."""
    positions: list[int] = []
    start = 0
    for header in _SECTIONS:
        try:
            index = body.index(header, start)
        except ValueError:
            raise ArtifactFormatError(
                f"missing section {header!r} (sections: {', '.join(_SECTIONS)})"
            ) from None
        positions.append(index)
        start = index + 1
    if any(line.strip() for line in body[: positions[0]]):
        raise ArtifactFormatError(f"line {first_line}: unexpected text before {H_ABSTRACT!r}")
    ends = [*positions[1:], len(body)]
    return {
        header: (body[index + 1 : end], first_line + index + 1)
        for header, index, end in zip(_SECTIONS, positions, ends, strict=True)
    }


def parse_artifact(text: str) -> CitationArtifact:
    """Read an artifact's file text back into a `CitationArtifact` (the inverse of `render_artifact`).

    Strict: raises `ArtifactFormatError` naming the problem and, where there is one, the line:
    missing or unterminated frontmatter, invalid YAML, unknown or invalid fields (by name),
    missing or malformed sections. `\\r\\n` line endings are accepted.
    """
    if not isinstance(text, str):
        raise ArtifactFormatError(f"artifact text must be a string, not {type(text).__name__}")
    source, body_lines, body_line = _split_frontmatter(text.replace("\r\n", "\n"))
    data = _load_frontmatter(source)
    try:
        front = ArtifactFrontmatter.model_validate(data)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "frontmatter.")) from exc
    sections = _find_sections(body_lines, body_line)
    abstract_lines, _ = sections[H_ABSTRACT]
    excerpt_lines, excerpt_line = sections[H_EXCERPTS]
    snippet_lines, _ = sections[H_SNIPPET]
    bibtex_lines, bibtex_line = sections[H_BIBTEX]
    abstract = _section_payload(abstract_lines)
    snippet = _section_payload(snippet_lines)
    body_data = {
        "abstract": None if abstract is None else _unescape_prose(abstract),
        "excerpts": _parse_excerpts(_section_payload(excerpt_lines), excerpt_line + 1),
        "citation_snippet": "" if snippet is None else _unescape_prose(snippet),
        "bibtex": _parse_bibtex(bibtex_lines, bibtex_line),
    }
    try:
        body = ArtifactBody.model_validate(body_data)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "body.")) from exc
    try:
        return CitationArtifact(frontmatter=front, body=body)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "artifact.")) from exc
