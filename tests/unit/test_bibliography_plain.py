"""Plain-text lists: splitting, and the best-effort reading of reference strings in common styles."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.core.bibliography.plain import iter_plain, parse_reference_string
from aletheia.core.bibliography.plain_split import join_lines, split_references
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


@pytest.mark.parametrize("name", ["ieee.txt", "apa_numbered.txt", "vancouver_paren.txt"])
def test_three_numbered_styles_give_the_same_three_references(name: str) -> None:
    refs = list(iter_plain((FIXTURES / name).read_text(encoding="utf-8"), origin=name))
    assert all(isinstance(r, CitedReference) for r in refs)
    cited = [r for r in refs if isinstance(r, CitedReference)]
    assert [r.key for r in cited] == ["1", "2", "3"]
    assert [r.year for r in cited] == [2020, 2019, 2018]
    assert cited[0].title == "Tidal forcing of coastal aquifers"
    assert cited[1].title == "Sparse attention for long documents"
    assert cited[2].title == "Learning to rank citations"
    assert [a.family for a in cited[0].authors] == ["Novák", "van den Berg"]
    assert cited[2].arxiv_id == "1805.01234"
    assert all(r.raw and not r.raw.startswith(("[", "(", "1")) for r in cited)
    assert set(cited[0].heuristic_fields) >= {"title", "authors", "year"}
    assert cited[0].origin is not None and cited[0].origin.startswith(f"{name}:")


def test_wrapped_lines_are_joined_and_the_heading_dropped() -> None:
    cited = list(iter_plain((FIXTURES / "ieee.txt").read_text(encoding="utf-8"), origin="ieee.txt"))
    first = cited[0]
    assert isinstance(first, CitedReference)
    assert first.raw is not None and "Journal of Hydrology Letters" in first.raw
    assert first.doi == "10.5555/jhl.2020.0042"
    assert first.origin == "ieee.txt:3"


def test_split_paragraphs_lines_and_hanging_indents() -> None:
    paragraphs = "Smith, J. (2020). One. Venue.\n\nDoe, A. (2019). Two wraps\nonto a second line. Venue.\n"
    assert [p.text for p in split_references(paragraphs)] == [
        "Smith, J. (2020). One. Venue.",
        "Doe, A. (2019). Two wraps onto a second line. Venue.",
    ]
    one_per_line = (
        "Smith, J. (2020). One. Venue.\nDoe, A. (2019). Two. Venue.\nRoe, B. (2018). Three. Venue.\n"
    )
    assert len(split_references(one_per_line)) == 3
    hanging = (
        "Smith, J. (2020). One that wraps\n    onto an indented line. Venue.\nDoe, A. (2019). Two. Venue.\n"
    )
    pieces = split_references(hanging)
    assert [p.line for p in pieces] == [1, 3]
    assert pieces[0].text.endswith("onto an indented line. Venue.")


def test_numbers_out_of_sequence_are_not_markers() -> None:
    text = "1. Smith, J. 2020. Title of a\n2020. paper that wraps. Venue.\n2. Doe, A. 2019. Other. Venue.\n"
    pieces = split_references(text)
    assert len(pieces) == 2
    assert "paper that wraps" in pieces[0].text


def test_join_lines_soft_hyphens_and_broken_urls() -> None:
    assert join_lines(["Intro\ufffe", "duction to it"]) == "Introduction to it"
    assert join_lines(["see http://www.", "jstor.org/stable/1"]) == "see http://www.jstor.org/stable/1"
    assert join_lines(["state-of-the-", "art methods"]) == "state-of-the- art methods"


@pytest.mark.parametrize(
    ("reference", "title", "first_family", "year"),
    [
        (  # APA
            "Suresh, M. R., & Milstein, C. (1985). A direct antigen-binding assay to screen hybridoma "
            "supernatants. Analytical Biochemistry, 151(1), 192–195.",
            "A direct antigen-binding assay to screen hybridoma supernatants",
            "Suresh",
            1985,
        ),
        (  # IEEE
            "[4] M. R. Suresh and C. Milstein, “A direct antigen-binding assay,” Analytical Biochemistry, "
            "vol. 151, no. 1, pp. 192–195, Nov. 1985.",
            "A direct antigen-binding assay",
            "Suresh",
            1985,
        ),
        (  # Chicago author-date
            "Prideaux, Gary D. 1980. “In Rejection of Autonomous Linguistics.” Lingua 50 (3): 245–247.",
            "In Rejection of Autonomous Linguistics",
            "Prideaux",
            1980,
        ),
        (  # MLA
            "Prideaux, Gary D. “In Rejection of Autonomous Linguistics.” Lingua 50.3 (1980): 245–247.",
            "In Rejection of Autonomous Linguistics",
            "Prideaux",
            1980,
        ),
        (  # Harvard
            "Prideaux, G.D., 1980. In rejection of autonomous linguistics. Lingua, 50(3), pp.245–247.",
            "In rejection of autonomous linguistics",
            "Prideaux",
            1980,
        ),
        (  # ACM
            "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A Pretrained Language Model for "
            "Scientific Text. In EMNLP.",
            "SciBERT: A Pretrained Language Model for Scientific Text",
            "Beltagy",
            2019,
        ),
        (  # Vancouver
            "Patton GC, Selzer R, Coffey C. Onset of adolescent eating disorders: population based cohort "
            "study over 3 years. Br Med J. 1999;318:765–8.",
            "Onset of adolescent eating disorders: population based cohort study over 3 years",
            "Patton",
            1999,
        ),
        (  # Springer
            "Haughn GW, Western TL (2012) Arabidopsis seed coat mucilage is a specialized cell wall. "
            "Front Plant Sci 3:64",
            "Arabidopsis seed coat mucilage is a specialized cell wall",
            "Haughn",
            2012,
        ),
        (  # Springer LNCS
            "McOwen, R.C.: The behavior of the Laplacian on weighted Sobolev spaces. Commun. Pure Appl. "
            "Math. 32, 783–795 (1979)",
            "The behavior of the Laplacian on weighted Sobolev spaces",
            "McOwen",
            1979,
        ),
        (  # Nature
            "Bateson, P. Preferences for cousins in Japanese quail. Nature 295, 236–237 (1982).",
            "Preferences for cousins in Japanese quail",
            "Bateson",
            1982,
        ),
    ],
)
def test_reference_strings_in_common_styles(reference: str, title: str, first_family: str, year: int) -> None:
    fields = parse_reference_string(reference)
    assert fields.get("title") == title
    assert fields.get("year") == year
    authors = fields.get("authors", ())
    assert authors and authors[0].family == first_family


@pytest.mark.parametrize(
    "reference",
    [
        "(1) Suresh, M. R.; Milstein, C. Analytical Biochemistry 1985, 151, 192–195.",  # ACS
        "1 M.R. Suresh and C. Milstein, Analytical Biochemistry 151, 192 (1985).",  # AIP
        "[1] M.R. Suresh, C. Milstein, Analytical Biochemistry 151 (1985) 192.",  # Elsevier
    ],
)
def test_styles_without_titles_give_no_title_but_authors_and_venue(reference: str) -> None:
    fields = parse_reference_string(reference)
    assert "title" not in fields
    assert fields.get("year") == 1985
    assert [a.family for a in fields.get("authors", ())] == ["Suresh", "Milstein"]
    assert fields.get("venue") == "Analytical Biochemistry"


def test_identifiers_are_exact_and_do_not_look_like_years() -> None:
    fields = parse_reference_string(
        "Roth EM (2015) ODYSSEY MONO. Future Cardiol 11(1):27–37. doi:10.2217/fca.14.82 PMID: 25606700"
    )
    assert fields.get("doi") == "10.2217/fca.14.82"
    assert fields.get("pmid") == "25606700"
    assert fields.get("year") == 2015


def test_truncated_author_lists() -> None:
    fields = parse_reference_string(
        "Horiuchi K, Amizuka N, Takeshita S, et al. Identification of periostin. "
        "J Bone Miner Res. 1999;14:1239–49."
    )
    assert fields.get("authors_truncated") is True
    assert [a.family for a in fields.get("authors", ())] == ["Horiuchi", "Amizuka", "Takeshita"]


def test_anything_goes_in_and_nothing_breaks() -> None:
    for junk in [
        "",
        "   ",
        "Id, at 2.2",
        ", . The Lipid Handbook (3rd edn); New York, 2007; 7.",
        "x" * 10_000,
    ]:
        parse_reference_string(junk)
