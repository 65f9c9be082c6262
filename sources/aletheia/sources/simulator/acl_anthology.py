"""The ACL Anthology (`aclanthology.org`): a paper's BibTeX by anthology id.

Endpoint: `GET /{id}.bib` (`2023.acl-long.123.bib`, `P19-1001.bib`): one `@inproceedings` (an
`@article` for a journal) as the anthology exports it: `title` with braces protecting capitals,
`author` as "Last, First and ...", `booktitle`/`journal`, `year`, `publisher`, `url` and ACL's
DOI `10.18653/v1/{id}` when the work has it; 404 for an id the universe does not list. A work is in
the anthology when it has an `acl_anthology_id` (or lists "acl_anthology" in `sources`).
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.sources.simulator.common import SimContext
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, text_response
from aletheia.sources.simulator.work import SimWork

_BIB: Final = re.compile(r"^/(?P<id>[^/]+)\.bib$")


def _bib_value(text: str) -> str:
    # Braces and backslashes would end or escape the value: dropped (titles are plain text here).
    return re.sub(r"[{}\\\"]", "", text)


def render_bib(work: SimWork, anthology_id: str) -> str:
    entry_type = "article" if work.type == "journal-article" else "inproceedings"
    container = "journal" if entry_type == "article" else "booktitle"
    people = "  and\n      ".join(
        _bib_value(f"{a.family}, {a.given}" if a.family and a.given else a.display) for a in work.authors
    )
    first = (work.authors[0].family or work.authors[0].display).lower() if work.authors else "anon"
    fields = [
        ("title", "{" + _bib_value(work.display_title) + "}"),
        ("author", people),
        (container, _bib_value(work.venue or "")),
        ("year", str(work.year or "")),
        ("publisher", "Association for Computational Linguistics"),
        ("url", f"https://aclanthology.org/{anthology_id}/"),
    ]
    if work.doi:
        fields.append(("doi", work.doi))
    body = ",\n".join(f'    {name} = "{value}"' for name, value in fields if value)
    key = re.sub(r"[^a-z0-9]+", "-", f"{first}-etal-{work.year or ''}")
    return f"@{entry_type}{{{key},\n{body}\n}}\n"


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    match = _BIB.match(path)
    return "single", [match.group("id")] if match else []


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    match = _BIB.match(path)
    if match is None:
        return text_response("Not Found", status=404)
    catalog = ctx.universe.catalog("acl_anthology")
    ids = catalog.derived(
        "acl_anthology_ids",
        lambda c: {w.acl_anthology_id: i for i, w in enumerate(c.works) if w.acl_anthology_id},
    )
    index = ids.get(match.group("id"))
    if index is None:
        return text_response("Not Found", status=404)
    return text_response(
        render_bib(catalog.works[index], match.group("id")), content_type="text/x-bibtex; charset=utf-8"
    )
