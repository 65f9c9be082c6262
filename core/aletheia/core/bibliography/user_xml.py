"""A user's XML file (EndNote XML, Zotero RDF, a Word document's `word/document.xml`) parsed
safely, and the text of its elements.

The XML is parsed by defusedxml (no entity expansion, no external entities or DTDs fetched): the
file is the user's, and XML is how a small file expands without bound.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aletheia.core.bibliography.problems import InputError

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

__all__ = ["element_text", "parse_xml_safely"]

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def parse_xml_safely(text: str | bytes, origin: str, what: str) -> Element:
    """The root element of a user's XML file, parsed by defusedxml; `InputError` for XML that is
    not well-formed or declares entities or a DTD. Bytes (an XML part of an archive) are decoded by
    the XML parser, as XML says: a byte-order mark, else the declaration's encoding, else UTF-8."""
    import defusedxml.ElementTree as SafeET  # imported here: only XML inputs need it
    from defusedxml import DefusedXmlException

    # Decoded text: an encoding named in the declaration no longer applies.
    body = _DECLARATION.sub("", text, count=1) if isinstance(text, str) else text
    try:
        root: Element = SafeET.fromstring(body, forbid_dtd=True)
        return root
    except DefusedXmlException as error:
        raise InputError(origin, f"{what} with a DTD or entity declarations is not read ({error})") from None
    except SafeET.ParseError as error:
        raise InputError(origin, f"not well-formed XML ({error})") from None


def element_text(element: Element | None) -> str | None:
    """All the text of an element (its runs, its children's), whitespace collapsed; None if blank."""
    if element is None:
        return None
    text = " ".join("".join(element.itertext()).split())
    return text or None
