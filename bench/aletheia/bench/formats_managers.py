"""Issue 30's rows of the formats benchmark: the same `.bib` as a reference manager exports it (RIS,
EndNote XML, Zotero RDF) and as a Word manuscript (`.docx`).

The route is independent of Aletheia's readers. `pandoc -f bibtex -t csljson` reads the `.bib`
with pandoc's own BibTeX reader (not ours); each export is then written from those CSL-JSON items
the way the managers write it, by the tables of their exporters (Zotero's RIS, EndNote XML and RDF
translators: CSL type -> RIS `TY`, EndNote `ref-type`, Zotero `itemType`; `container-title` -> `T2`,
`secondary-title`/`full-title`, `dcterms:isPartOf`; persons as "Family, Given" or one field). The
`.docx` is `pandoc --citeproc` writing a Word document whose last section, "References", is the
bibliography in pandoc's built-in Chicago author-date style (the `--csl` given, else that).

Each rendered entry is matched back to its `.bib` key: the exports carry the record's position
(RIS records in order, EndNote's `rec-number`, the Zotero item's position), which the readers use as
the key when the export names none; the Word document's n-th References paragraph is the n-th entry
of pandoc's document tree (as for `pandoc-txt`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from aletheia.bench.formats_render import MANAGER_FORMATS, _entry_keys, _run

__all__ = ["render_manager", "write_endnote_xml", "write_ris", "write_zotero_rdf"]

# CSL types -> RIS (Zotero's RIS export of the matching item types); anything else GEN.
_RIS_TYPE: Final = {
    "article-journal": "JOUR",
    "article-magazine": "MGZN",
    "article-newspaper": "NEWS",
    "paper-conference": "CPAPER",
    "book": "BOOK",
    "chapter": "CHAP",
    "report": "RPRT",
    "thesis": "THES",
    "webpage": "ELEC",
    "manuscript": "UNPB",
    "dataset": "DATA",
    "software": "COMP",
}
# CSL types -> EndNote reference types (name, number); anything else Generic.
_ENDNOTE_TYPE: Final = {
    "article-journal": ("Journal Article", 17),
    "paper-conference": ("Conference Paper", 47),
    "book": ("Book", 6),
    "chapter": ("Book Section", 5),
    "report": ("Report", 27),
    "thesis": ("Thesis", 32),
    "webpage": ("Web Page", 12),
    "manuscript": ("Manuscript", 36),
    "dataset": ("Dataset", 59),
    "software": ("Computer Program", 9),
}
# CSL types -> Zotero item types and the RDF node each is written as; anything else `document`.
_ZOTERO_TYPE: Final = {
    "article-journal": ("journalArticle", "bib:Article", "bib:Journal"),
    "paper-conference": ("conferencePaper", "rdf:Description", "bib:Proceedings"),
    "book": ("book", "bib:Book", "bib:Series"),
    "chapter": ("bookSection", "bib:BookSection", "bib:Book"),
    "report": ("report", "bib:Report", "bib:Series"),
    "thesis": ("thesis", "bib:Thesis", "bib:Series"),
    "webpage": ("webpage", "bib:Document", "z:Website"),
    "manuscript": ("manuscript", "bib:Manuscript", "bib:Series"),
}
_NS: Final = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "z": "http://www.zotero.org/namespaces/export#",
    "dcterms": "http://purl.org/dc/terms/",
    "bib": "http://purl.org/net/biblio#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "prism": "http://prismstandard.org/namespaces/1.2/basic/",
}


def csl_items(bib: Path) -> list[dict[str, Any]]:
    """The `.bib` as pandoc reads it, as CSL-JSON items in the file's order."""
    done = _run(["pandoc", "-f", "bibtex", "-t", "csljson", bib.name], bib.parent, check=True)
    items = json.loads(done.stdout)
    if not isinstance(items, list):
        raise RuntimeError("pandoc -t csljson wrote no array")
    return items


def _person(person: dict[str, Any]) -> str:
    if person.get("literal"):
        return str(person["literal"])
    family = " ".join(str(p) for p in (person.get("non-dropping-particle"), person.get("family")) if p)
    given = " ".join(str(p) for p in (person.get("given"), person.get("dropping-particle")) if p)
    name = ", ".join(p for p in (family, given) if p)
    return f"{name}, {person['suffix']}" if person.get("suffix") else name


def _date_parts(item: dict[str, Any]) -> list[int]:
    parts = (item.get("issued") or {}).get("date-parts") or [[]]
    return [int(p) for p in parts[0] if str(p).lstrip("-").isdigit()]


def _pages(item: dict[str, Any]) -> tuple[str | None, str | None]:
    page = str(item.get("page") or "")
    if not page:
        return None, None
    start, _, end = page.replace("–", "-").partition("-")
    return start.strip() or None, end.strip("- ") or None


def _isbn_or_issn(item: dict[str, Any]) -> str | None:
    return item.get("ISBN") or item.get("ISSN")


# --- RIS -----------------------------------------------------------------------------------------


def write_ris(items: Sequence[dict[str, Any]]) -> str:
    """RIS as Zotero's exporter writes it (no ID: the readers key a record by its position)."""
    lines: list[str] = []

    def tag(name: str, value: Any) -> None:
        if value not in (None, ""):
            lines.append(f"{name}  - {' '.join(str(value).split())}")

    for item in items:
        tag("TY", _RIS_TYPE.get(str(item.get("type") or ""), "GEN"))
        tag("TI", item.get("title"))
        for person in item.get("author") or []:
            tag("AU", _person(person))
        for person in item.get("editor") or []:
            tag("A2", _person(person))
        tag("T2", item.get("container-title"))
        tag("J2", item.get("container-title-short"))
        parts = _date_parts(item)
        if parts:
            tag("PY", parts[0])
            tag(
                "DA",
                "/".join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts)) + "/" * (4 - len(parts)),
            )
        tag("VL", item.get("volume"))
        tag("IS", item.get("issue"))
        start, end = _pages(item)
        tag("SP", start)
        tag("EP", end)
        tag("PB", item.get("publisher"))
        tag("CY", item.get("publisher-place"))
        tag("SN", _isbn_or_issn(item))
        tag("DO", item.get("DOI"))
        tag("UR", item.get("URL"))
        tag("N1", item.get("note"))
        lines += ["ER  - ", ""]
    return "\r\n".join(lines)


# --- EndNote XML ---------------------------------------------------------------------------------------


def _styled(parent: ET.Element, name: str, text: Any) -> None:
    if text in (None, ""):
        return
    element = ET.SubElement(parent, name)
    style = ET.SubElement(element, "style", face="normal", font="default", size="100%")
    style.text = str(text)


def write_endnote_xml(items: Sequence[dict[str, Any]]) -> str:
    """EndNote XML as EndNote (and Zotero's EndNote export) writes it: text in `<style>` runs."""
    root = ET.Element("xml")
    records = ET.SubElement(root, "records")
    for position, item in enumerate(items, start=1):
        record = ET.SubElement(records, "record")
        ET.SubElement(record, "database", name="refs.enl", path="refs.enl").text = "refs.enl"
        ET.SubElement(record, "source-app", name="EndNote", version="20.0").text = "EndNote"
        ET.SubElement(record, "rec-number").text = str(position)
        name, number = _ENDNOTE_TYPE.get(str(item.get("type") or ""), ("Generic", 13))
        ET.SubElement(record, "ref-type", name=name).text = str(number)
        contributors = ET.SubElement(record, "contributors")
        for role, people in (("authors", item.get("author")), ("secondary-authors", item.get("editor"))):
            if people:
                group = ET.SubElement(contributors, role)
                for person in people:
                    _styled(group, "author", _person(person))
        titles = ET.SubElement(record, "titles")
        _styled(titles, "title", item.get("title"))
        _styled(titles, "secondary-title", item.get("container-title"))
        if item.get("type") == "article-journal" and item.get("container-title"):
            periodical = ET.SubElement(record, "periodical")
            _styled(periodical, "full-title", item.get("container-title"))
        _styled(record, "pages", item.get("page"))
        _styled(record, "volume", item.get("volume"))
        _styled(record, "number", item.get("issue"))
        parts = _date_parts(item)
        if parts:
            dates = ET.SubElement(record, "dates")
            _styled(dates, "year", parts[0])
        _styled(record, "publisher", item.get("publisher"))
        _styled(record, "pub-location", item.get("publisher-place"))
        _styled(record, "isbn", _isbn_or_issn(item))
        _styled(record, "electronic-resource-num", item.get("DOI"))
        if item.get("URL"):
            urls = ET.SubElement(ET.SubElement(record, "urls"), "related-urls")
            _styled(urls, "url", item.get("URL"))
        _styled(record, "notes", item.get("note"))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8" ?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- Zotero RDF -----------------------------------------------------------------------------------------


def _q(name: str) -> str:
    prefix, _, local = name.partition(":")
    return f"{{{_NS[prefix]}}}{local}"


def _add(parent: ET.Element, name: str, text: Any = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, _q(name), {_q(k.replace("_", ":", 1)): v for k, v in attributes.items()})
    if text not in (None, ""):
        element.text = str(text)
    return element


def _people(item_node: ET.Element, role: str, people: list[dict[str, Any]] | None) -> None:
    if not people:
        return
    sequence = _add(_add(item_node, role), "rdf:Seq")
    for person in people:
        li = _add(sequence, "rdf:li")
        if person.get("literal") or not person.get("given"):
            # Zotero's one-field names (fieldMode 1) are written as a surname alone.
            node = _add(li, "foaf:Person")
            _add(node, "foaf:surname", person.get("literal") or _person(person))
        else:
            # Zotero has no particle fields: "von", "de" go with the last name ("von Luxburg").
            node = _add(li, "foaf:Person")
            particles = (
                person.get("dropping-particle"),
                person.get("non-dropping-particle"),
                person.get("family"),
            )
            surname = " ".join(str(p) for p in particles if p)
            _add(node, "foaf:surname", f"{surname}, {person['suffix']}" if person.get("suffix") else surname)
            _add(node, "foaf:givenName", person.get("given"))


def write_zotero_rdf(items: Sequence[dict[str, Any]]) -> str:
    """Zotero RDF as Zotero's exporter writes it: one node per item, its container nested."""
    for prefix, namespace in _NS.items():
        ET.register_namespace(prefix, namespace)
    root = ET.Element(_q("rdf:RDF"))
    for position, item in enumerate(items, start=1):
        item_type, node_name, container_name = _ZOTERO_TYPE.get(
            str(item.get("type") or ""), ("document", "bib:Document", "bib:Series")
        )
        node = _add(root, node_name, rdf_about=f"#item_{position}")
        _add(node, "z:itemType", item_type)
        if item.get("container-title") or item.get("volume"):
            container = _add(_add(node, "dcterms:isPartOf"), container_name)
            _add(container, "dc:title", item.get("container-title"))
            if item.get("volume"):
                _add(container, "prism:volume", item.get("volume"))
            if item.get("ISSN"):
                _add(container, "dc:identifier", f"ISSN {item['ISSN']}")
        if item.get("publisher"):
            organisation = _add(_add(node, "dc:publisher"), "foaf:Organization")
            _add(organisation, "foaf:name", item.get("publisher"))
        _people(node, "bib:authors", item.get("author"))
        _people(node, "bib:editors", item.get("editor"))
        if item.get("URL"):
            uri = _add(_add(node, "dc:identifier"), "dcterms:URI")
            _add(uri, "rdf:value", item.get("URL"))
        if item.get("DOI"):
            _add(node, "dc:identifier", f"DOI {item['DOI']}")
        if item.get("ISBN"):
            _add(node, "dc:identifier", f"ISBN {item['ISBN']}")
        _add(node, "dc:title", item.get("title"))
        parts = _date_parts(item)
        if parts:
            _add(node, "dc:date", "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts)))
        if item.get("issue"):
            _add(node, "prism:number", item.get("issue"))
        if item.get("page"):
            _add(node, "bib:pages", item.get("page"))
        if item.get("note"):
            _add(node, "dc:description", item.get("note"))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


# --- Word --------------------------------------------------------------------------------------------------


def _docx(bib: Path, csl: Path | None) -> tuple[Path, list[str], str]:
    """`pandoc --citeproc` to a .docx whose last section, References, is every entry."""
    directory = bib.parent
    source = directory / "manuscript.md"
    source.write_text(
        "---\nnocite: '@*'\n---\n\nA manuscript whose reference list is every entry.\n\n# References\n",
        encoding="utf-8",
    )
    args = ["pandoc", source.name, "--citeproc", "--bibliography", bib.name]
    if csl is not None:
        args += ["--csl", str(csl.resolve())]
    tree = _run([*args, "-t", "json"], directory, check=True)
    keys = list(_entry_keys(json.loads(tree.stdout)))
    out = directory / "refs.docx"
    done = _run([*args, "-t", "docx", "-o", out.name], directory, check=True)
    return out, keys, done.stderr


def render_manager(bib: Path, fmt: str, csl: Path | None) -> tuple[Path, dict[str, str], list[str], str]:
    """(the rendered file, reader key -> `.bib` key, the `.docx`'s keys in order, the tool log)."""
    if fmt == "docx":
        path, keys, log = _docx(bib, csl)
        return path, {}, keys, log
    items = csl_items(bib)
    key_map = {str(position): str(item.get("id")) for position, item in enumerate(items, start=1)}
    if fmt == "ris":
        path, text = bib.parent / "refs.ris", write_ris(items)
    elif fmt == "endnote-xml":
        path, text = bib.parent / "refs-endnote.xml", write_endnote_xml(items)
    elif fmt == "zotero-rdf":
        path, text = bib.parent / "refs.rdf", write_zotero_rdf(items)
    else:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(MANAGER_FORMATS)})")
    path.write_text(text, encoding="utf-8", newline="")
    return path, key_map, [], ""
