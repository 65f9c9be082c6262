"""Tier 0 end to end (issue 28): with the bundled snapshot loaded, a library hit is one work and a
second run from the library gives the first run's verdict.

The bundled snapshot holds LeCun, Bengio and Hinton's Nature "Deep learning" (Crossref and
OpenAlex records); the simulator's catalogues hold Goodfellow, Bengio and Courville's book "Deep
Learning" (MIT Press, 2016, ISBN 978-0262035613) and its text. Before the fix the book was looked
up in the library by its exact title, met the article's records, and on the second run was
"verified" from the library without the search inside the book (`exact_quote` became
`unverified_content`, `isbn_resolved` became `matched_by_search`); the article looked up by its
DOI brought the book's records with it.

Each run is `aletheia verify` in process on one SQLite database (`run_embedded`), the second on
the database the first left. A library hit whose verdict is left in doubt is a whole first run
(before the fix its re-check skipped the second source, DBLP and the settling questions).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.bibliography import parse_text
from aletheia.core.records import Author, CitedReference, SourceName
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import run_embedded, sim_settings, universe

# Goodfellow, Bengio and Courville's book as a user writes it, with and without a quote that the
# search inside the book checks (`quote`: the field `core.classical_case.cited_quote` reads).
QUOTE = "Inventors have long dreamed of creating machines that think."
MISQUOTE = "Inventors have always dreamed of creating machines that think."
BIBTEX = f"""
@book{{goodfellow2016,
  title = {{Deep Learning}},
  author = {{Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}},
  publisher = {{MIT Press}},
  year = {{2016}},
  isbn = {{978-0262035613}},
}}
@book{{goodfellow2016quote,
  title = {{Deep Learning}},
  author = {{Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}},
  publisher = {{MIT Press}},
  year = {{2016}},
  isbn = {{978-0262035613}},
  pages = {{1}},
  quote = {{{QUOTE}}},
}}
@book{{goodfellow2016misquote,
  title = {{Deep Learning}},
  author = {{Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}},
  publisher = {{MIT Press}},
  year = {{2016}},
  isbn = {{978-0262035613}},
  quote = {{{MISQUOTE}}},
}}
@book{{goodfellow2016noisbn,
  title = {{Deep Learning}},
  author = {{Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}},
  publisher = {{MIT Press}},
  year = {{2016}},
  quote = {{{QUOTE}}},
}}
@article{{lecun2015,
  title = {{Deep learning}},
  author = {{LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey}},
  journal = {{Nature}},
  year = {{2015}},
  doi = {{10.1038/nature14539}},
}}
@article{{lecun2015title,
  title = {{Deep learning}},
  author = {{LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey}},
  journal = {{Nature}},
  year = {{2015}},
}}
@article{{heat2015,
  title = {{Urban heat islands and the night-time city}},
  author = {{Adeyemi, Kofi and Lindqvist, Sara}},
  journal = {{Journal of Field Observations}},
  year = {{2015}},
  doi = {{10.5555/filler.1}},
}}
@inproceedings{{spindles2019,
  title = {{Sleep spindles in the field: a workshop report}},
  author = {{Tanaka, Mei and Ribeiro, Joao}},
  booktitle = {{Workshop on Field Methods}},
  year = {{2019}},
}}
"""

JOURNAL_PAPER: dict[str, Any] = {
    "title": "Tidal forcing of estuarine sediment plumes observed from orbit",
    "authors": [{"given": "Marta", "family": "Quintero"}, {"given": "Lars", "family": "Ekdahl"}],
    "year": 2021,
    "venue": "Journal of Coastal Remote Sensing",
    "doi": "10.5555/jcrs.2021.12",
    "type": "journal-article",
}
WORKS = [
    {
        "title": "Urban heat islands and the night-time city",
        "authors": [{"given": "Kofi", "family": "Adeyemi"}, {"given": "Sara", "family": "Lindqvist"}],
        "year": 2015,
        "venue": "Journal of Field Observations",
        "doi": "10.5555/filler.1",
    },
    {
        "title": "Sleep spindles in the field: a workshop report",
        "authors": [{"given": "Mei", "family": "Tanaka"}, {"given": "Joao", "family": "Ribeiro"}],
        "year": 2019,
        "venue": "Workshop on Field Methods",
        "type": "proceedings-article",
        "sources": ["openalex", "semantic_scholar"],
    },
    JOURNAL_PAPER,
]


def references() -> list[CitedReference]:
    refs = [r for r in parse_text(BIBTEX, origin="refs.bib") if isinstance(r, CitedReference)]
    assert len(refs) == 8
    return refs


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe(WORKS), SimulatorConfig.unlimited(seed=28)) as server:
        yield server


def _verdict_part(reference: dict[str, Any]) -> dict[str, Any]:
    """What a verdict says, apart from what says where it came from (the trace of questions)."""
    return {k: v for k, v in reference.items() if k != "trace"}


def _asked(reference: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(a["source"], a["kind"], a["outcome"]) for a in reference["trace"]]


def test_a_second_run_from_the_library_gives_the_first_runs_verdict(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    settings = sim_settings(tmp_path, sim)
    first = {r["key"]: r for r in run_embedded(settings, references(), bundled=True).references}
    second = {r["key"]: r for r in run_embedded(settings, references(), bundled=True).references}

    quoted = first["goodfellow2016quote"]
    assert quoted["verdict"] == "verified" and quoted["content_type"] == "exact_quote", quoted
    assert "isbn_resolved" in quoted["reasons"] and "quote_in_book_snippet" in quoted["reasons"]
    # The book is never met by the article's records, nor named as agreeing with them.
    assert quoted["match"]["sources"] == ["google_books", "open_library"], quoted["match"]
    assert not {"crossref", "openalex"} & {s for s, _, _ in _asked(quoted)}, _asked(quoted)
    assert first["goodfellow2016misquote"]["content_type"] == "unverified_content"
    assert first["goodfellow2016"]["content_type"] is None
    assert first["lecun2015"]["match"]["sources"] == ["crossref", "openalex"]

    for key, one in first.items():
        two = second[key]
        assert _verdict_part(two) == _verdict_part(one), (key, _asked(one), _asked(two))

    # The second run was answered from the library: no catalogue or index asked again about the
    # works it holds, and the quotes searched inside the book again.
    for key in (
        "goodfellow2016",
        "goodfellow2016quote",
        "goodfellow2016misquote",
        "heat2015",
        "spindles2019",
    ):
        asked = _asked(second[key])
        assert asked and all(s in ("library", "google_books") for s, _, _ in asked), (key, asked)
        assert ("library", "found") in {(s, o) for s, _, o in asked}, (key, asked)
    for key, outcome in (("goodfellow2016quote", "found"), ("goodfellow2016misquote", "not_found")):
        assert [a for a in _asked(second[key]) if a[1] == "book_text"] == [
            ("google_books", "book_text", outcome)
        ]
    assert ("library", "isbn", "found") in _asked(second["goodfellow2016quote"])


def test_a_library_entry_is_one_work_never_its_namesake(sim: SimulatorServer, tmp_path: Path) -> None:
    """After the book was verified, the article's look-ups (by DOI, by title) bring the article's
    records alone, and the book's (by ISBN, by title and author) the book's alone."""
    settings = sim_settings(tmp_path, sim)
    run = run_embedded(settings, references(), bundled=True)
    library = run.runtime.library
    authors_book = (Author(given="Ian", family="Goodfellow"), Author(given="Yoshua", family="Bengio"))
    authors_article = (Author(given="Yann", family="LeCun"), Author(given="Yoshua", family="Bengio"))
    article_by_doi = CitedReference(
        key="a", title="Deep learning", authors=authors_article, doi="10.1038/nature14539"
    )
    article_by_title = CitedReference(key="b", title="Deep learning", authors=authors_article, year=2015)
    book_by_isbn = CitedReference(
        key="c", entry_type="book", title="Deep Learning", authors=authors_book, isbn="9780262035613"
    )
    book_by_title = CitedReference(key="d", entry_type="book", title="Deep Learning", authors=authors_book)
    nobody = CitedReference(key="e", title="Deep learning")  # which "Deep learning"? none said

    def sources(cited: CitedReference) -> set[SourceName]:
        return {hit.record.source for hit in library.lookup_sync(cited)}

    assert sources(article_by_doi) == sources(article_by_title) == {SourceName.CROSSREF, SourceName.OPENALEX}
    assert (
        sources(book_by_isbn) == sources(book_by_title) == {SourceName.OPEN_LIBRARY, SourceName.GOOGLE_BOOKS}
    )
    assert sources(nobody) == set()
    # The book's page snippet (a Google Books record holding only the quote) is no catalogue
    # record: never remembered as the book.
    assert all(not hit.record.abstract for hit in library.lookup_sync(book_by_isbn))


def _journal_paper(key: str, venue: str) -> CitedReference:
    return CitedReference(
        key=key,
        entry_type="article",
        title=JOURNAL_PAPER["title"],
        authors=tuple(Author(given=a["given"], family=a["family"]) for a in JOURNAL_PAPER["authors"]),
        year=JOURNAL_PAPER["year"],
        venue=venue,
        doi=JOURNAL_PAPER["doi"],
        origin=f"test:{key}",
    )


def test_a_library_hit_left_in_doubt_is_a_whole_first_run(sim: SimulatorServer, tmp_path: Path) -> None:
    """A work the library holds, cited at a venue no registry knows: the library's records leave
    the venue open, and what settles it on a first run (the venue registries, issue 21) is asked
    as on a first run. Before the fix the re-check from a library hit skipped those questions and
    left a minor note where a first run accuses an invented venue."""
    invented = _journal_paper("invented", "Transactions on Oceanic Machine Cognition")
    fresh = run_embedded(sim_settings(tmp_path / "fresh", sim), [invented]).references[0]
    assert "nonexistent_venue" in fresh["reasons"] and fresh["severity"] == "major", fresh

    settings = sim_settings(tmp_path / "library", sim)
    first = run_embedded(settings, [_journal_paper("right", JOURNAL_PAPER["venue"])]).references[0]
    assert first["verdict"] == "verified", first  # the library now holds the paper
    again = run_embedded(settings, [invented]).references[0]
    assert ("library", "doi", "found") in _asked(again), _asked(again)
    assert {a[0] for a in _asked(again) if a[1] == "venue"} == {
        a[0] for a in _asked(fresh) if a[1] == "venue"
    }
    assert _verdict_part(again) == _verdict_part(fresh), (_asked(fresh), _asked(again))
