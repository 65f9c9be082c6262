"""`--format csl-json`: every reference as a CSL-JSON item a reference manager imports.

Every cited field is kept (issue 20: a flagged entry came out as id, type, title and note only),
decoded from LaTeX and named as CSL names it (`CSL_FIELDS`); the type follows the entry type
(`report_entry.CSL_TYPES`: a conference paper is `paper-conference`). The values of the one
corrected record (`corrected.py`: what the decision put right; a plain reference rebuilt from its
matched record) replace the cited ones, exactly as in the corrected BibTeX; a verdict other than
`verified` or `metadata_error` says in `note` that the work is not verified.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from aletheia.pipeline.reports.corrected import FOUND, corrected_values
from aletheia.pipeline.reports.entry import CSL_TYPES, citation_key, csl_name, entry_type_of
from aletheia.pipeline.reports.fields import decode_value, decoded_cited

# BibTeX field -> CSL variable (title, authors, year and the venue are handled on their own).
CSL_FIELDS: Final[dict[str, str]] = {
    "volume": "volume",
    "pages": "page",
    "publisher": "publisher",
    "address": "publisher-place",
    "location": "publisher-place",
    "school": "publisher",
    "institution": "publisher",
    "organization": "publisher",
    "series": "collection-title",
    "edition": "edition",
    "chapter": "chapter-number",
    "isbn": "ISBN",
    "issn": "ISSN",
    "doi": "DOI",
    "url": "URL",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "abstract": "abstract",
    "keywords": "keyword",
    "language": "language",
    "note": "note",
    "howpublished": "medium",
}
# The venue fields, in the order they are read: CSL's container-title.
_CONTAINER = ("journal", "journaltitle", "booktitle", "venue")
_DASHES = re.compile(r"\s*-{2,3}\s*|\s*–\s*")


def _names(names: list[str]) -> list[dict[str, str]]:
    return [csl_name(name) for name in names if name != "et al."]


def csl_item(ref: Mapping[str, Any], key: str) -> dict[str, Any]:
    """One reference as a CSL-JSON item (see the module docstring)."""
    raw_input = {str(k).lower(): v for k, v in (ref.get("input") or {}).items()}
    cited = decoded_cited(ref)
    entry_type = entry_type_of(ref)
    item: dict[str, Any] = {"id": key, "type": CSL_TYPES.get(entry_type.lower(), "document")}
    if cited.get("title") or cited.get("raw"):
        item["title"] = cited.get("title") or cited.get("raw")
    if cited.get("authors"):
        item["author"] = _names(list(cited["authors"]))
    if raw_input.get("editor"):
        from aletheia.core.authors import parse_author_list

        item["editor"] = _names([a.display for a in parse_author_list(str(raw_input["editor"]))[0]])
    year = str(cited.get("year") or "")[:4]
    if year.isdigit():
        item["issued"] = {"date-parts": [[int(year)]]}
    container = next((raw_input[k] for k in _CONTAINER if raw_input.get(k)), None)
    if container:
        item["container-title"] = decode_value(container)
    number = raw_input.get("number") or raw_input.get("issue")
    if number:
        item["issue" if entry_type == "article" else "number"] = decode_value(number)
    for field, variable in CSL_FIELDS.items():
        if raw_input.get(field) and variable not in item:
            item[variable] = decode_value(raw_input[field])
    if "page" in item:
        item["page"] = _DASHES.sub("-", item["page"])
    if cited.get("doi"):
        item["DOI"] = cited["doi"]
    if cited.get("arxiv_id"):
        item["archive"], item["archive_location"] = "arXiv", cited["arxiv_id"]
    # The corrected record every export renders (`corrected.py`): the same values as the BibTeX.
    for name, value in corrected_values(ref).items():
        if name == "title":
            item["title"] = value
        elif name == "authors":
            item["author"] = _names(list(value))
        elif name == "year" and str(value)[:4].isdigit():
            item["issued"] = {"date-parts": [[int(str(value)[:4])]]}
        elif name == "doi":
            item["DOI"] = value
        elif name == "venue":  # a corrected venue replaces the cited one, as the BibTeX's does
            item["container-title"] = value
        elif name == "arxiv_id":
            item["archive"], item["archive_location"] = "arXiv", value
    if ref.get("verdict") not in FOUND:
        item["note"] = "; ".join(
            n for n in (item.get("note"), f"aletheia: {ref.get('verdict')} — not verified") if n
        )
    return item


def csl_items(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every reference, in input order, under its key (author-year for a plain list)."""
    taken: set[str] = set()
    return [csl_item(ref, citation_key(ref, taken)) for ref in refs]
