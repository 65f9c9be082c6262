"""Zotero RDF (Zotero's "Zotero RDF" export, RDF/XML in Zotero's vocabulary and Dublin Core,
BIBO's predecessor `bib:`, FOAF and PRISM).

The items are the children of `rdf:RDF` that carry a `z:itemType` (other than attachments and
notes); `bib:Journal`, `bib:Book`, `bib:Proceedings` nodes they point to (`dcterms:isPartOf`,
nested or by `rdf:resource`) give the journal, book or proceedings title, volume and ISSN/ISBN.
Read from an item: `dc:title`; `bib:authors` (and `bib:editors`) as `foaf:Person`s
(`foaf:surname`, `foaf:givenName`) or `foaf:Organization`s; `dc:date`; `dc:identifier` ("DOI
10...", "ISBN ...", "ISSN ...", or a `dcterms:URI` with the URL); `prism:number`,
`prism:volume`, `bib:pages`; `dc:publisher`; `z:archiveID` and `dc:description` (where an arXiv id
or a DOI may be); `z:citationKey` as the key, else the item's position. The item becomes the BibTeX entry
the same reference would be (`manager_fields`). Parsed by defusedxml (`user_xml.parse_xml_safely`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from aletheia.core.bibliography.manager_fields import (
    arxiv_fields,
    container_fields,
    first_year,
    identifiable_or_skipped,
    record_reference,
)
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.bibliography.user_xml import element_text as _text
from aletheia.core.bibliography.user_xml import parse_xml_safely
from aletheia.core.records import CitedReference

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

__all__ = ["ZOTERO_TYPES", "iter_zotero_rdf", "looks_like_zotero_rdf"]

RDF: Final = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
Z: Final = "http://www.zotero.org/namespaces/export#"
DC: Final = "http://purl.org/dc/elements/1.1/"
DCTERMS: Final = "http://purl.org/dc/terms/"
BIB: Final = "http://purl.org/net/biblio#"
FOAF: Final = "http://xmlns.com/foaf/0.1/"
PRISM: Final = "http://prismstandard.org/namespaces/1.2/basic/"

# Zotero item types -> BibTeX entry types (as Zotero's own BibTeX export maps them); unknown -> misc.
ZOTERO_TYPES: Final = {
    **dict.fromkeys(("journalArticle", "magazineArticle", "newspaperArticle"), "article"),
    "conferencePaper": "inproceedings",
    "book": "book",
    **dict.fromkeys(("bookSection", "encyclopediaArticle", "dictionaryEntry"), "incollection"),
    "report": "techreport",
    "thesis": "phdthesis",
    "manuscript": "unpublished",
}
_NOT_ITEMS: Final = frozenset({"attachment", "note", "annotation"})
_IDENTIFIER = re.compile(r"^(DOI|ISBN|ISSN|PMID|PMCID)\s*:?\s*(.+)$", re.IGNORECASE)


def looks_like_zotero_rdf(head: str) -> bool:
    return "<rdf:RDF" in head[:4096] and Z in head


def _q(namespace: str, name: str) -> str:
    return f"{{{namespace}}}{name}"


def _child_text(node: Element, namespace: str, name: str) -> str | None:
    return next((t for t in (_text(e) for e in node.iter(_q(namespace, name))) if t), None)


def _people(item: Element, role: str) -> list[str]:
    out: list[str] = []
    for group in item.findall(_q(BIB, role)) + item.findall(_q(Z, role)):
        for person in group.iter():
            if person.tag == _q(FOAF, "Person"):
                family = _text(person.find(_q(FOAF, "surname")))
                given = _text(person.find(_q(FOAF, "givenName"))) or _text(person.find(_q(FOAF, "givenname")))
                if family and given:
                    out.append(f"{family}, {given}")
                elif family or given:
                    out.append(family or given or "")
            elif person.tag == _q(FOAF, "Organization"):
                name = _text(person.find(_q(FOAF, "name")))
                if name:
                    out.append(name)
    return out


def _containers(item: Element, nodes: dict[str, Element]) -> list[Element]:
    """The journal, book or proceedings nodes an item is part of (nested or by reference)."""
    found: list[Element] = []
    for part in item.findall(_q(DCTERMS, "isPartOf")):
        resource = part.get(_q(RDF, "resource"))
        if resource and resource in nodes:
            found.append(nodes[resource])
        found.extend(list(part))
    return found


def _reference(item: Element, nodes: dict[str, Element], *, key: str, origin: str) -> CitedReference:
    item_type = _text(item.find(_q(Z, "itemType"))) or ""
    entry_type = ZOTERO_TYPES.get(item_type, "misc")
    containers = _containers(item, nodes)
    container = next((t for t in (_text(c.find(_q(DC, "title"))) for c in containers) if t), None)
    identifiers: dict[str, str] = {}
    url = None
    for node in [item, *containers]:
        for identifier in node.findall(_q(DC, "identifier")):
            uri = identifier.find(f"{_q(DCTERMS, 'URI')}/{_q(RDF, 'value')}")
            if uri is not None:
                url = url or _text(uri)
                continue
            match = _IDENTIFIER.match(_text(identifier) or "")
            if match:
                identifiers.setdefault(match.group(1).upper(), match.group(2).strip())
    publisher = next(
        (
            _child_text(p, FOAF, "name") or _text(p)
            for node in [item, *containers]
            for p in node.findall(_q(DC, "publisher"))
        ),
        None,
    )
    volume = _text(item.find(_q(PRISM, "volume"))) or next(
        (t for t in (_text(c.find(_q(PRISM, "volume"))) for c in containers) if t), None
    )
    values: dict[str, str | None] = {
        "title": _text(item.find(_q(DC, "title"))),
        "year": first_year(_text(item.find(_q(DC, "date"))), _text(item.find(_q(DCTERMS, "issued")))),
        "doi": identifiers.get("DOI"),
        "url": url,
        "isbn": identifiers.get("ISBN"),
        "issn": identifiers.get("ISSN"),
        "pmid": identifiers.get("PMID"),
        "volume": volume,
        "number": _text(item.find(_q(PRISM, "number"))),
        "pages": _text(item.find(_q(BIB, "pages"))),
        "note": _text(item.find(_q(DC, "description"))),
    }
    values |= container_fields(entry_type, container, publisher)
    values |= arxiv_fields(_text(item.find(_q(Z, "archiveID")))) or arxiv_fields(values["number"])
    return record_reference(
        key=key,
        entry_type=entry_type,
        values=values,
        authors=_people(item, "authors"),
        editors=_people(item, "editors"),
        origin=origin,
    )


def iter_zotero_rdf(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read Zotero RDF (see the module docstring); raises `InputError` for XML that is not
    well-formed or is not RDF."""
    root = parse_xml_safely(text, origin, "Zotero RDF")
    if root.tag != _q(RDF, "RDF"):
        raise InputError(origin, "XML, but not Zotero RDF (expected an rdf:RDF document)")
    nodes = {about: node for node in root if (about := node.get(_q(RDF, "about")))}
    position = 0
    for node in root:
        item_type = _text(node.find(_q(Z, "itemType")))
        if not item_type or item_type in _NOT_ITEMS:
            continue
        position += 1
        key = _text(node.find(_q(Z, "citationKey"))) or str(position)
        reference = _reference(node, nodes, key=key, origin=f"{origin}:item {position}")
        yield identifiable_or_skipped(reference, origin=origin, key=key, what=f"item {position}")
