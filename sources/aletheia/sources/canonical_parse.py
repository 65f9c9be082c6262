"""Pure parsers of the canonical-text services (Tier 3): a Perseus CTS `GetPassage` reply and a
CCEL page, each to a `WorkRecord` whose `abstract` holds the passage text (whitespace-normalised)
and whose `source_id` is the passage's URN or path.

Shapes (documented, modelled in the test fixtures; nothing real is recorded in ../shared):

- CTS (`{base}/api/cts?request=GetPassage&urn=...`): `<GetPassage xmlns="http://chs.harvard.edu/
  xmlns/cts"><request>...</request><reply><urn>...</urn><passage><TEI ...>...</TEI></passage>
  </reply></GetPassage>`; an unknown work or passage is `<CTSError><message/><code/></CTSError>`
  (some servers with HTTP 200, others with 4xx).
- CCEL: an HTML page per section; its text is the page's `<body>` without scripts, styles and
  navigation markup.
"""

from __future__ import annotations

import html
import re
from typing import Final
from xml.etree import ElementTree as ET

from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceParseError
from aletheia.sources.safe_xml import parse_untrusted_xml

__all__ = ["cts_error_code", "parse_ccel_page", "parse_cts_passage"]

# CTS error codes that say "no such work or passage": an answer, not a failure.
CTS_NOT_FOUND_CODES: Final = frozenset(
    {"InvalidURN", "InvalidPassageReference", "UnknownCollection", "1", "2", "3", "4"}
)
_TAGS: Final = re.compile(r"<[^>]+>")
_DROP: Final = re.compile(r"<(script|style|nav|header|footer)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TITLE: Final = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_BODY: Final = re.compile(r"<body[^>]*>(.*)</body\s*>", re.IGNORECASE | re.DOTALL)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def cts_error_code(xml: str) -> str | None:
    """The code of a CTS error reply (None when the reply is not an error)."""
    if "CTSError" not in xml[:2000]:
        return None
    root = parse_untrusted_xml(xml, source=SourceName.PERSEUS.value)
    if _local(root.tag) != "CTSError":
        return None
    code = next((e for e in root.iter() if _local(e.tag) == "code"), None)
    return _text(code) if code is not None else ""


def parse_cts_passage(xml: str, *, url: str | None = None) -> WorkRecord | None:
    """The passage of a GetPassage reply; None for a CTS error that means "no such passage"."""
    code = cts_error_code(xml)
    if code is not None:
        if code in CTS_NOT_FOUND_CODES or not code:
            return None
        raise SourceParseError(SourceName.PERSEUS.value, f"CTS error {code}")
    root = parse_untrusted_xml(xml, source=SourceName.PERSEUS.value)
    if _local(root.tag) != "GetPassage":
        raise SourceParseError(SourceName.PERSEUS.value, f"not a GetPassage reply (<{_local(root.tag)}>)")
    urn = next((e for e in root.iter() if _local(e.tag) == "urn"), None)
    passage = next((e for e in root.iter() if _local(e.tag) == "passage"), None)
    if passage is None:
        raise SourceParseError(SourceName.PERSEUS.value, "a GetPassage reply without <passage>")
    text = _text(passage)
    if not text:
        return None
    return WorkRecord(
        source=SourceName.PERSEUS,
        source_id=_text(urn) if urn is not None else None,
        work_type="canonical-passage",
        abstract=text,
        urls={"passage": url} if url else {},
    )


def parse_ccel_page(page: str, *, path: str, url: str | None = None) -> WorkRecord | None:
    """The text of one CCEL section page; None for a page without text."""
    if "<" not in page:
        raise SourceParseError(SourceName.CCEL.value, "not an HTML page")
    title_match = _TITLE.search(page)
    body_match = _BODY.search(page)
    body = _DROP.sub(" ", body_match.group(1) if body_match else page)
    text = " ".join(html.unescape(_TAGS.sub(" ", body)).split())
    if not text:
        return None
    title = " ".join(html.unescape(title_match.group(1)).split()) if title_match else None
    return WorkRecord(
        source=SourceName.CCEL,
        source_id=path,
        title=title or None,
        work_type="canonical-passage",
        abstract=text,
        urls={"passage": url} if url else {},
    )
