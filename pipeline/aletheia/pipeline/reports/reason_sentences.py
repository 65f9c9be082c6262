"""Every reason code as a sentence (`explain.sentence`): one table, a reason -> its role in the three
questions and its templates. Data, apart from the code that fills it in (`explain.py`), because a
wording changes often and a new reason needs a row here only (docs/verdicts.md says what each code
means; these say it in plain words).
"""

from __future__ import annotations

from aletheia.core.verdicts import Reason

__all__ = ["HOW", "NOTE", "SENTENCES", "WRONG"]

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
