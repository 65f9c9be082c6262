"""The rows of `decide` for books (Tier 1) and canonical texts (Tier 3), each pinned by a test here.

Imported into test_decide_rules.py (where every row must name its test); the records are made up
in the documented shapes of Open Library, Google Books, Perseus CTS and CCEL.
"""

from __future__ import annotations

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FLAGGED_STATUSES, Reason, Severity, Verdict, VerdictStatus

__all__ = [
    "test_a_book_no_catalogue_has_is_unverifiable",
    "test_an_isbn_no_catalogue_knows_is_no_evidence",
    "test_an_isbn_that_two_catalogues_file_under_another_book_is_a_conflict",
    "test_book_edition_year_and_publisher_are_minor",
    "test_canonical_passage_and_quote",
    "test_canonical_passage_beyond_the_work_is_an_error",
    "test_canonical_passage_not_fetched_or_not_served",
    "test_canonical_work_unknown_is_unverifiable",
    "test_isbn_agreement_at_one_catalogue_verifies_a_book",
    "test_one_catalogue_filing_the_isbn_under_another_book_accuses_nothing",
    "test_one_catalogue_search_hit_is_not_proof",
]

YEAR = 2026
OL, GB, CR = SourceName.OPEN_LIBRARY, SourceName.GOOGLE_BOOKS, SourceName.CROSSREF
GENERAL = (SourceName.OPENALEX, SourceName.CROSSREF, SourceName.SEMANTIC_SCHOLAR)
ISBN = "9780262035613"
AUTHORS = (Author(given="Ian", family="Goodfellow"), Author(given="Yoshua", family="Bengio"))


def book(**kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "goodfellow2016",
        "entry_type": "book",
        "title": "Deep Learning",
        "authors": AUTHORS,
        "year": 2016,
        "fields": {"publisher": "MIT Press"},
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def catalogue(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": "Deep Learning",
        "authors": AUTHORS,
        "year": 2016,
        "isbn": (ISBN,),
        "publisher": "The MIT Press",
        "work_type": "book",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def answer(
    source: SourceName, kind: QueryKind, *records: WorkRecord, query: str = "q", failed: bool = False
) -> SourceAnswer:
    outcome = Outcome.FAILED if failed else Outcome.FOUND if records else Outcome.NOT_FOUND
    return SourceAnswer(source=source, kind=kind, query=query, outcome=outcome, records=records)


def run(cited: CitedReference, *answers: SourceAnswer) -> Verdict:
    return decide(cited, Evidence(answers=answers), current_year=YEAR)


def rules(v: Verdict) -> list[str]:
    return next(n for n in v.notes if n.startswith("rules: ")).removeprefix("rules: ").split(", ")


def general_searches_empty() -> list[SourceAnswer]:
    return [answer(s, QueryKind.SEARCH) for s in GENERAL]


# --- books ------------------------------------------------------------------------------------------


def test_isbn_agreement_at_one_catalogue_verifies_a_book() -> None:
    v = run(
        book(isbn=ISBN),
        answer(OL, QueryKind.ISBN, catalogue(OL), query=ISBN),
        answer(GB, QueryKind.ISBN, query=ISBN),
    )
    assert v.status is VerdictStatus.VERIFIED
    assert Reason.ISBN_RESOLVED in v.reasons and Reason.ISBN_NOT_FOUND not in v.reasons
    assert v.match is not None and v.match.source is OL


def test_an_isbn_no_catalogue_knows_is_no_evidence() -> None:
    # The book is found by title in two sources; its cited ISBN is in neither catalogue.
    found = [
        answer(OL, QueryKind.SEARCH, catalogue(OL, isbn=())),
        answer(GB, QueryKind.SEARCH, catalogue(GB, isbn=())),
    ]
    v = run(book(isbn="9780387310732"), answer(OL, QueryKind.ISBN, query="9780387310732"), *found)
    assert v.status is VerdictStatus.VERIFIED
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE not in v.reasons
    nothing = run(
        book(isbn="9780387310732"),
        answer(OL, QueryKind.ISBN),
        answer(GB, QueryKind.ISBN),
        *general_searches_empty(),
    )
    assert nothing.status is VerdictStatus.UNVERIFIABLE  # never fabricated, never not_found


def test_an_isbn_that_two_catalogues_file_under_another_book_is_a_conflict() -> None:
    bishop = {
        "title": "Pattern Recognition and Machine Learning",
        "authors": (Author(given="Christopher", family="Bishop"),),
    }
    v = run(
        book(isbn=ISBN),
        answer(OL, QueryKind.ISBN, catalogue(OL, **bishop), query=ISBN),
        answer(GB, QueryKind.ISBN, catalogue(GB, **bishop), query=ISBN),
        *general_searches_empty(),
    )
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT and Reason.ISBN_POINTS_ELSEWHERE in v.reasons


def test_one_catalogue_filing_the_isbn_under_another_book_accuses_nothing() -> None:
    other = catalogue(
        OL,
        title="Pattern Recognition and Machine Learning",
        authors=(Author(given="Christopher", family="Bishop"),),
    )
    v = run(
        book(isbn=ISBN),
        answer(OL, QueryKind.ISBN, other, query=ISBN),
        answer(GB, QueryKind.ISBN, query=ISBN),
        *general_searches_empty(),
    )
    assert v.status not in FLAGGED_STATUSES and Reason.ISBN_POINTS_ELSEWHERE in v.reasons


def test_a_book_no_catalogue_has_is_unverifiable() -> None:
    cited = book(title="A Book No Catalogue Has Heard Of")
    v = run(cited, answer(OL, QueryKind.SEARCH), answer(GB, QueryKind.SEARCH), *general_searches_empty())
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.BOOK_NOT_IN_CATALOGUES in v.reasons
    assert rules(v)[0] == "no_catalogue_has_the_book"
    # The catalogues not asked (off): the older row says so.
    assert Reason.UNINDEXED_KIND in run(cited, *general_searches_empty()).reasons
    # Signs of invention still accuse: the catalogues' silence is not what convicts.
    assert (
        run(cited.model_copy(update={"year": 2031}), answer(OL, QueryKind.SEARCH)).status
        is VerdictStatus.FABRICATED
    )


def test_one_catalogue_search_hit_is_not_proof() -> None:
    v = run(
        book(),
        answer(OL, QueryKind.SEARCH, catalogue(OL)),
        answer(GB, QueryKind.SEARCH),
        *general_searches_empty(),
    )
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.BOOK_SINGLE_CATALOGUE in v.reasons
    # Not even its field disagreements accuse: one user-edited record proves nothing either way.
    wrong = run(
        book(authors=(Author(given="Ann", family="Other"),)),
        answer(OL, QueryKind.SEARCH, catalogue(OL)),
        *general_searches_empty(),
    )
    assert wrong.status is not VerdictStatus.METADATA_ERROR
    # Two agreeing sources (a catalogue and a scholarly index) verify it.
    crossref = catalogue(CR, isbn=(), publisher=None, work_type="monograph")
    both = run(book(), answer(OL, QueryKind.SEARCH, catalogue(OL)), answer(CR, QueryKind.SEARCH, crossref))
    assert both.status is VerdictStatus.VERIFIED and Reason.TRIANGULATED in both.reasons


def test_book_edition_year_and_publisher_are_minor() -> None:
    second_edition = catalogue(OL, year=2010, publisher="Springer")
    v = run(book(isbn=ISBN), answer(OL, QueryKind.ISBN, second_edition, query=ISBN))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR
    assert {Reason.EDITION_YEAR_DIFFERS, Reason.PUBLISHER_DIFFERS} <= set(v.reasons)
    assert Reason.YEAR_MISMATCH not in v.reasons
    assert {"edition_year_differs", "publisher_differs"} <= set(rules(v))
    # The catalogues disagreeing on the year (first edition vs a reprint) is no triangulation conflict.
    two = run(
        book(),
        answer(OL, QueryKind.SEARCH, catalogue(OL, year=1998)),
        answer(GB, QueryKind.SEARCH, catalogue(GB)),
    )
    assert two.status is VerdictStatus.VERIFIED and Reason.TRIANGULATION_CONFLICT not in two.reasons
    # An edition statement in the cited title is no title error: catalogues keep the edition apart.
    edition = book(title="Deep Learning (2nd Edition)")
    assert run(
        edition, answer(OL, QueryKind.SEARCH, catalogue(OL)), answer(GB, QueryKind.SEARCH, catalogue(GB))
    ).status is (VerdictStatus.VERIFIED)
    # The same publisher written another way agrees.
    same = run(
        book(isbn=ISBN),
        answer(OL, QueryKind.ISBN, catalogue(OL, publisher="MIT Press, Cambridge, MA"), query=ISBN),
    )
    assert same.status is VerdictStatus.VERIFIED


# --- canonical texts ------------------------------------------------------------------------------------

HOMER = (Author(literal="Homer"),)
ILIAD_1_1 = "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1"


def passage(text: str, source: SourceName = SourceName.PERSEUS, urn: str = ILIAD_1_1) -> SourceAnswer:
    record = WorkRecord(source=source, source_id=urn, work_type="canonical-passage", abstract=text)
    return answer(source, QueryKind.PASSAGE, record, query=urn)


def test_canonical_work_unknown_is_unverifiable() -> None:
    v = run(CitedReference(key="t", raw="Plato, Timaeus 30a"))
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.UNKNOWN_CANONICAL_WORK in v.reasons


def test_canonical_passage_beyond_the_work_is_an_error() -> None:
    v = run(CitedReference(key="i", title="Iliad 25.1", authors=HOMER))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR and v.flagged
    assert Reason.PASSAGE_OUT_OF_RANGE in v.reasons
    evidence = v.fields["passage"]
    assert evidence.agrees is False and "24" in str(evidence.found)  # the structure is the evidence
    stephanus = run(CitedReference(key="r", raw="Plato, Republic 622a"))
    assert stephanus.status is VerdictStatus.METADATA_ERROR


def test_canonical_passage_not_fetched_or_not_served() -> None:
    cited = CitedReference(key="i", title="Iliad 1.1", authors=HOMER)
    not_asked = run(cited)
    assert (
        not_asked.status is VerdictStatus.UNVERIFIABLE
        and rules(not_asked)[0] == "canonical_passage_not_fetched"
    )
    failed = run(cited, answer(SourceName.PERSEUS, QueryKind.PASSAGE, query=ILIAD_1_1, failed=True))
    assert failed.status is VerdictStatus.UNVERIFIABLE and Reason.SOURCE_UNAVAILABLE in failed.reasons
    # In range by the table, not served by the text: no accusation.
    served_nothing = run(cited, answer(SourceName.PERSEUS, QueryKind.PASSAGE, query=ILIAD_1_1))
    assert served_nothing.status is VerdictStatus.UNVERIFIABLE
    assert Reason.CANONICAL_PASSAGE_NOT_SERVED in served_nothing.reasons


def test_canonical_passage_and_quote() -> None:
    text = "μῆνιν ἄειδε θεὰ Πηληϊάδεω Ἀχιλῆος"
    plain = run(CitedReference(key="i", title="Iliad 1.1", authors=HOMER), passage(text))
    assert plain.status is VerdictStatus.VERIFIED and Reason.CANONICAL_PASSAGE_VERIFIED in plain.reasons
    assert plain.match is not None and plain.match.source_id == ILIAD_1_1
    quoted = CitedReference(key="i", title="Iliad 1.1", authors=HOMER, fields={"quote": "“μῆνιν  ἄειδε θεὰ”"})
    v = run(quoted, passage(text))
    assert v.status is VerdictStatus.VERIFIED and Reason.QUOTE_IN_PASSAGE in v.reasons
    misquoted = quoted.model_copy(update={"fields": {"quote": "Sing, O goddess, the anger of Achilles"}})
    w = run(misquoted, passage(text))  # a translation is not the Greek text: unverifiable, not wrong
    assert w.status is VerdictStatus.UNVERIFIABLE and Reason.QUOTE_NOT_IN_PASSAGE in w.reasons
    assert w.fields["quote"].agrees is False
    ccel = CitedReference(key="c", raw="Augustine, Confessions 10.27")
    page = passage(
        "38. Too late loved I Thee, O Thou Beauty of ancient days",
        SourceName.CCEL,
        "/ccel/augustine/confess.x.xxvii.html",
    )
    assert run(ccel, page).status is VerdictStatus.VERIFIED
