"""Reports a person can act on: every reason code as a sentence with the values filled in, and for
each reference what is wrong, how we know (which source said what) and what to change.

Everything here reads the JSON report object of a reference (`report.reference_json`, the shape
in docs/report-schema.md), so a stored job's report (`aletheia report JOB`) is explained the same
way as a fresh run. docs/verdicts.md stays the reference for what each code means; this module
only says it in plain words.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from aletheia.core.acl_ids import acl_id_from_text
from aletheia.core.case import IDENTIFIER_ELSEWHERE_NOTE
from aletheia.core.source_display import SOURCE_NAMES, source_name
from aletheia.core.verdicts import Reason
from aletheia.pipeline.reports.fields import list_difference

__all__ = ["SENTENCES", "SOURCE_NAMES", "context", "fill", "role", "sentence", "source_name"]

# The role of a reason in the three questions: "wrong" answers what is wrong, "how" how we know,
# "note" is worth saying but asks for nothing.
WRONG, HOW, NOTE = "wrong", "how", "note"

# Reason -> (role, templates). The first template whose placeholders all have a value is used; the
# last one has no placeholders, so every reason always has a sentence (tests/unit/test_explain.py).
SENTENCES: dict[Reason, tuple[str, tuple[str, ...]]] = {
    # identity
    Reason.DOI_RESOLVED: (
        HOW,
        ("the DOI {doi_cited} resolves to this work", "the cited DOI resolves to this work"),
    ),
    Reason.DOI_NOT_FOUND: (
        WRONG,
        ("the DOI {doi_cited} is registered nowhere", "the cited DOI is registered nowhere"),
    ),
    Reason.DOI_POINTS_ELSEWHERE: (
        WRONG,
        (
            "the DOI {doi_cited} belongs to another work: {elsewhere_says} “{elsewhere_title}”",
            "the cited DOI belongs to another work",
        ),
    ),
    Reason.ARXIV_RESOLVED: (
        HOW,
        ("arXiv:{arxiv_id_cited} resolves to this work", "the cited arXiv id resolves to this work"),
    ),
    Reason.ARXIV_NOT_FOUND: (
        WRONG,
        ("arXiv:{arxiv_id_cited} does not exist", "the cited arXiv id does not exist"),
    ),
    Reason.ARXIV_POINTS_ELSEWHERE: (
        WRONG,
        (
            "arXiv:{arxiv_id_cited} is another work: {elsewhere_says} “{elsewhere_title}”",
            "the cited arXiv id belongs to another work",
        ),
    ),
    Reason.PMID_RESOLVED: (
        HOW,
        ("PMID {pmid_cited} resolves to this work", "the cited PMID resolves to this work"),
    ),
    Reason.PMID_NOT_FOUND: (WRONG, ("PMID {pmid_cited} does not exist", "the cited PMID does not exist")),
    Reason.PMID_POINTS_ELSEWHERE: (
        WRONG,
        (
            "PMID {pmid_cited} is another work: {elsewhere_says} “{elsewhere_title}”",
            "the cited PMID belongs to another work",
        ),
    ),
    Reason.MATCHED_BY_SEARCH: (HOW, ("found by searching for the title (no identifier settled it)",)),
    Reason.VENUE_CONFIRMED_BY_DBLP: (HOW, ("DBLP lists the work under the cited venue",)),
    Reason.ORCID_CONFLICT: (
        NOTE,
        ("two sources give one of the authors different ORCID iDs: they disagree on who that author is",),
    ),
    Reason.NO_MATCH_FOUND: (
        WRONG,
        ("no source has this work (searched: {asked})", "no source has this work"),
    ),
    Reason.SEVERAL_CANDIDATES: (
        WRONG,
        ("several works fit the title and first author equally well; the sources cannot say which is meant",),
    ),
    # fields
    Reason.TITLE_MISMATCH: (
        WRONG,
        ("the title is another: cited “{title_cited}”; {title_says} “{title_found}”", "the title is another"),
    ),
    Reason.TITLE_NEAR_MISS: (
        WRONG,
        (
            "the title differs by a few words: cited “{title_cited}”; {title_says} “{title_found}”",
            "the title differs by a few words",
        ),
    ),
    Reason.FIRST_AUTHOR_MISMATCH: (
        WRONG,
        (
            "the first author is another: cited {first_author_cited}; "
            "{first_author_says} {first_author_found}",
            "the first author is another",
        ),
    ),
    Reason.AUTHORS_SWAPPED: (
        WRONG,
        (
            "the authors are wrong or out of order: cited {authors_cited}; {authors_says} {authors_found}",
            "the authors are wrong or out of order",
        ),
    ),
    Reason.AUTHORS_TRUNCATED: (
        WRONG,
        (
            "authors are left out at the end without “et al.”: missing {authors_missing}; "
            "{authors_says} {authors_found}",
            "authors are left out at the end without “et al.”",
        ),
    ),
    Reason.AUTHORS_EXTRA: (
        WRONG,
        (
            "the citation lists authors the sources do not: {authors_extra}",
            "the citation lists authors the sources do not",
        ),
    ),
    Reason.AUTHORS_MISSING_TRAILING: (
        NOTE,
        ("the last co-author is left out: {authors_missing}", "the last co-author is left out"),
    ),
    Reason.AUTHOR_LIST_DIFFERS: (
        WRONG,
        (
            "the author list differs: missing {authors_missing}; {authors_says} {authors_found}",
            "the author list differs: cited {authors_extra}, which {authors_says} does not list",
            "the author list differs: {authors_says} {authors_found}",
            "the author list differs from the sources'",
        ),
    ),
    Reason.YEAR_MISMATCH: (
        WRONG,
        ("the year is wrong: cited {year_cited}; {year_says} {year_found}", "the year is wrong"),
    ),
    Reason.YEAR_OF_UNSEEN_VERSION: (
        NOTE,
        (
            "cited {year_cited}, later than the preprint the sources show ({year_found}): the year "
            "of a published version no source shows",
            "the year of a published version no source shows",
        ),
    ),
    Reason.YEAR_OFF_BY_ONE_VERSIONS: (
        NOTE,
        (
            "the year is one off: cited {year_cited}; {year_says} {year_found} "
            "(versions or print and online dates)",
            "the year is one off (versions or print and online dates)",
        ),
    ),
    Reason.VENUE_MISMATCH: (
        WRONG,
        ("the venue is another: cited “{venue_cited}”; {venue_says} “{venue_found}”", "the venue is another"),
    ),
    Reason.VENUE_FORM: (
        NOTE,
        (
            "the venue is written another way: cited “{venue_cited}”; {venue_says} “{venue_found}”",
            "the venue is written another way",
        ),
    ),
    Reason.PREPRINT_CITED_AS_PUBLISHED: (
        WRONG,
        ("cited as published, but the sources that record publications list only the preprint",),
    ),
    Reason.PREPRINT_OF_PUBLISHED: (
        NOTE,
        (
            "the cited preprint has a published version: {match_venue}",
            "the cited preprint has a published version",
        ),
    ),
    Reason.ARXIV_VERSION_MISMATCH: (
        WRONG,
        (
            "the cited version of arXiv:{arxiv_id_cited} does not exist yet",
            "the cited arXiv version does not exist yet",
        ),
    ),
    Reason.TITLE_CHANGED_BETWEEN_VERSIONS: (
        NOTE,
        (
            "the title changed between arXiv versions: cited “{title_cited}”, now “{current_title}”",
            "the title changed between arXiv versions",
        ),
    ),
    Reason.VENUE_UNRESOLVED: (
        NOTE,
        (
            "the venue could not be matched with the sources' names for it: cited “{venue_cited}”; "
            "{venue_says} “{venue_found}”",
            "the cited venue “{venue_cited}” could not be matched with the sources' names for it",
            "the venue could not be matched with the sources' names for it",
        ),
    ),
    Reason.PUBLISHED_VERSION_UNCONFIRMED: (
        NOTE,
        (
            "cited at “{venue_cited}”, but only the preprint is visible and no source places it there",
            "a venue is cited, but only the preprint is visible and no source places it there",
        ),
    ),
    Reason.AUTHOR_LIST_UNCONFIRMED: (
        NOTE,
        (
            "{authors_source} does not list {authors_extra} (only one source's list lacks them)",
            "one source lists fewer authors than cited",
        ),
    ),
    Reason.TITLE_CUT_SHORT: (
        NOTE,
        ("the title is cut short: {title_says} “{title_found}”", "the title is cut short"),
    ),
    Reason.TITLE_MISSPELLED: (
        WRONG,
        ("a word of the title is misspelt: {title_says} “{title_found}”", "a word of the title is misspelt"),
    ),
    # invention
    Reason.FUTURE_YEAR: (WRONG, ("the year {year_cited} has not come yet", "the year has not come yet")),
    Reason.PLACEHOLDER_AUTHORS: (
        WRONG,
        ("the authors are placeholders: {authors_cited}", "the authors are placeholders"),
    ),
    Reason.PLACEHOLDER_TITLE: (
        WRONG,
        ("the title is a placeholder: “{title_cited}”", "the title is a placeholder"),
    ),
    Reason.IDENTIFIER_RESOLVES_NOWHERE: (
        WRONG,
        (
            "the identifier {identifier_cited} resolves at no registry",
            "the cited identifier resolves at no registry",
        ),
    ),
    Reason.TITLE_CHIMERA: (
        WRONG,
        (
            "no source has this title; it is pinned on real authors ({authors_cited})",
            "no source has this title; it is pinned on real authors",
        ),
    ),
    Reason.NONEXISTENT_VENUE: (
        WRONG,
        (
            "no venue registry knows “{venue_cited}” under any name (OpenAlex, DBLP and Crossref asked)",
            "no venue registry knows the cited venue under any name",
        ),
    ),
    # standing
    Reason.RETRACTED: (
        WRONG,
        ("the work was retracted ({retraction_notice}; {retraction_says})", "the work was retracted"),
    ),
    Reason.EXPRESSION_OF_CONCERN: (WRONG, ("the publisher issued an expression of concern about this work",)),
    Reason.CORRECTED: (NOTE, ("a correction to this work was published",)),
    Reason.WITHDRAWN: (
        WRONG,
        ("the work was withdrawn ({retraction_notice}; {retraction_says})", "the work was withdrawn"),
    ),
    # process
    Reason.TRIANGULATED: (
        HOW,
        (
            "{match_sources} agree on its title, first author and year",
            "two sources agree on its title, first author and year",
        ),
    ),
    Reason.SINGLE_SOURCE: (
        NOTE,
        (
            "only {match_sources} has this work; no second source confirmed it",
            "only one source has this work",
        ),
    ),
    Reason.TRIANGULATION_CONFLICT: (
        WRONG,
        ("the sources disagree: {conflicts}", "the sources disagree on a decisive field"),
    ),
    Reason.SOURCE_UNAVAILABLE: (NOTE, ("could not ask {unavailable}", "a source could not be asked")),
    Reason.INSUFFICIENT_METADATA: (WRONG, ("too little to check: no title, identifier or text",)),
    Reason.SEARCH_INCOMPLETE: (
        WRONG,
        (
            "not every source that could hold it was searched: {not_searched}",
            "not every source that could hold it was searched",
        ),
    ),
    Reason.NOT_YET_INDEXED: (
        NOTE,
        (
            "cited as this year's work with no identifier: the indexes may not hold it yet",
            "cited as this year's work with no identifier: the indexes may not hold it yet",
        ),
    ),
    Reason.UNINDEXED_KIND: (
        NOTE,
        (
            "a kind of work the indexes hold only in part: {kind}",
            "a kind of work the indexes hold only in part",
        ),
    ),
    Reason.OUT_OF_SCOPE_TYPE: (
        NOTE,
        ("not a work the scholarly indexes hold: {kind}", "not a work the scholarly indexes hold"),
    ),
    Reason.LIBRARY_HIT: (HOW, ("answered from the local library",)),
    Reason.WEB_PAGE_TITLE_MATCHES: (
        HOW,
        (
            "the cited URL answers with the cited title: “{title_found}” (a web page, not a paper)",
            "the cited URL answers with the cited title (a web page, not a scholarly record)",
        ),
    ),
    Reason.WEB_PAGE_TITLE_DIFFERS: (
        NOTE,
        (
            "the cited URL answers with another title: cited “{title_cited}”; the page says “{title_found}”",
            "the cited URL answers with another title",
        ),
    ),
    Reason.WEB_PAGE_UNREACHABLE: (
        NOTE,
        ("the cited URL did not answer, so the web page could not be checked",),
    ),
    Reason.ARCHIVE_DATE_DIFFERS: (
        NOTE,
        ("the archived copy is of another date than the one cited",),
    ),
    # books (Tier 1) and canonical texts (Tier 3)
    Reason.ISBN_RESOLVED: (HOW, ("the cited ISBN resolves to this book in a book catalogue",)),
    Reason.ISBN_NOT_FOUND: (
        NOTE,
        ("no book catalogue knows the cited ISBN (catalogues are incomplete: this is no evidence)",),
    ),
    Reason.ISBN_POINTS_ELSEWHERE: (WRONG, ("the cited ISBN belongs to another book",)),
    Reason.ACL_ID_RESOLVED: (HOW, ("the cited ACL Anthology id resolves to this paper in the anthology",)),
    Reason.ACL_ID_NOT_FOUND: (WRONG, ("the ACL Anthology has no paper under the cited anthology id",)),
    # (no title in the sentence: when a search found the cited paper, the match is that paper)
    Reason.ACL_ID_POINTS_ELSEWHERE: (WRONG, ("the cited ACL Anthology id belongs to another paper",)),
    Reason.BOOK_NOT_IN_CATALOGUES: (
        NOTE,
        ("no book catalogue has this book; catalogues are incomplete, so it could not be checked",),
    ),
    Reason.BOOK_SINGLE_CATALOGUE: (
        NOTE,
        (
            "only one book catalogue's search has this book ({match_sources}), with no ISBN to confirm it; "
            "one catalogue record is not proof",
            "only one book catalogue's search has this book, with no ISBN to confirm it; one catalogue "
            "record is not proof",
        ),
    ),
    Reason.EDITION_YEAR_DIFFERS: (
        NOTE,
        (
            "the year is another edition's: cited {year_cited}; {year_says} {year_found}",
            "the year is another edition's",
        ),
    ),
    Reason.PUBLISHER_DIFFERS: (
        NOTE,
        ("the catalogues name another publisher (an imprint or another edition?)",),
    ),
    Reason.CANONICAL_PASSAGE_VERIFIED: (HOW, ("the cited passage was read in the canonical text",)),
    Reason.PASSAGE_OUT_OF_RANGE: (
        WRONG,
        (
            "the cited passage does not exist: {passage_found}",
            "the cited passage is beyond the work's structure",
        ),
    ),
    Reason.UNKNOWN_CANONICAL_WORK: (
        NOTE,
        ("a classical work not in the table of canonical works, so its passage could not be checked",),
    ),
    Reason.CANONICAL_PASSAGE_NOT_SERVED: (
        NOTE,
        ("the canonical-text service has no such passage in its edition; editions number differently",),
    ),
    Reason.QUOTE_IN_PASSAGE: (HOW, ("the quoted words are verbatim in the passage",)),
    Reason.QUOTE_IN_BOOK_SNIPPET: (
        HOW,
        ("the quoted words are verbatim in a Google Books page snippet of the book",),
    ),
    Reason.QUOTE_UNCONFIRMED_IN_BOOK: (
        NOTE,
        ("no page snippet of the book holds the quoted words (snippets show some pages only: no evidence)",),
    ),
    Reason.QUOTE_NOT_IN_PASSAGE: (
        NOTE,
        ("the quoted words are not verbatim in the passage served (another translation or edition?)",),
    ),
    Reason.LOW_TRUST_EVIDENCE: (
        WRONG,
        (
            "only low-trust evidence has this work ({match_sources}: a web page, a search hit or "
            "model output), which decides nothing; no registry or index confirmed it",
            "only low-trust evidence (a web page, a search hit or model output) has this work; "
            "no registry or index confirmed it",
        ),
    ),
}


def join_names(names: list[str]) -> str:
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class _Missing(KeyError):
    pass


class _Context(dict[str, Any]):
    """Template values; a missing or empty value makes the template fall through to the next."""

    def __missing__(self, key: str) -> Any:
        raise _Missing(key)


_FORMATTER = string.Formatter()


def fill(templates: tuple[str, ...], context: Mapping[str, Any]) -> str:
    ctx = _Context({k: v for k, v in context.items() if v not in (None, "", [], ())})
    for template in templates:
        try:
            return _FORMATTER.vformat(template, (), ctx)
        except _Missing:
            continue
    return templates[-1]


def sentence(reason: str, context: Mapping[str, Any]) -> str:
    """The reason in plain words, with the values of `context` filled in."""
    try:
        role_templates = SENTENCES[Reason(reason)]
    except ValueError:
        return reason.replace("_", " ")
    return fill(role_templates[1], context)


def role(reason: str) -> str:
    try:
        return SENTENCES[Reason(reason)][0]
    except ValueError:
        return NOTE


# --- the facts of one reference, as words ----------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _says(names: list[str]) -> str:
    return f"{join_names(names)} {'say' if len(names) > 1 else 'says'}"


def _field_sources(ref: Mapping[str, Any], name: str, ev: Mapping[str, Any]) -> list[str]:
    """Who said the found value: the field's source, and the match's other sources when the
    decisive fields were triangulated (they agree on it)."""
    own = ev.get("source")
    names = [own] if own else []
    match = ref.get("match") or {}
    year_spread = any(str(n).startswith("year_sources_differ") for n in ref.get("notes", []))
    if (
        ev.get("decisive")
        and "triangulated" in ref.get("reasons", [])
        and not (name == "year" and year_spread)
    ):
        names += [s for s in match.get("sources", []) if s not in names and s != "library"]
    return [source_name(n) for n in names]


def _note(ref: Mapping[str, Any], prefix: str) -> str | None:
    for note in ref.get("notes", []):
        if str(note).startswith(prefix):
            return str(note)[len(prefix) :].strip()
    return None


def asked_sources(ref: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(sources that answered, sources that could not be asked) for this reference."""
    answered: list[str] = []
    failed: list[str] = []
    for t in ref.get("trace", []):
        name = t.get("source")
        if t.get("outcome") == "failed" and f"{name}: skipped:" in str(t.get("error") or ""):
            continue  # a tier that is off (no key, offline) was not asked: its note says so
        if t.get("outcome") == "failed":
            failed.append(name)
        elif name not in answered:
            answered.append(name)
    for name in ref.get("sources_unavailable", []):
        failed.append(name)
    not_asked = []
    for name in failed:
        if name not in answered and name not in not_asked:
            not_asked.append(name)
    return answered, not_asked


def _acl_id_cited(cited: Mapping[str, Any]) -> str:
    """An ACL Anthology id the citation gives by URL, as the sentences name it ("" if none)."""
    texts = [cited.get("url"), *(cited.get("fields") or {}).values(), cited.get("raw")]
    for text in texts:
        found = acl_id_from_text(text) if isinstance(text, str) else None
        if found:
            return f"ACL Anthology {found}"
    return ""


def context(ref: Mapping[str, Any], cited: Mapping[str, Any]) -> dict[str, Any]:
    """The values the sentences use: cited and found values, who said them, what was asked."""
    ctx: dict[str, Any] = {}
    for name in ("title", "authors", "year", "venue", "doi", "arxiv_id", "pmid"):
        ctx[f"{name}_cited"] = _text(cited.get(name))
    ctx["first_author_cited"] = (cited.get("authors") or [""])[0]
    for name, ev in (ref.get("fields") or {}).items():
        if ev.get("cited") not in (None, "", []):
            ctx[f"{name}_cited"] = _text(ev.get("cited"))
        ctx[f"{name}_found"] = _text(ev.get("found"))
        who = _field_sources(ref, name, ev)
        ctx[f"{name}_source"] = who[0] if who else ""
        ctx[f"{name}_says"] = _says(who) if who else ""
    authors = (ref.get("fields") or {}).get("authors") or {}
    if isinstance(authors.get("cited"), list) and isinstance(authors.get("found"), list):
        missing, extra = list_difference(authors["cited"], authors["found"])
        ctx["authors_missing"] = ", ".join(missing)
        ctx["authors_extra"] = ", ".join(extra)
    ctx["identifier_cited"] = next(
        (
            f"{label}{ctx[k]}"
            for k, label in (("doi_cited", "doi:"), ("arxiv_id_cited", "arXiv:"), ("pmid_cited", "PMID "))
            if ctx.get(k)
        ),
        "",
    ) or _acl_id_cited(cited)
    match = ref.get("match") or {}
    match_sources = [source_name(s) for s in match.get("sources", []) if s != "library"]
    ctx["match_title"] = match.get("title") or ""
    ctx["match_venue"] = match.get("venue") or ""
    ctx["match_sources"] = join_names(match_sources)
    ctx["match_says"] = _says(match_sources) if match_sources else ""
    # The work a cited identifier names: its own note when another work is the match (found by
    # title), else the match itself (issue 20: never the cited title as the identifier's work).
    elsewhere = (_note(ref, IDENTIFIER_ELSEWHERE_NOTE) or "").partition(": ")
    if elsewhere[2]:
        ctx["elsewhere_title"], ctx["elsewhere_says"] = elsewhere[2], _says([source_name(elsewhere[0])])
    elif "matched_by_search" not in ref.get("reasons", []):
        ctx["elsewhere_title"], ctx["elsewhere_says"] = ctx["match_title"], ctx["match_says"]
    answered, not_asked = asked_sources(ref)
    ctx["asked"] = join_names([source_name(s) for s in answered])
    ctx["unavailable"] = join_names([source_name(s) for s in not_asked])
    ctx["not_searched"] = join_names(
        [source_name(s.strip()) for s in (_note(ref, "not searched:") or "").split(",")]
    )
    ctx["kind"] = _note(ref, "kind:") or ""
    changed = _note(ref, "title_changed_between_versions:") or ""
    if ", current " in changed:
        ctx["current_title"] = changed.split(", current ", 1)[1].strip("'\"")
    conflicts = [
        str(n).split(":", 1)[1] for n in ref.get("notes", []) if str(n).startswith("triangulation_conflict:")
    ]
    ctx["conflicts"] = "; ".join(c.replace("=", " says ") for c in conflicts)
    retraction = ref.get("retraction") or {}
    notices = [e for e in retraction.get("evidence", []) if e.get("notice_doi") or e.get("date")]
    if notices:
        n = notices[0]
        what = "retraction notice" if n.get("kind") == "retracted" else "notice"
        doi = f"{what} doi:{n['notice_doi']}" if n.get("notice_doi") else what
        ctx["retraction_notice"] = ", ".join(p for p in (doi, n.get("date")) if p)
    ctx["retraction_says"] = (
        "reported by " + join_names([source_name(s) for s in retraction.get("sources", [])])
        if retraction.get("sources")
        else ""
    )
    return ctx
