"""One Crossref work item, as `/works/{doi}`, the `items` of `/works?` and the data files give it.

Shapes follow recorded responses: list-valued `title`/`container-title`/`subtitle`, `date-parts`
dates, organisations as `{"name"}` authors, the abstract in JATS. A retracted work carries
`updated-by` (its notice's DOI), a notice `update-to`. A work recorded from the real service
(`native`) is served verbatim, with the answer's score.
"""

from __future__ import annotations

from typing import Any

from aletheia.sources.simulator.common import SimContext, month_day, timestamp_ms
from aletheia.sources.simulator.ids import stable_int
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import SimWork


def _date_parts(year: int | None, month: int | None = None, day: int | None = None) -> dict[str, Any]:
    if year is None:
        return {"date-parts": [[None]]}
    parts = [year] + ([month] if month else []) + ([day] if month and day else [])
    return {"date-parts": [parts]}


def _stamp(year: int, month: int, day: int) -> dict[str, Any]:
    from datetime import UTC, datetime

    moment = datetime(year, month, day, 9, 30, tzinfo=UTC)
    return {
        "date-parts": [[year, month, day]],
        "date-time": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timestamp": timestamp_ms(moment),
    }


def _author(author_index: int, work: SimWork) -> dict[str, Any]:
    author = work.authors[author_index]
    entry: dict[str, Any] = {}
    if author.literal:
        entry["name"] = author.literal
    else:
        if author.given:
            entry["given"] = author.given
        entry["family"] = author.family
    if author.orcid:
        entry["ORCID"] = f"https://orcid.org/{author.orcid}"
        entry["authenticated-orcid"] = False
    entry["sequence"] = "first" if author_index == 0 else "additional"
    entry["affiliation"] = []
    return entry


def _relation(work: SimWork) -> dict[str, Any]:
    relation: dict[str, Any] = {}
    related = work.related
    if related is None:
        return relation
    if related.preprint_doi:
        relation["has-preprint"] = [{"id-type": "doi", "id": related.preprint_doi, "asserted-by": "object"}]
    if related.preprint_arxiv_id:
        relation.setdefault("has-preprint", []).append(
            {"id-type": "arxiv", "id": related.preprint_arxiv_id, "asserted-by": "object"}
        )
    if related.published_doi:
        relation["is-preprint-of"] = [
            {"id-type": "doi", "id": related.published_doi, "asserted-by": "subject"}
        ]
    return relation


def _update(doi: str, year: int | None, salt: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"DOI": doi, "type": "retraction", "label": "Retraction", "source": "publisher"}
    if year is not None:
        month, day = (1 + stable_int(salt, doi, digits=4) % 12, 1 + stable_int(salt, doi, digits=5) % 28)
        entry["updated"] = _stamp(year, month, day)
    return entry


def render_work(work: SimWork, catalog: SourceCatalog, ctx: SimContext, *, score: float) -> dict[str, Any]:
    """One Crossref work item, as `/works/{doi}` and `/works?` return it."""
    assert work.doi is not None
    recorded = work.native.get("crossref")
    if recorded is not None:
        # The real service's item, verbatim; a search answer carries its relevance score.
        return {**recorded, "score": score}
    month, day = month_day(work, "crossref")
    item = _deposit(work, month, day)
    _add_publication(item, work, catalog, month, day)
    _add_listing(item, work, month, day, score)
    return item


def _deposit(work: SimWork, month: int, day: int) -> dict[str, Any]:
    """The item's first fields, in Crossref's order: what the publisher deposited (publisher,
    container, ISSNs, abstract, DOI and type, registration date, pages, title, authors)."""
    assert work.doi is not None
    year = work.year
    registered_year = year or 2000
    item: dict[str, Any] = {
        "indexed": {**_stamp(2025, 1 + month % 12, day), "version": "3.54.1"},
        "reference-count": stable_int("refs", work.key, digits=2),
        "publisher": work.publisher or "Simulated Publisher",
    }
    if work.issue:
        item["issue"] = work.issue
    item["content-domain"] = {"domain": [], "crossmark-restriction": False}
    if work.venue_aliases:
        item["short-container-title"] = list(work.venue_aliases)
    elif work.venue and work.type == "journal-article":
        item["short-container-title"] = [work.venue]
    if work.issn:
        item["ISSN"] = list(work.issn)
        item["issn-type"] = [
            {"value": issn, "type": "print" if n == 0 else "electronic"} for n, issn in enumerate(work.issn)
        ]
    if work.abstract:
        item["abstract"] = f"<jats:p>{_jats_escape(work.abstract)}</jats:p>"
    item["DOI"] = work.doi
    item["type"] = work.type
    if work.type == "posted-content":
        item["subtype"] = "preprint"
    if year is not None:
        # A work whose date the universe does not know (a copy of another source's record in a
        # benchmark universe) gets no registration date either: a made-up year would be read as
        # the work's (`crossref_parse._year` falls back to `created`).
        item["created"] = _stamp(registered_year, month, day)
    if work.pages:
        item["page"] = work.pages
    item["source"] = "Crossref"
    item["is-referenced-by-count"] = stable_int("cited", work.key, digits=3)
    item["title"] = [work.title]
    item["prefix"] = work.doi.split("/", 1)[0]
    if work.volume:
        item["volume"] = work.volume
    if work.authors:
        item["author"] = [_author(i, work) for i in range(len(work.authors))]
    item["member"] = str(stable_int("member", item["prefix"], digits=4))
    return item


def _add_publication(
    item: dict[str, Any], work: SimWork, catalog: SourceCatalog, month: int, day: int
) -> None:
    """The publication dates (posted, online, print) and the retraction links: `updated-by` on a
    retracted work, `update-to` on a notice."""
    year = work.year
    if work.type == "posted-content":
        item["posted"] = _date_parts(year, month, day)
        item["institution"] = [{"name": work.venue or "Preprint server"}]
    elif year is not None:
        item["published-online"] = _date_parts(year, month, day)
    if work.type == "journal-article" and year is not None:
        item["published-print"] = _date_parts(year, month)
    if work.retracted:
        notice_doi = work.retraction_notice_doi or _notice_doi(work, catalog)
        if notice_doi:
            item["updated-by"] = [
                _update(notice_doi, work.retraction_year or (year + 1 if year else None), "upd")
            ]
    target = work.meta.get("retraction_of")
    if isinstance(target, str):
        item["update-to"] = [_update(target, year, "upd")]
        item["update-policy"] = f"https://doi.org/{item['prefix']}/crossmark-policy"


def _add_listing(item: dict[str, Any], work: SimWork, month: int, day: int, score: float) -> None:
    """The item's last fields: container title, links, deposit date, score, journal issue,
    relations and the issued/published dates."""
    year = work.year
    registered_year = year or 2000
    # A series (Lecture Notes in Computer Science) follows the proceedings or book title.
    item["container-title"] = (
        [work.venue, *([work.series] if work.series else [])]
        if work.venue and work.type != "posted-content"
        else []
    )
    item["original-title"] = []
    item["language"] = "en"
    item["link"] = [
        {
            "URL": f"https://example.org/fulltext/{work.doi}",
            "content-type": "unspecified",
            "content-version": "vor",
            "intended-application": "similarity-checking",
        }
    ]
    item["deposited"] = _stamp(max(registered_year, 2020), month, day)
    item["score"] = score
    item["resource"] = {"primary": {"URL": f"https://example.org/landing/{work.doi}"}}
    item["subtitle"] = [work.subtitle] if work.subtitle else []
    item["short-title"] = []
    item["issued"] = _date_parts(year, month, day)
    item["references-count"] = item["reference-count"]
    if work.type == "journal-article" and (work.issue or year is not None):
        journal_issue: dict[str, Any] = {}
        if work.issue:
            journal_issue["issue"] = work.issue
        if year is not None:
            journal_issue["published-print"] = _date_parts(year, month)
        item["journal-issue"] = journal_issue
    item["URL"] = f"https://doi.org/{work.doi}"
    item["relation"] = _relation(work)
    item["subject"] = []
    item["published"] = _date_parts(year, month, day)


def _notice_doi(work: SimWork, catalog: SourceCatalog) -> str | None:
    assert work.doi is not None
    notices = catalog.notices_for.get(work.doi, [])
    return catalog.works[notices[0]].doi if notices else None


def _jats_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
