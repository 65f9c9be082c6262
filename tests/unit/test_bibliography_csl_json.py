"""CSL-JSON: arrays, single items, {"items": [...]}, and what is read from each item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aletheia.core.bibliography import InputError, InputProblem, parse_text
from aletheia.core.bibliography.csl_json import iter_csl_json
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


def test_the_fixture_items() -> None:
    results = list(iter_csl_json((FIXTURES / "refs.json").read_text(encoding="utf-8"), origin="refs.json"))
    refs = [r for r in results if isinstance(r, CitedReference)]
    problems = [r for r in results if isinstance(r, InputProblem)]
    assert [r.key for r in refs] == ["novak2020", "ito2018", "17"]
    novak, ito, book = refs
    assert (novak.title, novak.year, novak.venue, novak.doi) == (
        "Tidal forcing of coastal aquifers",
        2020,
        "Journal of Hydrology Letters",
        "10.5555/jhl.2020.0042",
    )
    assert [a.family for a in novak.authors] == ["Novák", "van den Berg"]
    assert novak.entry_type == "article-journal"
    assert novak.fields["volume"] == "12"
    assert json.loads(novak.fields["issued"]) == {"date-parts": [[2020, 3]]}
    assert (ito.arxiv_id, ito.authors_truncated, ito.year) == ("1805.01234", True, 2018)
    assert book.authors[0].literal == "The Graph Colouring Collaboration"
    assert (book.year, book.isbn, book.pmid) == (1998, "9783161484100", "28911234")
    assert [p.message for p in problems] == [
        "item 4 is not a JSON object; skipped",
        "item 5 has neither a title nor an identifier; skipped",
    ]


@pytest.mark.parametrize(
    "document",
    [
        {"title": "Solo", "type": "book"},
        {"items": [{"title": "Solo", "type": "book"}]},
        [{"title": "Solo", "type": "book", "issued": "2001-04"}],
    ],
)
def test_document_shapes(document: object) -> None:
    (ref,) = list(iter_csl_json(json.dumps(document), origin="x.json"))
    assert isinstance(ref, CitedReference) and ref.title == "Solo"


def test_invalid_json_is_a_whole_input_error_with_a_position() -> None:
    with pytest.raises(InputError, match=r"refs\.json: invalid JSON at line 2, column"):
        list(parse_text('[{"title": "x"},\n {oops}]', origin="refs.json"))


def test_json_that_is_not_csl() -> None:
    with pytest.raises(InputError, match="not CSL-JSON"):
        list(iter_csl_json('{"name": "package"}', origin="package.json"))
