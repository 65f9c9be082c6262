"""Parse XML from a source without trusting it: no entity declarations, no internal DTD subset.

The stdlib parser (expat) expands internal entities, so a body declaring nested entities (the
"billion laughs") or an external entity would be expanded before we saw a single element. None of
the sources we read ever declares an entity: arXiv's Atom feed has no DOCTYPE at all, and NCBI's
E-utilities send a plain `<!DOCTYPE PubmedArticleSet PUBLIC "..." "...">` line that names an
external DTD the parser never fetches. So the rule is a check of the text before parsing: reject
any `<!ENTITY`, any DOCTYPE with an internal subset (`[`), and, where the source never sends one,
any DOCTYPE at all. A body we refuse is a `SourceParseError`: retrying will not change it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from aletheia.sources.base import SourceParseError

_ENTITY_DECLARATION = re.compile(r"<!ENTITY", re.IGNORECASE)
_DOCTYPE = re.compile(r"<!DOCTYPE\b([^>\[]*)(\[)?", re.IGNORECASE)


def parse_untrusted_xml(text: str | bytes, *, source: str, allow_doctype: bool = False) -> ET.Element:
    """The root element of `text`, or `SourceParseError` if it declares entities or is not XML.

    `allow_doctype` admits a plain DOCTYPE line (public/system identifiers only, no `[...]` subset).
    """
    if isinstance(text, bytes):
        # Every source we parse sends UTF-8; decoding first means the checks below see the same
        # characters the parser will (a UTF-16 body would slip past a byte-level search).
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceParseError(source, f"XML body is not UTF-8: {exc}") from exc
    body = text
    if _ENTITY_DECLARATION.search(body):
        raise SourceParseError(source, "XML declares entities; refused")
    doctype = _DOCTYPE.search(body)
    if doctype is not None:
        if not allow_doctype:
            raise SourceParseError(source, "XML has a DOCTYPE, which this source never sends; refused")
        if doctype.group(2) is not None:
            raise SourceParseError(source, "XML DOCTYPE has an internal subset; refused")
    try:
        return ET.fromstring(body)  # noqa: S314 - guarded above
    except ET.ParseError as exc:
        raise SourceParseError(source, f"malformed XML: {exc}") from exc
