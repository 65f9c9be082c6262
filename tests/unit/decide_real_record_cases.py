"""Issue 28: the classes of false alarm that real source records raise and records derived from a
citation never do. Imported into test_decide_rules.py (where every row must name its test).

Each case is written by hand from one reference of `../shared/data/benchmarks/
iclr2026-real-records` and the record a real service gave for it (Semantic Scholar's year of first
appearance for an ICLR paper, the Curran deposit's alphabetised byline copied by OpenAlex, a
Frontiers article URL with `/full` after the DOI, a DOI Crossref did not answer that Semantic
Scholar carries, a surname one letter off, a group byline run into its first member, an arXiv
preprint whose later version was retitled); every case failed before the fix.
"""

from __future__ import annotations

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus
from tests.unit.decide_author_cases import A, C, D, O, S, _people

__all__ = [
    "test_a_conference_year_after_the_first_appearance_is_not_an_error",
    "test_a_doi_another_index_carries_exists",
    "test_a_group_byline_run_into_its_first_member_is_the_group",
    "test_a_lone_deposit_lineage_sorted_list_is_an_alphabetised_copy",
    "test_a_one_letter_surname_slip_is_the_same_person",
    "test_a_publisher_view_path_is_not_part_of_the_doi",
    "test_a_title_search_match_may_carry_an_earlier_versions_title",
    "test_a_wrong_arxiv_id_is_still_flagged",
    "test_an_early_book_chapter_is_unverifiable_not_missing",
    "test_one_lineage_reordering_co_authors_is_not_evidence",
    "test_the_arxiv_id_dates_the_first_version",
    "test_too_recent_for_the_indexes",
    "test_year_of_unseen_version",
]

YEAR = 2026


def _answer(
    source: SourceName, kind: QueryKind, *records: WorkRecord, outcome: Outcome = Outcome.FOUND
) -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query="q", outcome=outcome, records=records)


def _searched(cited: CitedReference, *records: WorkRecord, extra: tuple[SourceAnswer, ...] = ()) -> Verdict:
    answers = [_answer(r.source, QueryKind.SEARCH, r) for r in records]
    answered = {r.source for r in records}
    answers += [
        _answer(s, QueryKind.SEARCH, outcome=Outcome.NOT_FOUND) for s in (C, O, S, D) if s not in answered
    ]
    return decide(cited, Evidence(answers=(*extra, *answers)), current_year=YEAR)


def _major(v: Verdict) -> bool:
    return v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR


MEMORIZATION = "Quantifying Memorization Across Neural Language Models"
MEMORIZATION_AUTHORS = _people(
    "Nicholas Carlini",
    "Daphne Ippolito",
    "Matthew Jagielski",
    "Katherine Lee",
    "Florian Tramer",
    "Chiyuan Zhang",
)


def test_a_conference_year_after_the_first_appearance_is_not_an_error() -> None:
    # ICLR 2023, cited 2023; Semantic Scholar gives 2022 (its first appearance) with venue ICLR.
    cited = CitedReference(
        key="carlini2023",
        title="Quantifying memorization across neural language models",
        authors=MEMORIZATION_AUTHORS,
        year=2023,
        venue="The Eleventh International Conference on Learning Representations",
    )
    s2 = WorkRecord(
        source=S,
        title=MEMORIZATION,
        authors=MEMORIZATION_AUTHORS,
        year=2022,
        venue="International Conference on Learning Representations",
        arxiv_id="2202.07646",
    )
    preprint = s2.model_copy(update={"source": A, "venue": None, "is_preprint": True, "arxiv_version": 1})
    v = _searched(cited, s2, preprint)
    assert not v.flagged, v.reasons
    assert Reason.YEAR_MISMATCH not in v.reasons
    # A venue-dating source (the proceedings at DBLP) giving 2022 is positive evidence.
    dblp = s2.model_copy(update={"source": D, "arxiv_id": None})
    assert Reason.YEAR_MISMATCH in _searched(cited, s2, preprint, dblp).reasons


def test_year_of_unseen_version() -> None:
    # "Decoupled weight decay regularization", ICLR 2019: Semantic Scholar holds only the 2017
    # preprint (then titled "Fixing weight decay regularization in Adam"), no published version.
    authors = _people("Ilya Loshchilov", "Frank Hutter")
    cited = CitedReference(
        key="loshchilov2019",
        title="Decoupled weight decay regularization",
        authors=authors,
        year=2019,
        venue="International Conference on Learning Representations",
    )
    preprint = WorkRecord(
        source=S,
        title="Decoupled Weight Decay Regularization",
        authors=authors,
        year=2017,
        venue="arXiv.org",
        arxiv_id="1711.05101",
        is_preprint=True,
    )
    v = _searched(cited, preprint)
    assert Reason.YEAR_OF_UNSEEN_VERSION in v.reasons and Reason.YEAR_MISMATCH not in v.reasons
    assert not v.flagged
    # Cited earlier than the preprint: no unseen version explains it.
    assert Reason.YEAR_MISMATCH in _searched(cited.model_copy(update={"year": 2015}), preprint).reasons


COT = "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models"
COT_BYLINE = _people(
    "Jason Wei",
    "Xuezhi Wang",
    "Dale Schuurmans",
    "Maarten Bosma",
    "Fei Xia",
    "Ed Chi",
    "Quoc V Le",
    "Denny Zhou",
)
COT_SORTED = _people(
    "Maarten Bosma",
    "Ed Chi",
    "Brian Ichter",
    "Quoc V Le",
    "Dale Schuurmans",
    "Xuezhi Wang",
    "Jason Wei",
    "Fei Xia",
    "Denny Zhou",
)


def test_a_lone_deposit_lineage_sorted_list_is_an_alphabetised_copy() -> None:
    # The Curran deposit (Crossref) and OpenAlex's copy of it list the NeurIPS 2022 paper sorted by
    # surname; the citation gives the byline (cut, "and others").
    cited = CitedReference(
        key="wei2022", title=COT, authors=COT_BYLINE, authors_truncated=True, year=2022, venue="NeurIPS"
    )
    doi = "10.52202/068431-1800"
    crossref = WorkRecord(source=C, title=COT, authors=COT_SORTED, year=2022, venue="NeurIPS 35", doi=doi)
    openalex = crossref.model_copy(update={"source": O})
    v = _searched(cited, crossref, openalex)
    assert not v.flagged, v.reasons
    # A sorted list from an independent lineage is a byline that is alphabetical: the swap stands.
    s2 = crossref.model_copy(update={"source": S, "doi": None})
    assert _searched(cited, crossref, openalex, s2).flagged


def test_one_lineage_reordering_co_authors_is_not_evidence() -> None:
    # A survey's published list at OpenAlex: two co-authors more, two of the cited ones exchanged.
    cited_names = (
        "Xi Fang",
        "Weijie Xu",
        "Fiona Tan",
        "Ziqing Hu",
        "Jiani Zhang",
        "Yanjun Qi",
        "Christos Faloutsos",
    )
    published = (
        "Xi Fang",
        "Weijie Xu",
        "Fiona Tan",
        "Jiani Zhang",
        "Ziqing Hu",
        "Yanjun Qi",
        "Scott Nickleach",
    )
    title = "Large Language Models on Tabular Data: A Survey"
    cited = CitedReference(
        key="fang2024", title=title, authors=_people(*cited_names), year=2024, venue="TMLR"
    )
    openalex = WorkRecord(
        source=O, title=title, authors=_people(*published, "Christos Faloutsos"), year=2024, venue="TMLR"
    )
    v = _searched(cited, openalex)
    assert Reason.AUTHORS_SWAPPED in v.reasons and v.severity is not Severity.MAJOR


def test_a_one_letter_surname_slip_is_the_same_person() -> None:
    title = "Super-CLEVR: A Virtual Benchmark to Diagnose Domain Robustness in Visual Reasoning"
    names = (
        "Zhuowan Li",
        "Xingrui Wang",
        "Elias Stengel-Eskin",
        "Adam Kortylewski",
        "Wufei Ma",
        "Alan Yuille",
    )
    cited = CitedReference(key="li2023", title=title, authors=_people(*names), year=2023, venue="CVPR")
    slipped = ("Zhuowan Li", "Xingrui Wong", *names[2:])
    openalex = WorkRecord(source=O, title=title, authors=_people(*slipped), year=2023, venue="CVPR")
    assert not _searched(cited, openalex).flagged
    # A digit is no slip: numbered names of a generated list stay apart.
    from aletheia.core.author_match import one_letter_slip

    assert not one_letter_slip(
        Author(given="Imani", family="Okafor9"), Author(given="Imani", family="Okafor0")
    )
    # Another first name with the near surname is another person.
    other = ("Zhuowan Li", "Xiaoyu Wong", *names[2:])
    assert _searched(cited, openalex.model_copy(update={"authors": _people(*other)})).reasons


def test_a_group_byline_run_into_its_first_member_is_the_group() -> None:
    title = "GPT-4 Technical Report"
    cited = CitedReference(key="openai2023", title=title, authors=(Author(literal="OpenAI"),), year=2023)
    s2 = WorkRecord(
        source=S,
        title=title,
        authors=(*_people("OpenAI Josh Achiam", "Steven Adler", "Sandhini Agarwal"),),
        year=2023,
        arxiv_id="2303.08774",
    )
    v = decide(
        cited.model_copy(update={"arxiv_id": "2303.08774"}),
        Evidence(answers=(_answer(S, QueryKind.ARXIV, s2),)),
        current_year=YEAR,
    )
    assert v.status is not VerdictStatus.IDENTIFIER_CONFLICT and not v.flagged, v.reasons


def test_a_doi_another_index_carries_exists() -> None:
    title = "Table Meets LLM: Can Large Language Models Understand Structured Table Data?"
    authors = _people("Yuan Sui", "Mengyu Zhou", "Mingjie Zhou", "Shi Han", "Dongmei Zhang")
    doi = "10.1145/3616855.3635752"
    cited = CitedReference(key="sui2024", title=title, authors=authors, year=2024, venue="WSDM", doi=doi)
    s2 = WorkRecord(source=S, title=title, authors=authors, year=2024, venue="WSDM", doi=doi)
    crossref_silent = _answer(C, QueryKind.DOI, outcome=Outcome.NOT_FOUND)
    v = _searched(cited, s2, extra=(crossref_silent,))
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE not in v.reasons and not v.flagged, v.reasons
    # Nobody carries it: the DOI resolves nowhere, as before.
    other = s2.model_copy(update={"doi": None})
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE in _searched(cited, other, extra=(crossref_silent,)).reasons


def test_a_publisher_view_path_is_not_part_of_the_doi() -> None:
    url = "https://www.frontiersin.org/articles/10.3389/fninf.2022.911679/full"
    assert extract_identifiers(url).dois == ("10.3389/fninf.2022.911679",)
    assert extract_identifiers("doi 10.1002/anie.201915678/abstract").dois == ("10.1002/anie.201915678",)


def test_a_title_search_match_may_carry_an_earlier_versions_title() -> None:
    # MathVista cited as its arXiv v1 was titled; found by title search, arXiv not asked yet: a
    # version's title to check (minor), not a wrong title.
    authors = _people("Pan Lu", "Hritik Bansal", "Tony Xia", "Jiacheng Liu")
    cited = CitedReference(
        key="lu2024",
        title=(
            "MathVista: Evaluating Math Reasoning in Visual Contexts with GPT-4V, Bard, "
            "and Other Large Multimodal Models"
        ),
        authors=authors,
        year=2024,
        venue="ICLR",
    )
    s2 = WorkRecord(
        source=S,
        title="MathVista: Evaluating Mathematical Reasoning of Foundation Models in Visual Contexts",
        authors=authors,
        year=2024,
        venue="International Conference on Learning Representations",
        arxiv_id="2310.02255",
    )
    v = _searched(cited, s2)
    assert Reason.TITLE_CHANGED_BETWEEN_VERSIONS in v.reasons and not v.flagged, v.reasons
    # arXiv's answer shows every version (one, under the current title): the cited title is wrong.
    arxiv = s2.model_copy(update={"source": A, "arxiv_version": 1})
    answered = _searched(cited, s2, extra=(_answer(A, QueryKind.ARXIV, arxiv),))
    assert Reason.TITLE_CHANGED_BETWEEN_VERSIONS not in answered.reasons and answered.flagged


def test_a_wrong_arxiv_id_is_still_flagged() -> None:
    # TABLET cited with another paper's arXiv id: a real citation error, kept.
    authors = _people("Dylan Slack", "Sameer Singh")
    cited = CitedReference(
        key="slack2023",
        title="TABLET: Learning From Instructions For Tabular Data",
        authors=authors,
        year=2023,
        arxiv_id="2305.00029",
    )
    tablet = WorkRecord(source=S, title=cited.title or "", authors=authors, year=2023, arxiv_id="2304.13188")
    elsewhere = WorkRecord(
        source=S,
        title="A Different Paper on Robots",
        authors=_people("Ann Other"),
        year=2023,
        arxiv_id="2305.00029",
    )
    answers = (_answer(S, QueryKind.ARXIV, elsewhere), _answer(S, QueryKind.SEARCH, tablet))
    v = decide(cited, Evidence(answers=answers), current_year=YEAR)
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT


def test_too_recent_for_the_indexes() -> None:
    # A real ICLR 2026 paper no index holds yet, cited in 2026 without an identifier; its first
    # author's other work is found (what made it a "chimera").
    authors = _people("Alex Su", "Haozhe Wang", "Wenhu Chen")
    cited = CitedReference(
        key="su2026",
        title="Pixel reasoner: curiosity-driven pixel-space reasoning",
        authors=authors,
        year=2026,
        venue="ICLR",
    )
    other = WorkRecord(source=S, title="A Different Benchmark of Tables", authors=authors, year=2024)
    v = _searched(cited, other)
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.NOT_YET_INDEXED in v.reasons, v.reasons
    assert _searched(cited).status is VerdictStatus.UNVERIFIABLE
    # Two years old, the same silence is evidence again; an identifier is checked as always.
    older = cited.model_copy(update={"year": 2024})
    assert _searched(older, other).status is VerdictStatus.FABRICATED
    assert _searched(older).status is VerdictStatus.NOT_FOUND
    # A sign of invention (placeholder authors) still flags a recent reference.
    doe = cited.model_copy(update={"authors": _people("John Doe", "Jane Smith")})
    assert _searched(doe).flagged


def test_an_early_book_chapter_is_unverifiable_not_missing() -> None:
    chapter = CitedReference(
        key="marr1976",
        entry_type="incollection",
        title="Early processing of visual information",
        authors=_people("David Marr"),
        year=1976,
        venue="The Psychology of Computer Vision",
    )
    v = _searched(chapter)
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.UNINDEXED_KIND in v.reasons
    # A chapter of the DOI era is a kind the indexes hold: their silence is not excused by kind.
    assert Reason.UNINDEXED_KIND not in _searched(chapter.model_copy(update={"year": 2012})).reasons


def test_the_arxiv_id_dates_the_first_version() -> None:
    # arXiv 2504.05786 was submitted in April 2025; Semantic Scholar's record says 2024.
    authors = _people("Jirong Zha", "Yuxuan Fan", "Xiao Yang", "Chen Gao", "Xinlei Chen")
    title = "How to Enable LLM with 3D Capacity? A Survey of Spatial Reasoning in LLM"
    cited = CitedReference(key="zha2025", title=title, authors=authors, year=2025, arxiv_id="2504.05786")
    s2 = WorkRecord(source=S, title=title, authors=authors, year=2024, arxiv_id="2504.05786")
    v = decide(cited, Evidence(answers=(_answer(S, QueryKind.ARXIV, s2),)), current_year=YEAR)
    assert Reason.YEAR_MISMATCH not in v.reasons and not v.flagged, v.reasons
    # Two years before the id's own date is wrong whatever the record says.
    early = cited.model_copy(update={"year": 2022})
    v = decide(early, Evidence(answers=(_answer(S, QueryKind.ARXIV, s2),)), current_year=YEAR)
    assert Reason.YEAR_MISMATCH in v.reasons
