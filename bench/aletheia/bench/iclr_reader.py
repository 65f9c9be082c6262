"""The ICLR 2026 real bibliographies (`../shared/data/benchmarks/iclr2026-real-bibliographies`) as
`CitedReference`s.

Each `papers/openreview_<id>/bibliography.json` is a list of objects: `title`, `authors` (strings,
"First Last", "et al." as the last one when cut), `year`, `venue` ("arXiv", "arXiv preprint",
"Proc ICLR", "n.d.", a publisher...), `url`, `doi`, `arxiv_url`, `raw_text` (the fields joined by
`#`, authors by `*`) and `type` ("arxiv", "non-arxiv", "other"). This is a bench input, not one of
the product's input formats.

Mapping: a preprint-server venue ("arXiv", "arXiv preprint arXiv:2504.06196") is no venue claim, as
citations write it; "n.d." (the style's "no date") and "" are no venue; "et al" ends the list
(`authors_truncated`); arXiv ids come from `arxiv_url`, `url` or an arXiv DOI, DOIs from `doi`, a
doi.org `url`, or a DOI in the last `#` field of `raw_text`; `entry_type` is "article" with a
venue (or an arXiv id), "book" when the venue is a publisher and there is no identifier, "misc"
when the venue is a hosting site (GitHub, Hugging Face) or there is only a URL and no venue.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from aletheia.bench.common import SHARED_DATA
from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import normalize_whitespace
from aletheia.core.venues import is_no_venue_claim

ICLR_DIR = SHARED_DATA / "benchmarks" / "iclr2026-real-bibliographies"
LLM_MODELS = ("sonnet46", "haiku45", "gemini31")
_TRUNCATION = re.compile(r"(?i)^(?:et\.?\s*al\.?|others|and others)$")
_PUBLISHER = re.compile(
    r"(?i)\b(?:press|publishing|publishers?|springer|wiley|elsevier|dover|o'reilly|packt|"
    r"foundation|books?)\b"
)
_HOSTING = re.compile(r"(?i)\b(?:github|gitlab|hugging ?face|kaggle|zenodo|pypi|website|blog)\b")
_NO_VENUE = frozenset({"", "n.d.", "n. d.", "nd", "none", "unknown"})


def _authors(names: Any) -> tuple[tuple[Author, ...], bool]:
    if not isinstance(names, list):
        return (), False
    out: list[Author] = []
    truncated = False
    for name in names:
        if not isinstance(name, str) or not name.strip():
            continue
        if _TRUNCATION.match(name.strip()):
            truncated = True
            continue
        author = parse_name(name)
        if author.literal or author.family or author.given:
            out.append(author)
    return tuple(out), truncated


def _venue(value: Any) -> str | None:
    text = normalize_whitespace(value) if isinstance(value, str) else ""
    if (
        text.lower() in _NO_VENUE
        or text.lower().startswith("http")
        or is_no_venue_claim(text)
        or text.lower().startswith("arxiv")
    ):
        return None
    return text


def reference_from_item(item: dict[str, Any], *, key: str, origin: str | None = None) -> CitedReference:
    """One bibliography.json object as a `CitedReference` (cited as written, never corrected)."""
    title = normalize_whitespace(item.get("title") or "") or None
    authors, truncated = _authors(item.get("authors"))
    url = normalize_whitespace(item.get("url") or item.get("cited_url") or "") or None
    raw = item.get("raw_text") or ""
    last_field = raw.rsplit("#", 1)[-1] if "#" in raw else ""
    doi = clean_doi(item.get("doi") or None)
    if doi is None:
        for text in (url or "", last_field):
            found = extract_identifiers(text).dois
            if found:
                doi = found[0]
                break
        if doi is None and last_field.strip().startswith("10."):
            doi = clean_doi(last_field.strip())
    arxiv = None
    for text in (item.get("arxiv_url") or "", url or ""):
        if "arxiv" in text.lower():
            arxiv = clean_arxiv_id(text) or next(iter(extract_identifiers(text).arxiv_ids), None)
            if arxiv is not None:
                break
    if arxiv is None and doi is not None:
        arxiv = arxiv_id_from_doi(doi)
    if arxiv is None:
        venue_text = item.get("venue") or ""
        found_ids = extract_identifiers(venue_text).arxiv_ids if isinstance(venue_text, str) else ()
        arxiv = found_ids[0] if found_ids else None
    venue = _venue(item.get("venue"))
    year = item.get("year")
    if not isinstance(year, int):
        match = re.search(r"(?<!\d)(19|20)\d{2}(?!\d)", str(year or ""))
        year = int(match.group()) if match else None
    if venue and _HOSTING.search(venue) and not arxiv:
        entry_type = "misc"  # howpublished = GitHub / Hugging Face, as BibTeX writes it
    elif venue and _PUBLISHER.search(venue) and not (arxiv or doi):
        entry_type = "book"
    elif venue:
        entry_type = "article"
    elif arxiv or str(item.get("venue") or "").lower().startswith("arxiv"):
        entry_type = "article"  # an arXiv preprint, cited as such (journal = arXiv)
    else:
        entry_type = "misc"
    fields = {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in item.items()}
    return CitedReference(
        key=key,
        entry_type=entry_type,
        fields=fields,
        title=title,
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=venue,
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        url=url,
        origin=origin,
    )


def paper_dirs(base: Path = ICLR_DIR) -> list[Path]:
    return sorted(p for p in (base / "papers").glob("openreview_*") if p.is_dir())


def read_paper(directory: Path, *, model: str | None = None) -> list[CitedReference]:
    """One paper's references, keyed `<paper id>:<index>` (the index in the file, from 1)."""
    name = f"bibliography_llm_{model}.json" if model else "bibliography.json"
    items = json.loads((directory / name).read_text(encoding="utf-8"))
    paper = directory.name.removeprefix("openreview_")
    return [
        reference_from_item(item, key=f"{paper}:{i}", origin=f"{directory.name}/{name}:{i}")
        for i, item in enumerate(items, start=1)
        if isinstance(item, dict)
    ]


def read_all(base: Path = ICLR_DIR, *, model: str | None = None) -> list[CitedReference]:
    return [ref for d in paper_dirs(base) for ref in read_paper(d, model=model)]
