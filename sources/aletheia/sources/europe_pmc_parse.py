"""Europe PMC's answers, parsed without I/O: the REST search (where a work's open-access full text
is) and the JATS XML of a full text (what the paper says, in sections and paragraphs).

The search (`{base}/europepmc/webservices/rest/search?query=...&format=json`) answers
`{"hitCount", "resultList": {"result": [...]}}`; each result names the work by `source` and `id`
(`MED`/PMID for PubMed records, `PMC`/PMCID for PMC-only ones) and carries `pmid`, `pmcid`, `doi`,
`title`, `journalTitle`, `pubYear`, and the flags `isOpenAccess` and `inEPMC` ("Y"/"N"). A full
text can be read only where the work has a PMCID and is in the open-access subset.

The full text (`{base}/europepmc/webservices/rest/{PMCID}/fullTextXML`) is a JATS `<article>`
(NCBI's `efetch db=pmc` wraps the same in `<pmc-articleset>`): `front/article-meta` (ids, title,
`abstract`), `body` (`sec` with `label`/`title`, `p`, lists, figures and tables with captions),
`back` (acknowledgements, appendices, the reference list). What becomes text (`parse_jats`):

- the abstract (section "Abstract"; a structured abstract's parts under their own titles, except a
  graphical abstract), every paragraph of the body under the title of the innermost section that
  holds it (label and title: "2.1 Participants"), list items, figure and table captions, boxed
  text and quotations, and the acknowledgements and appendices of `back`;
- not: the reference list, footnotes, table cells, MathML and TeX (a formula's markup is no prose
  anyone quotes), `sub-article`s (peer reviews, decision letters: not the paper's text).

Inline markup (`italic`, `xref` citations such as "[12]") keeps its text: a quotation copied from
the article page includes it. An article without a body (PMC answers metadata only when it may not
redistribute the text) has no full text: `JatsArticle.paper` is None.

The XML is refused if it declares entities or an internal DTD subset (`safe_xml`; the plain
DOCTYPE line PMC sends is allowed) or is larger than `MAX_JATS_CHARS`; the walk stops at
`MAX_DEPTH` levels of nesting and `MAX_BLOCKS` blocks. No recorded Europe PMC response is in
../shared: the fixtures (tests/fixtures/europe_pmc/) are modelled on the documented JATS shape.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Final

from aletheia.core.excerpts import PaperText, TextBlock
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import SourceParseError
from aletheia.sources.safe_xml import parse_untrusted_xml

__all__ = [
    "MAX_BLOCKS",
    "MAX_DEPTH",
    "MAX_JATS_CHARS",
    "EuropePmcHit",
    "JatsArticle",
    "parse_jats",
    "parse_search",
]

SOURCE = SourceName.EUROPE_PMC
# A long review is a few MB of JATS; anything past this is not an article.
MAX_JATS_CHARS: Final = 20_000_000
MAX_DEPTH: Final = 64
MAX_BLOCKS: Final = 20_000


# --- the search ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EuropePmcHit:
    """One search result: the work's identifiers and whether its full text can be read."""

    record: WorkRecord
    open_access: bool
    in_epmc: bool
    raw: dict[str, Any]

    @property
    def full_text_available(self) -> bool:
        """Open access with a PMCID: the `fullTextXML` of the PMCID answers (else it is a 404)."""
        return self.record.pmcid is not None and self.open_access and self.in_epmc


def _flag(value: Any) -> bool:
    return isinstance(value, str) and value.strip().upper() == "Y"


def _year(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and len(text) == 4 else None


def _string(value: Any) -> str | None:
    if isinstance(value, str | int) and str(value).strip():
        return normalize_whitespace(str(value))
    return None


def _hit(result: Any) -> EuropePmcHit:
    if not isinstance(result, dict):
        raise SourceParseError(SOURCE, f"a search result is {type(result).__name__}, not an object")
    title = _string(result.get("title"))
    source, ident = _string(result.get("source")), _string(result.get("id"))
    urls = {"europe_pmc": f"https://europepmc.org/article/{source}/{ident}"} if source and ident else {}
    record = WorkRecord(
        source=SOURCE,
        source_id=f"{source}:{ident}" if source and ident else ident,
        # Europe PMC keeps MEDLINE's closing period, which is no part of the title.
        title=title.removesuffix(".") if title else None,
        year=_year(result.get("pubYear")),
        venue=_string(result.get("journalTitle")),
        doi=clean_doi(result["doi"]) if isinstance(result.get("doi"), str) else None,
        pmid=clean_pmid(result["pmid"]) if isinstance(result.get("pmid"), str | int) else None,
        pmcid=clean_pmcid(result["pmcid"]) if isinstance(result.get("pmcid"), str) else None,
        urls=urls,
    )
    return EuropePmcHit(
        record=record,
        open_access=_flag(result.get("isOpenAccess")),
        # Older answers lack `inEPMC`; a PMCID then says the text is there.
        in_epmc=_flag(result["inEPMC"]) if "inEPMC" in result else record.pmcid is not None,
        raw=result,
    )


def parse_search(payload: Any) -> list[EuropePmcHit]:
    """The results of one search answer, in Europe PMC's order; `SourceParseError` on another shape."""
    if not isinstance(payload, dict):
        raise SourceParseError(SOURCE, f"search answer is {type(payload).__name__}, not an object")
    result_list = payload.get("resultList")
    if result_list is None and payload.get("hitCount") in (0, "0"):
        return []
    if not isinstance(result_list, dict) or not isinstance(result_list.get("result", []), list):
        raise SourceParseError(SOURCE, "search answer has no resultList.result list")
    return [_hit(result) for result in result_list.get("result", [])]


# --- JATS ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JatsArticle:
    """The identifiers a JATS article states, and its text (None: metadata only, no body)."""

    pmcid: str | None
    pmid: str | None
    doi: str | None
    title: str | None
    paper: PaperText | None


def _local(tag: Any) -> str:
    # Comments and processing instructions have a function as their tag.
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _is_math(tag: Any) -> bool:
    return isinstance(tag, str) and (
        tag.startswith("{http://www.w3.org/1998/Math/MathML}") or tag == "tex-math"
    )


# Elements that sit inside a paragraph but are blocks of their own (their text is not the
# paragraph's), and elements whose text is not prose at all.
_NESTED_BLOCKS: Final = frozenset(
    {"list", "fig", "table-wrap", "disp-quote", "boxed-text", "def-list", "fig-group", "table-wrap-group"}
)
_NOT_PROSE: Final = frozenset(
    {"disp-formula", "inline-formula", "alternatives", "table", "graphic", "media", "object-id", "fn"}
)
# Containers whose children are walked for blocks (everything else is ignored).
_CONTAINERS: Final = frozenset(
    {
        "list-item",
        "caption",
        "disp-quote",
        "boxed-text",
        "def-list",
        "def-item",
        "def",
        "term",
        "fig-group",
        "table-wrap-group",
        "app",
        "app-group",
        "ack",
        "glossary",
        "statement",
    }
)


def _inline_text(element: ET.Element, depth: int = 0) -> str:
    """The text of a paragraph: its own text and its inline children's, not nested blocks'."""
    parts = [element.text or ""]
    for child in element:
        tag = _local(child.tag)
        if depth < MAX_DEPTH and tag and tag not in _NESTED_BLOCKS and tag not in _NOT_PROSE:
            if not _is_math(child.tag):
                parts.append(_inline_text(child, depth + 1))
        elif tag in _NOT_PROSE or _is_math(child.tag):
            parts.append(" ")
        parts.append(child.tail or "")
    return "".join(parts)


def _heading(element: ET.Element) -> str | None:
    label = title = None
    for child in element:
        tag = _local(child.tag)
        if tag == "label" and label is None:
            label = normalize_whitespace(_inline_text(child))
        elif tag == "title" and title is None:
            title = normalize_whitespace(_inline_text(child))
    heading = " ".join(part for part in (label, title) if part)
    return heading or None


class _Collector:
    def __init__(self) -> None:
        self.blocks: list[TextBlock] = []

    def add(self, text: str, section: str | None, counter: list[int]) -> None:
        text = normalize_whitespace(text)
        if not text or len(self.blocks) >= MAX_BLOCKS:
            return
        counter[0] += 1
        self.blocks.append(TextBlock(text=text, section=section, paragraph=counter[0]))

    def walk(self, container: ET.Element, section: str | None, counter: list[int], depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        for child in container:
            tag = _local(child.tag)
            if tag == "sec":
                # A section's paragraphs are numbered from 1 under its own heading.
                self.walk(child, _heading(child) or section, [0], depth + 1)
            elif tag == "p":
                self.add(_inline_text(child), section, counter)
                nested = [c for c in child if _local(c.tag) in _NESTED_BLOCKS]
                for block in nested:
                    self.walk_block(block, section, counter, depth + 1)
            elif tag in _NESTED_BLOCKS or tag in _CONTAINERS:
                self.walk_block(child, section, counter, depth + 1)
            elif tag == "title" and _local(container.tag) == "caption":
                self.add(_inline_text(child), section, counter)

    def walk_block(self, element: ET.Element, section: str | None, counter: list[int], depth: int) -> None:
        tag = _local(element.tag)
        if tag in ("fig", "table-wrap"):
            for caption in (c for c in element if _local(c.tag) == "caption"):
                self.walk(caption, section, counter, depth + 1)
        elif tag in ("ack", "app") and _heading(element):
            self.walk(element, _heading(element), [0], depth + 1)
        elif tag == "ack":
            self.walk(element, "Acknowledgements", [0], depth + 1)
        else:
            self.walk(element, section, counter, depth + 1)


def _article(root: ET.Element) -> ET.Element:
    if _local(root.tag) == "article":
        return root
    for child in root:  # NCBI's <pmc-articleset><article>...
        if _local(child.tag) == "article":
            return child
    raise SourceParseError(SOURCE, f"JATS has no <article> (root <{_local(root.tag)}>)")


def _find(element: ET.Element | None, *path: str) -> ET.Element | None:
    for name in path:
        if element is None:
            return None
        element = next((c for c in element if _local(c.tag) == name), None)
    return element


def _article_ids(meta: ET.Element | None) -> dict[str, str]:
    ids: dict[str, str] = {}
    for child in meta if meta is not None else ():
        if _local(child.tag) == "article-id" and child.text and child.text.strip():
            ids.setdefault(child.get("pub-id-type", ""), child.text.strip())
    return ids


def parse_jats(xml_text: str | bytes) -> JatsArticle:
    """The identifiers and the text of one JATS article; `SourceParseError` when it is not one."""
    if len(xml_text) > MAX_JATS_CHARS:
        raise SourceParseError(SOURCE, f"JATS is {len(xml_text)} characters; the limit is {MAX_JATS_CHARS}")
    article = _article(parse_untrusted_xml(xml_text, source=SOURCE.value, allow_doctype=True))
    meta = _find(article, "front", "article-meta")
    ids = _article_ids(meta)
    title_element = _find(meta, "title-group", "article-title")
    title = normalize_whitespace(_inline_text(title_element)) if title_element is not None else None
    collector = _Collector()
    body = _find(article, "body")
    if body is not None:
        for abstract in (c for c in (meta if meta is not None else ()) if _local(c.tag) == "abstract"):
            if abstract.get("abstract-type") not in ("graphical", "teaser", "toc"):
                collector.walk(abstract, "Abstract", [0], 1)
        body_start = len(collector.blocks)
        collector.walk(body, None, [0], 1)
        has_body = len(collector.blocks) > body_start
        back = _find(article, "back")
        if back is not None and has_body:
            collector.walk(back, None, [0], 1)
    else:
        has_body = False
    paper = PaperText(blocks=tuple(collector.blocks), origin="pmc_jats") if has_body else None
    pmcid = ids.get("pmcid") or ids.get("pmc")
    if pmcid and pmcid.isdigit():  # NCBI writes the PMCID without its prefix
        pmcid = f"PMC{pmcid}"
    return JatsArticle(
        pmcid=clean_pmcid(pmcid) if pmcid else None,
        pmid=clean_pmid(ids["pmid"]) if "pmid" in ids else None,
        doi=clean_doi(ids["doi"]) if "doi" in ids else None,
        title=title or None,
        paper=paper,
    )
