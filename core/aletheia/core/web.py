"""What the web tier's fetch of a cited URL says about a web reference (pure; docs/sources.md).

A web page, a blog post, a code repository cited by URL is outside the scholarly indexes
(`work_kinds.classify_kind(...).out_of_scope`). When the web tier is on, the pipeline fetches the
cited URL and records one `QueryKind.URL` answer from `SourceName.WEB`: FOUND with the page's
record (its `<title>`, `og:title` and first `<h1>`, the final URL after redirects), NOT_FOUND
for a page that is gone (404, 410), FAILED for anything else that did not answer (a name that does
not resolve, another 4xx or 5xx, a timeout, an address the SSRF rules refuse).

`web_check` reads that answer into one `WebState` for the status table:

- TITLE_MATCHES: a page title (whole, or one part of "Title | Site") agrees with the cited title
  under the product's title rule (`titles.TITLE_THRESHOLD`): the web resource exists as cited.
  That proves a page answers with that title today, nothing about its content, authors or date.
- TITLE_DIFFERS: the page answered with titles, none of which agrees with the cited one.
- UNREACHABLE: the page did not answer (never evidence of invention: pages move and die).
- NOTHING_TO_COMPARE: the page answered, but the citation has no title or the page none.

An archived copy (`web.archive.org/web/<timestamp>/<url>`) is dated by the final URL's timestamp
(the archive redirects to its nearest snapshot) and compared with the date the citation gives:
its access date (`urldate`, "Accessed ..."), else the timestamp of the archive URL it cites,
within `ARCHIVE_TOLERANCE_DAYS`; else its year, which a snapshot may follow but not precede by
more than a year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Final

from aletheia.core.evidence import Evidence, Outcome, QueryKind
from aletheia.core.field_evidence import Findings
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.core.verdicts import FieldEvidence

CONTENT_TYPE_WEB_PAGE: Final = "web_page"
ARCHIVE_TOLERANCE_DAYS: Final = 366
# Separators between a page's own title and its site's name ("Title | Site", "Site - Title").
_TITLE_PARTS: Final = re.compile(r"\s+(?:\||-|–|—|·|::|»|/)\s+")
_ARCHIVE: Final = re.compile(
    r"^https?://web\.archive\.org(?::\d+)?/web/(\d{4})(\d{2})?(\d{2})?\d*(?:[a-z]{2}_)?/", re.I
)
_ISO_DATE: Final = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_ACCESSED: Final = re.compile(r"(?:accessed|retrieved|visited)\D{0,20}?(\d{4}-\d{1,2}-\d{1,2}|\d{4})", re.I)
_YEAR: Final = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


class WebState(StrEnum):
    NOT_ASKED = "not_asked"
    UNREACHABLE = "unreachable"
    TITLE_MATCHES = "title_matches"
    TITLE_DIFFERS = "title_differs"
    NOTHING_TO_COMPARE = "nothing_to_compare"


@dataclass(frozen=True, slots=True)
class CitedDate:
    """A date the citation gives for its URL; `exact` when day and month are known."""

    day: date
    exact: bool
    what: str  # "access date", "archive URL", "year"


@dataclass(frozen=True, slots=True)
class WebCheck:
    state: WebState
    page: WorkRecord | None = None
    best_title: str | None = None
    similarity: float | None = None
    error: str | None = None
    snapshot: date | None = None
    cited_date: CitedDate | None = None

    @property
    def archive_agrees(self) -> bool | None:
        """None when there is no archived copy or no cited date to compare it with."""
        if self.snapshot is None or self.cited_date is None:
            return None
        cited = self.cited_date
        if cited.exact:
            return abs((self.snapshot - cited.day).days) <= ARCHIVE_TOLERANCE_DAYS
        if cited.what == "year":  # a publication year: a snapshot may come any time after it
            return self.snapshot.year >= cited.day.year - 1
        return abs(self.snapshot.year - cited.day.year) <= 1


def snapshot_date(url: str | None) -> date | None:
    """The date of a Wayback Machine snapshot URL (None for any other URL)."""
    m = _ARCHIVE.match((url or "").strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def _parse_date(text: str) -> CitedDate | None:
    m = _ISO_DATE.search(text)
    if m:
        try:
            return CitedDate(date(int(m.group(1)), int(m.group(2)), int(m.group(3))), True, "access date")
        except ValueError:
            return None
    y = _YEAR.search(text)
    return CitedDate(date(int(y.group(1)), 1, 1), False, "access date") if y else None


def cited_date(cited: CitedReference) -> CitedDate | None:
    """The access date, else the cited archive URL's timestamp, else the cited year."""
    for name in ("urldate", "accessed", "access-date", "accessdate", "lastchecked"):
        value = cited.fields.get(name)
        if value and (parsed := _parse_date(value)) is not None:
            return parsed
    for name in ("note", "howpublished"):
        m = _ACCESSED.search(cited.fields.get(name, ""))
        if m and (parsed := _parse_date(m.group(1))) is not None:
            return parsed
    archived = snapshot_date(cited.url)
    if archived is not None:
        return CitedDate(archived, True, "archive URL")
    if cited.year is not None:
        return CitedDate(date(cited.year, 1, 1), False, "year")
    return None


def page_titles(page: WorkRecord) -> list[str]:
    """Every title the page gives, and each part of a "Title | Site" title."""
    out: list[str] = []
    for title in (page.title, *page.alternate_titles):
        if not title:
            continue
        out.append(title)
        parts = [p for p in _TITLE_PARTS.split(title) if p.strip()]
        if len(parts) > 1:
            out.extend(parts)
            # "Main part - subtitle | Site": the title without only its last part
            out.append(" - ".join(parts[:-1]))
    return list(dict.fromkeys(out))


def _best(cited_title: str, titles: list[str]) -> tuple[str | None, float]:
    best, score = None, 0.0
    for t in titles:
        s = title_similarity(cited_title, t)
        if s > score:
            best, score = t, s
    return best, score


def web_check(cited: CitedReference, evidence: Evidence) -> WebCheck:
    """The state of the cited URL's fetch (`NOT_ASKED` when the web tier did not fetch it)."""
    answers = [a for a in evidence.for_kind(QueryKind.URL) if a.source is SourceName.WEB]
    if not answers:
        return WebCheck(WebState.NOT_ASKED)
    found = [r for a in answers if a.outcome is Outcome.FOUND for r in a.records]
    if not found:
        errors = [
            a.error or ("the page is gone (404/410)" if a.outcome is Outcome.NOT_FOUND else "")
            for a in answers
        ]
        return WebCheck(WebState.UNREACHABLE, error="; ".join(e for e in errors if e) or None)
    page = found[0]
    snapshot = snapshot_date(page.urls.get("final"))
    when = cited_date(cited)
    titles = page_titles(page)
    if not cited.title or not titles:
        return WebCheck(WebState.NOTHING_TO_COMPARE, page=page, snapshot=snapshot, cited_date=when)
    best, score = _best(cited.title, titles)
    state = WebState.TITLE_MATCHES if score >= TITLE_THRESHOLD else WebState.TITLE_DIFFERS
    return WebCheck(state, page=page, best_title=best, similarity=score, snapshot=snapshot, cited_date=when)


def web_notes(check: WebCheck) -> list[str]:
    """What the report says about the fetch, whatever the status."""
    if check.state is WebState.NOT_ASKED:
        return []
    if check.state is WebState.UNREACHABLE:
        return [
            f"web: the cited URL did not answer ({check.error or 'no answer'}); not evidence of invention"
        ]
    page = check.page
    if page is None:
        return []
    notes = [
        f"content type: {CONTENT_TYPE_WEB_PAGE} (a web resource answered; not a scholarly verification)",
        f"web: final URL {page.urls.get('final', '?')}, page title {page.title!r}",
    ]
    if check.similarity is not None:
        notes.append(f"web: best page title {check.best_title!r}, similarity {check.similarity:.2f}")
    if check.snapshot is not None:
        when = check.cited_date
        compared = f" against the cited {when.what} {when.day.isoformat()}" if when else ""
        notes.append(f"web: archived copy of {check.snapshot.isoformat()}{compared}")
    return notes


def web_findings(cited: CitedReference, check: WebCheck, findings: Findings) -> WorkRecord | None:
    """Add the fetch's title comparison and notes to a verdict's findings; the page it fetched."""
    if check.best_title is not None and check.page is not None:
        findings.fields["title"] = FieldEvidence(
            cited=cited.title,
            found=check.best_title,
            source=SourceName.WEB,
            similarity=round(check.similarity or 0.0, 3),
            threshold=TITLE_THRESHOLD,
            decisive=True,
            agrees=check.state is WebState.TITLE_MATCHES,
        )
    findings.notes.extend(web_notes(check))
    return check.page


# Every line `trail_notes` writes starts with one of these (the HTML report shows them apart).
TRAIL_PREFIXES: Final = ("web search", "LLM suggestion")


def _why(error: str | None, source: SourceName) -> str:
    return (error or "failed").removeprefix(f"{source.value}: ")


def _not_asked(what: str, source: SourceName, error: str | None) -> str:
    """ "web search skipped: no key (...)" for a tier that was off; else what failed."""
    why = _why(error, source)
    if why.startswith("skipped"):
        return f"{what} {why}"
    return f"{what} ({source.value}) failed: {why}"


def trail_notes(evidence: Evidence) -> list[str]:
    """What the web search and the LLM fallback did (never evidence; `NOT_EVIDENCE`), in words:
    "web search skipped: no key (...)", "LLM suggestion (not evidence): 'Title' (doi ...)"."""
    notes: list[str] = []
    for a in evidence.answers:
        if a.kind is QueryKind.WEB_SEARCH:
            if a.outcome is Outcome.FAILED:
                notes.append(_not_asked("web search", a.source, a.error))
            else:
                found = sum(1 for r in a.records if r.doi or r.arxiv_id or r.pmid)
                notes.append(
                    f"web search ({a.source.value}): {len(a.records)} results, {found} with an identifier"
                )
        elif a.kind is QueryKind.SUGGESTION:
            if a.outcome is Outcome.FAILED:
                notes.append(_not_asked("LLM suggestion", a.source, a.error))
            elif not a.records:
                notes.append("LLM suggestion: none (the model knew no such work)")
            for r in a.records:
                ids = ", ".join(f"{k} {v}" for k, v in (("doi", r.doi), ("arXiv", r.arxiv_id)) if v)
                what = f"{r.title!r}" + (f" ({ids})" if ids else "")
                notes.append(f"LLM suggestion (not evidence; check it by hand): {what}")
    return notes


def is_trail_note(note: str) -> bool:
    """A line of `trail_notes` (the skipped or consulted tiers 4 and 5)."""
    return note.startswith(TRAIL_PREFIXES)
