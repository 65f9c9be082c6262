"""`core.library_work` (issue 28): a Tier-0 library hit is one work, never merged with a namesake,
and a verified reference leaves only its matched work's records in the library.

The records are modelled on the bundled snapshot's real Crossref and OpenAlex records of LeCun,
Bengio and Hinton's Nature "Deep learning" (2015) and on the catalogue records of Goodfellow,
Bengio and Courville's book "Deep Learning" (MIT Press, 2016) the simulator serves.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.library_work import (
    cited_library_work,
    library_works,
    one_library_work,
    records_to_remember,
)
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import VerdictStatus
from aletheia.core.works import matched_work_sources

ISBN = "9780262035613"
BOOK_AUTHORS = (
    Author(given="Ian", family="Goodfellow"),
    Author(given="Yoshua", family="Bengio"),
    Author(given="Aaron", family="Courville"),
)
ARTICLE_AUTHORS = (
    Author(given="Yann", family="LeCun"),
    Author(given="Yoshua", family="Bengio"),
    Author(given="Geoffrey", family="Hinton"),
)


def article(source: SourceName, **kw: object) -> WorkRecord:
    fields: dict[str, object] = {
        "title": "Deep learning",
        "authors": ARTICLE_AUTHORS,
        "year": 2015,
        "venue": "Nature",
        "doi": "10.1038/nature14539",
        "work_type": "journal-article",
    }
    fields.update(kw)
    return WorkRecord(source=source, **fields)  # type: ignore[arg-type]


def book(source: SourceName, **kw: object) -> WorkRecord:
    fields: dict[str, object] = {
        "title": "Deep Learning",
        "authors": BOOK_AUTHORS,
        "year": 2016,
        "publisher": "MIT Press",
        "isbn": (ISBN,),
        "work_type": "book",
    }
    fields.update(kw)
    return WorkRecord(source=source, **fields)  # type: ignore[arg-type]


LECUN = [article(SourceName.CROSSREF), article(SourceName.OPENALEX, pmid="26017442")]
GOODFELLOW = [book(SourceName.OPEN_LIBRARY), book(SourceName.GOOGLE_BOOKS)]
# A namesake of another kind by the same first author: one work only if an identifier says so.
GOODFELLOW_ARTICLE = WorkRecord(
    source=SourceName.OPENALEX,
    title="Deep learning",
    authors=(Author(given="Ian", family="Goodfellow"),),
    year=2016,
    doi="10.5555/goodfellow.article",
    work_type="journal-article",
)
STORED = [*LECUN, *GOODFELLOW, GOODFELLOW_ARTICLE]


def cited_book(**kw: object) -> CitedReference:
    fields: dict[str, object] = {
        "key": "goodfellow2016",
        "entry_type": "book",
        "title": "Deep Learning",
        "authors": BOOK_AUTHORS,
        "year": 2016,
        "isbn": "978-0262035613",
        "fields": {"publisher": "MIT Press"},
    }
    fields.update(kw)
    return CitedReference(**fields)  # type: ignore[arg-type]


def cited_article(**kw: object) -> CitedReference:
    fields: dict[str, object] = {
        "key": "lecun2015",
        "entry_type": "article",
        "title": "Deep learning",
        "authors": ARTICLE_AUTHORS,
        "year": 2015,
        "venue": "Nature",
    }
    fields.update(kw)
    return CitedReference(**fields)  # type: ignore[arg-type]


def test_namesakes_of_another_kind_or_other_authors_are_other_works() -> None:
    works = library_works(STORED)
    assert sorted(len(w) for w in works) == [1, 2, 2]
    assert not any(one_library_work(a, b) for a in LECUN for b in GOODFELLOW)
    assert not any(one_library_work(GOODFELLOW_ARTICLE, b) for b in GOODFELLOW)  # same title and author
    assert one_library_work(*GOODFELLOW) and one_library_work(*LECUN)
    # An ISBN in common is one work even under another spelling of the title.
    assert one_library_work(
        book(SourceName.OPEN_LIBRARY), book(SourceName.GOOGLE_BOOKS, title="Deep learning.")
    )
    # Two editions' ISBNs are two books, whatever their titles and authors.
    assert not one_library_work(
        book(SourceName.OPEN_LIBRARY), book(SourceName.GOOGLE_BOOKS, isbn=("9780262039246",))
    )


def test_the_hit_is_the_work_the_citation_names() -> None:
    assert cited_library_work(cited_book(), STORED) == GOODFELLOW  # by the ISBN
    assert cited_library_work(cited_book(isbn=None), STORED) == GOODFELLOW  # a book by title and author
    assert cited_library_work(cited_article(doi="10.1038/NATURE14539"), STORED) == LECUN
    assert cited_library_work(cited_article(pmid="26017442"), STORED) == LECUN
    assert cited_library_work(cited_article(), STORED) == LECUN  # title and first author


def test_no_hit_when_the_citation_names_no_single_stored_work() -> None:
    # An identifier no stored record holds: the sources are asked, never a namesake taken.
    assert cited_library_work(cited_book(isbn="9780387310732"), STORED) == []
    assert cited_library_work(cited_article(doi="10.1038/nature99999"), STORED) == []
    # No author to tell the namesakes apart; an author none of them has.
    assert cited_library_work(cited_article(authors=()), STORED) == []
    assert cited_library_work(cited_article(authors=(Author(given="Ann", family="Nobody"),)), STORED) == []
    # Goodfellow's "Deep learning" cited as an article: the book and the article both fit.
    assert cited_library_work(cited_article(authors=BOOK_AUTHORS[:1], year=2016), STORED) == []
    # A near title is no exact-title hit (the searches decide near misses).
    assert cited_library_work(cited_article(title="Deep learning review"), LECUN) == []


@given(st.permutations(STORED), st.sampled_from(["isbn", "book", "doi", "article"]))
def test_the_hit_never_depends_on_the_order_stored_and_never_mixes_works(
    stored: list[WorkRecord], how: str
) -> None:
    cited = {
        "isbn": cited_book(),
        "book": cited_book(isbn=None),
        "doi": cited_article(doi="10.1038/nature14539"),
        "article": cited_article(),
    }[how]
    hit = cited_library_work(cited, stored)
    expected = GOODFELLOW if how in ("isbn", "book") else LECUN
    assert sorted(hit, key=lambda r: r.source.value) == sorted(expected, key=lambda r: r.source.value)
    assert len(library_works(hit)) == 1  # one work, whichever record came first


@given(st.sampled_from(STORED), st.sampled_from(STORED))
def test_one_work_is_symmetric(a: WorkRecord, b: WorkRecord) -> None:
    assert one_library_work(a, b) == one_library_work(b, a)


def _first_run_evidence() -> tuple[CitedReference, Evidence]:
    """The book's ISBN at both catalogues, its page snippet, and a title search that returned the
    article (a namesake), as a first run can gather them."""
    cited = cited_book(fields={"publisher": "MIT Press", "quote": "Inventors have long dreamed"})
    answers = [
        SourceAnswer(source=r.source, kind=QueryKind.ISBN, query=ISBN, outcome=Outcome.FOUND, records=(r,))
        for r in GOODFELLOW
    ]
    snippet = book(SourceName.GOOGLE_BOOKS, abstract="Inventors have long dreamed of creating machines")
    answers.append(
        SourceAnswer(
            source=SourceName.GOOGLE_BOOKS,
            kind=QueryKind.BOOK_TEXT,
            query="q",
            outcome=Outcome.FOUND,
            records=(snippet,),
        )
    )
    answers.append(
        SourceAnswer(
            source=SourceName.OPENALEX,
            kind=QueryKind.SEARCH,
            query="Deep Learning Goodfellow 2016",
            outcome=Outcome.FOUND,
            records=(LECUN[1],),
        )
    )
    return cited, Evidence(answers=tuple(answers))


def test_a_verified_reference_leaves_only_its_works_catalogue_records() -> None:
    cited, evidence = _first_run_evidence()
    verdict = decide(cited, evidence, current_year=2026)
    assert verdict.status is VerdictStatus.VERIFIED
    assert records_to_remember(verdict, evidence) == GOODFELLOW  # not the snippet, not the article
    assert records_to_remember(verdict.model_copy(update={"match": None}), evidence) == []


def test_the_match_is_credited_to_its_own_sources_only() -> None:
    """The report names the matched work's sources as agreeing on it, never the source of a
    namesake a search returned (issue 28: "Crossref and OpenAlex agree on its title ...")."""
    cited, evidence = _first_run_evidence()
    verdict = decide(cited, evidence, current_year=2026)
    sources = matched_work_sources(verdict.match, verdict.secondary, evidence.answers)
    assert set(sources) == {SourceName.OPEN_LIBRARY, SourceName.GOOGLE_BOOKS}
    assert matched_work_sources(None, None, evidence.answers) == ()
    page = WorkRecord(source=SourceName.WEB, title="A page")  # a match outside the works: its own source
    assert matched_work_sources(page, None, evidence.answers) == (SourceName.WEB,)
