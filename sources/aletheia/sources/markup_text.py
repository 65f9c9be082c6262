"""JATS and HTML fragments as plain text: tags dropped, entities decoded, one line per block.

Crossref deposits abstracts in JATS and titles, names and container titles with inline markup
(`<i>`, `<sub>`, `<jats:italic>`); OpenAlex passes titles and bylines through with the same
markup. Both parsers read every such string through `markup_to_text`.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Final

__all__ = ["markup_to_text"]

# Elements that end a paragraph of text (JATS and HTML).
_BLOCK_ELEMENTS: Final = frozenset(
    {"p", "title", "sec", "list-item", "def-item", "break", "br", "div", "li", "h1", "h2", "h3", "h4"}
)


class _TextCollector(HTMLParser):
    """Text content of JATS/HTML, one entry per block; entities decoded by HTMLParser itself."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str]] = []  # (element that opened the block, text)
        self._current: list[str] = []
        self._opened_by = ""

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.blocks.append((self._opened_by, text))
        self._current = []

    @staticmethod
    def _local(tag: str) -> str:
        return tag.rsplit(":", 1)[-1].lower()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        local = self._local(tag)
        if local in _BLOCK_ELEMENTS:
            self._flush()
            self._opened_by = local

    def handle_endtag(self, tag: str) -> None:
        if self._local(tag) in _BLOCK_ELEMENTS:
            self._flush()
            self._opened_by = ""

    def handle_data(self, data: str) -> None:
        self._current.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def markup_to_text(markup: str, *, drop_heading: str | None = None) -> str:
    """Plain text of a JATS/HTML fragment: tags dropped, entities decoded, one line per block.

    `drop_heading` removes a leading title block equal to it (case-insensitive): JATS abstracts
    often open with `<jats:title>Abstract</jats:title>`, which is not part of the abstract.
    """
    if "<" not in markup and "&" not in markup:
        return " ".join(markup.split())
    collector = _TextCollector()
    collector.feed(markup)
    collector.close()
    blocks = collector.blocks
    if (
        drop_heading is not None
        and blocks
        and blocks[0][0] == "title"
        and blocks[0][1].casefold().rstrip(".:") == drop_heading.casefold()
    ):
        blocks = blocks[1:]
    return "\n".join(text for _, text in blocks)
