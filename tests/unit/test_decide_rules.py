"""The rule tables of `decide`: one test per row (each row names its test), the issue-10 classes of
false alarm as constructed cases modelled on real source records, and properties of the whole.

Every case here is small and made up, but each copies a shape seen in real records (the ICLR 2026
bibliographies' API responses, ../shared/data/api-samples): a Semantic Scholar record that knows
the published venue while arXiv does not, OpenAlex with an institutional repository as primary
location, Crossref with a book series as second container title, "Iii, Hal Daumé", consortia.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.field_rules import FIELD_RULES
from aletheia.core.records import (
    Author,
    CitedReference,
    RetractionKind,
    RetractionNotice,
    SourceName,
    WorkRecord,
)
from aletheia.core.status_rules import STATUS_RULES
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus

# The ACL Anthology id as an identifier (the generic identifier rows), and the rows of Tier 1
# (books) and Tier 3 (canonical texts), pinned by the tests in their own modules.
from tests.unit.decide_acl_cases import *  # noqa: F403
from tests.unit.decide_author_cases import *  # noqa: F403
from tests.unit.decide_real_record_cases import *  # noqa: F403
from tests.unit.decide_tier_cases import *  # noqa: F403
from tests.unit.decide_venue_cases import *  # noqa: F403

YEAR = 2026
C, O, A, S, P = (  # noqa: E741
    SourceName.CROSSREF,
    SourceName.OPENALEX,
    SourceName.ARXIV,
    SourceName.SEMANTIC_SCHOLAR,
    SourceName.PUBMED,
)
SEARCHED = (O, C, S)

AUTHORS = (
    Author(given="Tom", family="Brown"),
    Author(given="Benjamin", family="Mann"),
    Author(given="Nick", family="Ryder"),
    Author(given="Melanie", family="Subbiah"),
    Author(given="Jared", family="Kaplan"),
)
TITLE = "Language Models are Few-Shot Learners"


def rec(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2020,
        "venue": "Advances in Neural Information Processing Systems",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def cite(**kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "brown2020",
        "entry_type": "inproceedings",
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2020,
        "venue": "NeurIPS",
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def found(source: SourceName, kind: QueryKind, *records: WorkRecord, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.FOUND, records=records)


def missing(source: SourceName, kind: QueryKind = QueryKind.SEARCH, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.NOT_FOUND)


def failed(source: SourceName, kind: QueryKind = QueryKind.SEARCH, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.FAILED, error="HTTP 503")


def run(cited: CitedReference, *answers: SourceAnswer, notices: tuple[RetractionNotice, ...] = ()) -> Verdict:
    return decide(cited, Evidence(answers=answers, retraction_notices=notices), current_year=YEAR)


def by_search(cited: CitedReference, *records: WorkRecord) -> Verdict:
    """The records found by search, every other general index searched and empty-handed."""
    answers = [found(r.source, QueryKind.SEARCH, r) for r in records]
    answered = {r.source for r in records}
    answers += [missing(s) for s in (*SEARCHED, A, P, SourceName.DBLP) if s not in answered]
    return run(cited, *answers)


def nothing_anywhere(cited: CitedReference, *extra: SourceAnswer) -> Verdict:
    return run(cited, *extra, *(missing(s) for s in (*SEARCHED, A, P, SourceName.DBLP)))


def fired(v: Verdict) -> list[str]:
    line = next(n for n in v.notes if n.startswith("rules: "))
    return line.removeprefix("rules: ").split(", ")


# --- the tables are well formed and pinned --------------------------------------------------------


def test_every_row_names_a_test_that_exists() -> None:
    here = sys.modules[__name__]
    names = {name for name, _ in inspect.getmembers(here, inspect.isfunction)}
    for rule in (*STATUS_RULES, *FIELD_RULES):
        path, _, test = rule.pinned_by.partition("::")
        assert path == "tests/unit/test_decide_rules.py", rule.name
        assert test in names, f"{rule.name} is pinned by a missing test {test}"


def test_row_names_are_unique_and_the_last_status_row_always_holds() -> None:
    names = [r.name for r in (*STATUS_RULES, *FIELD_RULES)]
    assert len(names) == len(set(names))
    assert STATUS_RULES[-1].status is VerdictStatus.VERIFIED


def test_docs_list_every_row() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "verdicts.md"
    text = doc.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE))
    rows = {r.name for r in (*STATUS_RULES, *FIELD_RULES)}
    assert rows <= listed, f"rows missing from docs/verdicts.md: {sorted(rows - listed)}"
    statuses = {s.value for s in VerdictStatus}  # the statuses table uses the same row shape
    assert listed - statuses <= rows | {"title_chimera", "invented_identifier"}, sorted(listed - rows)


# --- status rows ----------------------------------------------------------------------------------


def test_outside_the_indexes_is_out_of_scope() -> None:
    repo = cite(entry_type="misc", venue=None, authors=(), url="https://github.com/huggingface/trl")
    v = run(repo)
    assert v.status is VerdictStatus.OUT_OF_SCOPE and Reason.OUT_OF_SCOPE_TYPE in v.reasons
    assert any("code repository" in n for n in v.notes)
    news = cite(entry_type="article", venue=None, url="https://www.nytimes.com/2023/12/27/ai.html")
    assert run(news).status is VerdictStatus.OUT_OF_SCOPE
    # Positive evidence of invention still wins.
    assert run(cite(entry_type="software", year=2031)).status is VerdictStatus.FABRICATED


def test_too_little_to_check() -> None:
    v = run(CitedReference(key="x"))
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.INSUFFICIENT_METADATA in v.reasons
    v = run(CitedReference(key="x", year=2035))
    assert v.status is VerdictStatus.FABRICATED


def test_several_candidates_are_ambiguous() -> None:
    other = rec(
        O, authors=(Author(given="Tom", family="Brown"), Author(given="Ann", family="Lee")), year=2020
    )
    v = run(
        cite(venue=None),
        found(O, QueryKind.SEARCH, rec(O, doi="10.1/a")),
        found(C, QueryKind.SEARCH, other.model_copy(update={"doi": "10.1/b", "source": C})),
        missing(S),
    )
    assert v.status is VerdictStatus.AMBIGUOUS and Reason.SEVERAL_CANDIDATES in v.reasons


def _elsewhere() -> WorkRecord:
    return rec(
        C, title="Mastering the game of Go", authors=(Author(given="David", family="Silver"),), doi="10.1/go"
    )


def test_identifier_points_elsewhere() -> None:
    v = run(
        cite(doi="10.1/go"), found(C, QueryKind.DOI, _elsewhere(), query="10.1/go"), *map(missing, SEARCHED)
    )
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT and Reason.DOI_POINTS_ELSEWHERE in v.reasons
    assert v.fields["title"].agrees is False


def test_identifier_elsewhere_and_invented() -> None:
    v = run(cite(doi="10.1/go", year=2031), found(C, QueryKind.DOI, _elsewhere(), query="10.1/go"))
    assert v.status is VerdictStatus.FABRICATED


def test_signs_of_invention_without_a_match() -> None:
    v = nothing_anywhere(cite(authors=(Author(given="John", family="Doe"),)))
    assert v.status is VerdictStatus.FABRICATED and Reason.PLACEHOLDER_AUTHORS in v.reasons
    # A title pinned on real authors (chimera), every source asked, nobody has the cited title.
    theirs = rec(O, title="Scaling Laws for Neural Language Models", authors=AUTHORS[4:] + AUTHORS[:1])
    chimera = cite(title="Emergent Calibration of Sparse Mixture Routers", authors=AUTHORS[4:] + AUTHORS[:1])
    v = by_search(chimera, theirs)
    assert v.status is VerdictStatus.FABRICATED and Reason.TITLE_CHIMERA in v.reasons


def test_identifier_resolves_nowhere() -> None:
    v = nothing_anywhere(cite(doi="10.9999/invented.123"), missing(C, QueryKind.DOI, "10.9999/invented.123"))
    assert v.status is VerdictStatus.FABRICATED and Reason.IDENTIFIER_RESOLVES_NOWHERE in v.reasons


def test_a_failed_source_leaves_it_unverifiable() -> None:
    v = run(cite(), missing(O), missing(C), failed(S))
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.SOURCE_UNAVAILABLE in v.reasons


def test_pages_with_only_a_web_url_and_no_venue_are_out_of_scope() -> None:
    """Class 6: blogs, manuals and personal pages cited with authors but no venue."""
    for url in (
        "https://qwenlm.github.io/blog/qwen2.5/",
        "https://cacm.acm.org/blogcacm/how-objective-is-peer-review/",
        "http://inverseprobability.com/2014/12/16/the-nips-experiment",
    ):
        v = nothing_anywhere(cite(entry_type="misc", venue="n.d.", url=url))
        assert v.status is VerdictStatus.OUT_OF_SCOPE, url
    # A landing page at a publisher is a paper, judged as usual.
    v = nothing_anywhere(cite(entry_type="misc", venue=None, url="https://proceedings.neurips.cc/paper/x"))
    assert v.status is VerdictStatus.NOT_FOUND


def test_books_and_old_works_are_unverifiable_not_missing() -> None:
    book = cite(
        entry_type="book", title="Building LLM Powered Applications", venue="Packt Publishing", year=2024
    )
    v = nothing_anywhere(book)
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.UNINDEXED_KIND in v.reasons
    old = cite(entry_type="article", title="A Mathematical Theory of Communication", year=1948, venue="BSTJ")
    assert nothing_anywhere(old).status is VerdictStatus.UNVERIFIABLE
    report = cite(entry_type="misc", title="GPT-4 System Card", venue="Technical report", year=2023)
    assert nothing_anywhere(report).status is VerdictStatus.UNVERIFIABLE


def test_not_found_needs_every_source_searched() -> None:
    invented = cite(title="Holographic Gradient Routing for Quantum Tabular Transformers")
    # OpenAlex and Crossref only (the old behaviour): Semantic Scholar was never asked.
    v = run(invented, missing(O), missing(C))
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.SEARCH_INCOMPLETE in v.reasons
    assert any("semantic_scholar" in n for n in v.notes)
    # Cited at a computing venue (NeurIPS): DBLP's search is needed too (issue 12).
    v = run(invented, *map(missing, SEARCHED))
    assert v.status is VerdictStatus.UNVERIFIABLE and any("dblp" in n for n in v.notes)
    v = run(invented, *map(missing, (*SEARCHED, SourceName.DBLP)))
    assert v.status is VerdictStatus.NOT_FOUND and Reason.NO_MATCH_FOUND in v.reasons
    # Cited as a preprint: arXiv's own search is needed too.
    preprint = invented.model_copy(update={"venue": "arXiv preprint arXiv:2401.00001"})
    assert run(preprint, *map(missing, SEARCHED)).status is VerdictStatus.UNVERIFIABLE
    assert run(preprint, *map(missing, (*SEARCHED, A))).status is VerdictStatus.NOT_FOUND
    assert run(invented.model_copy(update={"venue": "The Lancet"}), *map(missing, (*SEARCHED, P))).status is (
        VerdictStatus.NOT_FOUND
    )


def test_real_work_with_placeholder_authors() -> None:
    # A real work cited with a future year as well: still invented.
    v = by_search(cite(authors=(Author(given="John", family="Doe"), *AUTHORS[1:]), year=2031), rec(O))
    assert v.status is VerdictStatus.FABRICATED


def test_real_work_cited_with_placeholder_authors_is_corrected() -> None:
    """Issue 20: title and DOI name a real work, the authors are templates ("Smith, John and Doe,
    Jane"): the DOI points at the very work cited (not elsewhere), the authors are wrong and are
    replaced from the sources (seed 003's `fix_hallucinated_authors`), never "fabricated"."""
    placeholders = (Author(given="John", family="Smith"), Author(given="Jane", family="Doe"))
    v = run(
        cite(authors=placeholders, doi="10.1/x"),
        found(C, QueryKind.DOI, rec(C, doi="10.1/x"), query="10.1/x"),
        found(O, QueryKind.DOI, rec(O, doi="10.1/x"), query="10.1/x"),
    )
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR, (v.status, v.notes)
    assert Reason.DOI_RESOLVED in v.reasons and Reason.DOI_POINTS_ELSEWHERE not in v.reasons
    assert Reason.PLACEHOLDER_AUTHORS in v.reasons
    assert v.corrected["authors"] == [a.display for a in AUTHORS]
    # Found by search too.
    v = by_search(cite(authors=(Author(given="John", family="Doe"), *AUTHORS[1:])), rec(O))
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.PLACEHOLDER_AUTHORS in v.reasons


def test_a_real_surname_doe_is_no_sign_of_invention() -> None:
    """Issue 20: "Doe, A." is a person (Doe is a surname); only the template names are placeholders.
    Nothing found anywhere is then `not_found`, and with a source down `unverifiable`, never
    "likely invented" on the name alone."""
    doe = cite(authors=(Author(given="A.", family="Doe"),))
    v = nothing_anywhere(doe)
    assert v.status is VerdictStatus.NOT_FOUND and Reason.PLACEHOLDER_AUTHORS not in v.reasons
    v = run(doe, *(failed(s) for s in (*SEARCHED, A, P, SourceName.DBLP)))
    assert v.status is VerdictStatus.UNVERIFIABLE
    # Found, with another first author: a first-author error, not an invention.
    v = by_search(cite(authors=(Author(given="A.", family="Doe"), *AUTHORS[1:])), rec(O), rec(S))
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.FIRST_AUTHOR_MISMATCH in v.reasons
    # The template names still are.
    v = nothing_anywhere(cite(authors=(Author(given="Jane", family="Doe"),)))
    assert v.status is VerdictStatus.FABRICATED


def test_retracted_and_withdrawn() -> None:
    notice = RetractionNotice(kind=RetractionKind.RETRACTED, source=SourceName.RETRACTION_WATCH)
    v = run(
        cite(doi="10.1/x"), found(C, QueryKind.DOI, rec(C, doi="10.1/x"), query="10.1/x"), notices=(notice,)
    )
    assert v.status is VerdictStatus.RETRACTED and Reason.RETRACTED in v.reasons
    withdrawn = RetractionNotice(kind=RetractionKind.WITHDRAWN, source=SourceName.ARXIV)
    v = run(
        cite(doi="10.1/x"),
        found(C, QueryKind.DOI, rec(C, doi="10.1/x"), query="10.1/x"),
        notices=(withdrawn,),
    )
    assert v.status is VerdictStatus.RETRACTED and Reason.WITHDRAWN in v.reasons


def test_fields_disagree_is_metadata_error() -> None:
    v = by_search(cite(year=2017), rec(O), rec(S))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR
    assert "fields_disagree" in fired(v) and "year_mismatch" in fired(v)


def test_sources_disagree_is_ambiguous() -> None:
    v = run(
        cite(doi="10.1/x"),
        found(C, QueryKind.DOI, rec(C, doi="10.1/x"), query="10.1/x"),
        found(O, QueryKind.DOI, rec(O, doi="10.1/x", year=2012), query="10.1/x"),
    )
    assert v.status is VerdictStatus.AMBIGUOUS and Reason.TRIANGULATION_CONFLICT in v.reasons


def test_verified_needs_a_matching_answer() -> None:
    v = by_search(cite(), rec(O), rec(S))
    assert v.status is VerdictStatus.VERIFIED and not v.flagged
    assert v.match is not None


# --- field rows -----------------------------------------------------------------------------------


def test_title_near_miss() -> None:
    v = by_search(cite(title="Language Models are Few-Shot Reasoners"), rec(O), rec(S))
    assert Reason.TITLE_NEAR_MISS in v.reasons and v.severity is Severity.MAJOR


def test_title_mismatch() -> None:
    v = run(
        cite(title="Language Models Are Unsupervised Multitask Learners", doi="10.1/x"),
        found(C, QueryKind.DOI, rec(C, doi="10.1/x"), query="10.1/x"),
    )
    assert Reason.TITLE_MISMATCH in v.reasons or v.status is VerdictStatus.IDENTIFIER_CONFLICT
    # The row itself: the cited DOI and first author name this work, its title is 0.73 similar.
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR
    assert Reason.TITLE_MISMATCH in v.reasons and "title_mismatch" in fired(v)
    assert v.corrected["title"] == TITLE


def test_title_misspelled() -> None:
    """Issue 20: "Artificial Inteligence" is a typo of the source's title, not a regional spelling:
    reported (minor) with the source's title as the correction, never verified with nothing to
    change. British and American spellings are the same title."""
    right = "Artificial Intelligence for Learning Systems"
    v = by_search(
        cite(title="Artificial Inteligence for Learning Systems"), rec(O, title=right), rec(S, title=right)
    )
    assert Reason.TITLE_MISSPELLED in v.reasons and "title_misspelled" in fired(v), v.reasons
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR and not v.flagged
    assert v.corrected["title"] == right and v.fields["title"].agrees is False
    for regional in ("Optimising Neural Behaviour Modelling", "Optimizing Neural Behavior Modeling"):
        found_title = "Optimizing Neural Behavior Modeling"
        v = by_search(cite(title=regional), rec(O, title=found_title), rec(S, title=found_title))
        assert v.status is VerdictStatus.VERIFIED, (regional, v.reasons)


def test_title_changed_between_versions() -> None:
    """Class 4: the arXiv id resolves, same authors, the current title differs."""
    now = "Few-Shot Learners: Language Models at Scale"
    current = rec(A, title=now, arxiv_id="2005.14165", venue=None)
    cited = cite(title=TITLE, arxiv_id="2005.14165", venue=None)
    v = run(cited, found(A, QueryKind.ARXIV, current, query="2005.14165"))
    assert Reason.TITLE_CHANGED_BETWEEN_VERSIONS in v.reasons
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR and not v.flagged
    assert any(TITLE in n and now in n for n in v.notes)
    # A wholly different title under the cited id and authors is a title error, not a new version.
    other = rec(A, title="Categorical Flow Maps for Molecules", arxiv_id="2005.14165", venue=None)
    v = run(cited, found(A, QueryKind.ARXIV, other, query="2005.14165"))
    assert v.flagged and Reason.TITLE_CHANGED_BETWEEN_VERSIONS not in v.reasons
    # Issue 21: arXiv gives every version's title. The paper has one version only: no version
    # ever carried the cited title, so it is a wrong title (major), not a change between versions.
    only = rec(A, title=now, arxiv_id="2005.14165", arxiv_version=1, venue=None)
    v = run(cited, found(A, QueryKind.ARXIV, only, query="2005.14165"))
    assert v.flagged and {Reason.TITLE_NEAR_MISS, Reason.TITLE_MISMATCH} & set(v.reasons), v.reasons
    # Three versions, the earlier two fetched, none with the cited title: also a wrong title.
    v3 = rec(A, title=now, arxiv_id="2005.14165", arxiv_version=3, venue=None)
    v1 = rec(A, title=now, arxiv_id="2005.14165", arxiv_version=1, venue=None)
    v2 = rec(A, title=now + " (extended)", arxiv_id="2005.14165", arxiv_version=2, venue=None)
    v = run(
        cited, found(A, QueryKind.ARXIV, v3, query="2005.14165"), found(A, QueryKind.ARXIV, v1, v2, query="x")
    )
    assert v.flagged and Reason.TITLE_CHANGED_BETWEEN_VERSIONS not in v.reasons
    # Earlier versions not fetched yet: unsettled, the minor note stays.
    v = run(cited, found(A, QueryKind.ARXIV, v3, query="2005.14165"))
    assert Reason.TITLE_CHANGED_BETWEEN_VERSIONS in v.reasons and not v.flagged
    # v1 carried the cited title: the change between versions is shown, not accused.
    first = rec(A, title=TITLE, arxiv_id="2005.14165", arxiv_version=1, venue=None)
    v = run(
        cited,
        found(A, QueryKind.ARXIV, v3, query="2005.14165"),
        found(A, QueryKind.ARXIV, first, v2, query="x"),
    )
    assert not v.flagged, v.reasons


def test_title_cut_short() -> None:
    full = "Racial and Ethnic Inequities in US Oncology Clinical Trial Participation From 2017 to 2022"
    cut = "Racial and ethnic inequities in US oncology clinical trial participation from 2017 to"
    v = by_search(cite(title=cut), rec(O, title=full), rec(S, title=full))
    assert Reason.TITLE_CUT_SHORT in v.reasons and not v.flagged
    assert Reason.TITLE_NEAR_MISS not in v.reasons


def test_authors_swapped() -> None:
    v = by_search(cite(authors=(AUTHORS[1], AUTHORS[0], *AUTHORS[2:])), rec(O), rec(S))
    assert Reason.AUTHORS_SWAPPED in v.reasons and v.flagged


def test_coauthor_order_differs() -> None:
    reordered = (AUTHORS[0], AUTHORS[2], AUTHORS[1], *AUTHORS[3:])
    v = by_search(cite(authors=reordered), rec(O), rec(S))
    assert Reason.AUTHORS_SWAPPED in v.reasons and not v.flagged


def test_first_author_mismatch() -> None:
    v = by_search(cite(authors=(Author(given="Alec", family="Radford"), *AUTHORS[1:])), rec(O), rec(S))
    assert Reason.FIRST_AUTHOR_MISMATCH in v.reasons and v.flagged


def test_extra_authors_confirmed_by_two_sources() -> None:
    cited = cite(authors=(*AUTHORS, Author(given="Yann", family="LeCun")))
    v = by_search(cited, rec(O), rec(S))
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons and v.flagged


def test_extra_authors_one_source_is_minor() -> None:
    """Class 3: one source dropped a co-author the citation lists."""
    dropped = rec(S, authors=(*AUTHORS[:3], *AUTHORS[4:]))
    v = by_search(cite(), dropped)
    assert Reason.AUTHOR_LIST_UNCONFIRMED in v.reasons and not v.flagged


def test_an_uncertain_author_list_is_at_most_minor() -> None:
    """Issue 20: an author list the reference-string parser may have split wrongly ("Lin, Zhiyuan
    Jerry, Raul Astudillo" read as "Lin", "Zhiyuan Jerry", ...) is never a major error."""
    split = (Author(family="Brown"), Author(family="Tom"), *AUTHORS[1:])
    for cited_authors in (split, (Author(given="Alec", family="Radford"), *AUTHORS[1:]), AUTHORS[:2]):
        v = by_search(cite(authors=cited_authors, authors_uncertain=True), rec(O), rec(S))
        assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR and not v.flagged
        assert "authors" not in v.corrected
    # The same disagreement on a list read from a structured field is major.
    assert by_search(cite(authors=split), rec(O), rec(S)).flagged
    # Other fields are still judged: a wrong year on that reference is major.
    v = by_search(cite(authors=split, authors_uncertain=True, year=2017), rec(O), rec(S))
    assert v.flagged and Reason.YEAR_MISMATCH in v.reasons


def test_one_trailing_author_missing() -> None:
    v = by_search(cite(authors=AUTHORS[:4]), rec(O), rec(S))
    assert Reason.AUTHORS_MISSING_TRAILING in v.reasons and not v.flagged


def test_authors_truncated() -> None:
    v = by_search(cite(authors=AUTHORS[:2]), rec(O), rec(S))
    assert Reason.AUTHORS_TRUNCATED in v.reasons and v.flagged


def test_one_coauthor_omitted() -> None:
    # One source lists a co-author the citation leaves out: a source may hold a wrong extra name.
    v = by_search(cite(authors=(*AUTHORS[:2], *AUTHORS[3:])), rec(O))
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons and not v.flagged
    # Two independent sources list them (issue 21): the omission is confirmed, major.
    v = by_search(cite(authors=(*AUTHORS[:2], *AUTHORS[3:])), rec(O), rec(S))
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons and v.flagged


def test_coauthors_omitted() -> None:
    v = by_search(cite(authors=(AUTHORS[0], AUTHORS[4])), rec(O), rec(S))
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons and v.flagged


def test_year_off_by_one_versions() -> None:
    # The cited year is the year of a later arXiv version (its `updated` date): minor.
    preprint = rec(A, arxiv_id="2005.14165", venue=None, is_preprint=True, year=2020, other_years=(2021,))
    v = by_search(cite(year=2021), rec(O, arxiv_id="2005.14165"), preprint)
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged
    # Crossref's print date a year after its online date: minor.
    v = by_search(cite(year=2021, doi=None), rec(C, doi="10.1/x", other_years=(2021,)), rec(O, doi="10.1/x"))
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged
    # Issue 21: every version in view (the preprint and the published record, both 2020) and none
    # has the cited year: no tolerance, the year is wrong. The published record's year is the
    # venue's only from a source that dates the version at the venue (issue 28: OpenAlex and
    # Semantic Scholar often give the first appearance's), here DBLP's proceedings record.
    v1 = rec(A, arxiv_id="2005.14165", venue=None, is_preprint=True, year=2020)
    v = by_search(cite(year=2021), rec(O, arxiv_id="2005.14165"), v1, rec(SourceName.DBLP))
    assert Reason.YEAR_MISMATCH in v.reasons and v.flagged
    # A preprint the field makes plausible but no record shows: its date is out of sight, minor.
    v = by_search(cite(year=2019), rec(O), rec(S))
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged
    # A venue is cited and only the preprint is in view (an ICLR 2025 paper, its 2024 preprint):
    # the published version's date is out of sight, minor.
    only_preprint = rec(A, arxiv_id="2411.00001", venue=None, is_preprint=True, year=2024)
    s2_preprint = rec(S, arxiv_id="2411.00001", venue="arXiv.org", year=2024)
    v = by_search(cite(year=2025, venue="ICLR"), only_preprint, s2_preprint)
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and Reason.YEAR_MISMATCH not in v.reasons


def test_year_mismatch() -> None:
    v = by_search(cite(year=2015), rec(O), rec(S))
    assert Reason.YEAR_MISMATCH in v.reasons and v.flagged
    # One year off without versions (print and online dates): minor.
    v = by_search(cite(year=2021), rec(O), rec(S))
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged


def test_a_year_before_the_earliest_with_no_version_is_wrong() -> None:
    """Issue 20: Watson and Crick cited as 1952: one year *before* the earliest date any source
    gives, and no preprint or other version in sight, is a wrong year (major), not "off by one
    across versions"; one year after (a print date after the online one) stays minor."""
    nature = {"title": "Molecular Structure of Nucleic Acids", "year": 1953, "venue": "Nature"}
    cited = cite(title=nature["title"], year=1952, venue="Nature", doi="10.1038/171737a0")
    answers = [
        found(src, QueryKind.DOI, rec(src, doi="10.1038/171737a0", **nature), query="10.1038/171737a0")
        for src in (C, O)
    ]
    v = run(cited, *answers)
    assert Reason.YEAR_MISMATCH in v.reasons and v.flagged, v.reasons
    assert v.corrected["year"] == 1953
    # One year after: minor only when a source gives a date of that year (issue 21: Crossref's
    # print date after the online one); with every date in view and none of 1954, wrong.
    v = run(cited.model_copy(update={"year": 1954}), *answers)
    assert Reason.YEAR_MISMATCH in v.reasons and v.flagged, v.reasons
    printed = rec(C, doi="10.1038/171737a0", other_years=(1954,), **nature)
    v = run(
        cited.model_copy(update={"year": 1954}),
        found(C, QueryKind.DOI, printed, query="10.1038/171737a0"),
        answers[1],
    )
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged
    # A preprint the sources do not list is the likely version: cited as one ("arXiv preprint"),
    # or a computing venue's paper (the field posts preprints first: Adam cited 2014, ICLR 2015).
    v = by_search(cite(year=2019, venue="arXiv preprint"), rec(O), rec(C))
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged
    v = by_search(cite(year=2019), rec(O), rec(C))  # NeurIPS
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons and not v.flagged


def test_the_conference_year_of_a_preprint_agrees() -> None:
    """Issue 20: Adam cited as ICLR 2015: arXiv and Semantic Scholar give the preprint's 2014, the
    arXiv journal reference names ICLR 2015. The cited venue and year are the conference's: the
    year agrees, and no "2015 -> 2014" is proposed while the booktitle stays ICLR."""
    title = "Adam: A Method for Stochastic Optimization"
    authors = (Author(given="Diederik P.", family="Kingma"), Author(given="Jimmy", family="Ba"))
    ref = (
        "Published as a conference paper at the 3rd International Conference for Learning "
        "Representations, San Diego, 2015"
    )
    arxiv = rec(
        A,
        title=title,
        authors=authors,
        year=2014,
        arxiv_id="1412.6980",
        is_preprint=True,
        venue=ref,
        published_venue=ref,
        work_type="preprint",
    )
    s2 = rec(
        S,
        title=title,
        authors=authors,
        year=2014,
        arxiv_id="1412.6980",
        venue="International Conference on Learning Representations",
        published_venue="International Conference on Learning Representations",
    )
    cited = cite(
        title=title,
        authors=authors,
        year=2015,
        venue="International Conference on Learning Representations (ICLR)",
    )
    v = by_search(cited, arxiv, s2)
    assert "year" not in v.corrected, (v.reasons, v.corrected)
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS not in v.reasons and Reason.YEAR_MISMATCH not in v.reasons
    assert v.fields["year"].agrees is True
    # Cited as the arXiv preprint of 2014: agrees too; 2016 is still off.
    assert by_search(cited.model_copy(update={"year": 2014}), arxiv, s2).fields["year"].agrees is True
    assert by_search(cited.model_copy(update={"year": 2017}), arxiv, s2).fields["year"].agrees is False


def test_arxiv_version_ahead() -> None:
    ax = rec(A, arxiv_id="2005.14165", arxiv_version=4, venue=None, is_preprint=True)
    v = run(cite(arxiv_id="2005.14165", arxiv_version=9, venue=None), found(A, QueryKind.ARXIV, ax))
    assert Reason.ARXIV_VERSION_MISMATCH in v.reasons and v.flagged


def test_venue_is_another_known_venue() -> None:
    v = by_search(cite(venue="ICML"), rec(O), rec(S))
    assert Reason.VENUE_MISMATCH in v.reasons and v.flagged
    assert v.fields["venue"].agrees is False


def test_venue_unresolved_is_minor() -> None:
    """Class 2: a venue the sources' names cannot resolve is reported, not flagged."""
    v = by_search(cite(venue="Workshop on Obscure Things"), rec(O, venue="Journal of Other Things"), rec(S))
    assert v.status is VerdictStatus.METADATA_ERROR and not v.flagged
    assert {Reason.VENUE_UNRESOLVED, Reason.VENUE_FORM} & set(v.reasons)


def test_preprint_only_visible_is_unconfirmed_not_accused() -> None:
    """Class 1: only the arXiv record was retrieved; nobody says where it was published."""
    ax = rec(A, arxiv_id="2005.14165", venue=None, is_preprint=True)
    v = run(cite(arxiv_id="2005.14165"), found(A, QueryKind.ARXIV, ax, query="2005.14165"))
    assert Reason.PUBLISHED_VERSION_UNCONFIRMED in v.reasons
    assert Reason.PREPRINT_CITED_AS_PUBLISHED not in v.reasons and not v.flagged


def test_matched_by_search_is_annotated() -> None:
    v = by_search(cite(), rec(O), rec(S))
    assert Reason.MATCHED_BY_SEARCH in v.reasons and v.status is VerdictStatus.VERIFIED


# --- the issue-10 classes, from shapes of real records ---------------------------------------------


def test_s2_knows_the_published_venue_while_arxiv_does_not() -> None:
    ax = rec(A, arxiv_id="2005.14165", venue=None, is_preprint=True)
    s2 = rec(
        S, arxiv_id="2005.14165", venue="arXiv.org", published_venue="Neural Information Processing Systems"
    )
    v = run(
        cite(arxiv_id="2005.14165"),
        found(A, QueryKind.ARXIV, ax, query="2005.14165"),
        found(S, QueryKind.ARXIV, s2, query="2005.14165"),
    )
    assert v.status is VerdictStatus.VERIFIED, v.reasons


def test_a_dblp_conference_key_places_the_work() -> None:
    ax = rec(A, arxiv_id="2005.14165", venue=None, is_preprint=True)
    s2 = rec(S, arxiv_id="2005.14165", venue="arXiv.org", dblp_key="conf/nips/BrownMRSKDNSSAA20")
    v = run(
        cite(arxiv_id="2005.14165", venue="ICML"),
        found(A, QueryKind.ARXIV, ax, query="2005.14165"),
        found(S, QueryKind.ARXIV, s2, query="2005.14165"),
    )
    assert not v.flagged and Reason.PREPRINT_CITED_AS_PUBLISHED not in v.reasons


def test_openalex_repository_primary_with_the_journal_as_another_location() -> None:
    oa = rec(
        O, venue="Apollo - University of Cambridge Repository", other_venues=("Nature Machine Intelligence",)
    )
    v = by_search(cite(venue="Nature Machine Intelligence"), oa, rec(S, venue="Nature Machine Intelligence"))
    assert v.status is VerdictStatus.VERIFIED, v.reasons


def test_book_series_as_the_cited_venue() -> None:
    cr = rec(
        C,
        venue="Computer Vision – ECCV 2020",
        other_venues=("Lecture Notes in Computer Science",),
        venue_aliases=("ECCV",),
    )
    v = by_search(
        cite(venue="Lecture Notes in Computer Science"),
        cr,
        rec(S, venue="European Conference on Computer Vision"),
    )
    assert not v.flagged, v.reasons


def test_acronym_published_by_the_source() -> None:
    s2 = rec(S, venue="Symposium On Usable Privacy and Security", venue_aliases=("SOUPS",))
    v = by_search(cite(venue="SOUPS"), rec(O, venue="Symposium On Usable Privacy and Security"), s2)
    assert v.status is VerdictStatus.VERIFIED, v.reasons


def test_one_source_agrees_with_the_cited_authors() -> None:
    partial = rec(S, authors=AUTHORS[:2])
    v = by_search(cite(), rec(O), partial)
    assert v.status is VerdictStatus.VERIFIED, v.reasons


def test_title_chimera_never_when_a_source_has_the_cited_title() -> None:
    theirs = rec(O, title="Scaling Laws for Neural Language Models")
    same_title_other_year = rec(
        S,
        title="Emergent Calibration of Sparse Mixture Routers",
        year=2011,
        authors=(Author(given="Ann", family="Other"),),
    )
    v = by_search(cite(title="Emergent Calibration of Sparse Mixture Routers"), theirs, same_title_other_year)
    assert Reason.TITLE_CHIMERA not in v.reasons and v.status is not VerdictStatus.FABRICATED


def test_version_suffixed_doi_is_the_same_work() -> None:
    cr = rec(C, doi="10.1101/2023.10.11.561234", venue="bioRxiv", is_preprint=True)
    cited = cite(doi="10.1101/2023.10.11.561234v1", venue=None)
    v = run(cited, found(C, QueryKind.DOI, cr, query="10.1101/2023.10.11.561234v1"))
    assert not v.flagged and v.status is VerdictStatus.VERIFIED, v.reasons


def test_datacite_doi_unknown_to_crossref_is_no_evidence() -> None:
    cited = cite(entry_type="article", doi="10.25080/majora-92bf1922-00a", venue="Proceedings of SciPy")
    v = nothing_anywhere(
        cited, missing(C, QueryKind.DOI, cited.doi or ""), missing(O, QueryKind.DOI, cited.doi or "")
    )
    assert v.status is not VerdictStatus.FABRICATED


# --- properties -----------------------------------------------------------------------------------

_outcomes = st.sampled_from(list(Outcome))
_sources = st.sampled_from([O, C, S, A, P])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(_sources, _outcomes, st.booleans()), max_size=6),
    st.sampled_from([None, "NeurIPS", "arXiv preprint", "Nature"]),
)
def test_no_accusation_without_every_source_and_no_verified_without_a_match(
    answers: list[tuple[SourceName, Outcome, bool]], venue: str | None
) -> None:
    cited = cite(venue=venue)
    built = []
    for source, outcome, matching in answers:
        records = (
            (rec(source, title=TITLE if matching else "Unrelated Work on Soil"),)
            if outcome is Outcome.FOUND
            else ()
        )
        built.append(
            SourceAnswer(source=source, kind=QueryKind.SEARCH, query="q", outcome=outcome, records=records)
        )
    v = run(cited, *built)
    if v.status is VerdictStatus.VERIFIED:
        assert any(a.outcome is Outcome.FOUND and a.records and a.records[0].title == TITLE for a in built)
    if v.status is VerdictStatus.NOT_FOUND:
        answered = {a.source for a in built if a.outcome is not Outcome.FAILED}
        assert {O, C, S} <= answered


def test_names_damaged_by_pdf_extraction_match_the_sources() -> None:
    """Real ICLR 2026 bibliographies extracted from PDFs: "Br ¨uschweiler", "V alentin"."""
    from aletheia.core.authors import parse_name

    damaged = tuple(
        parse_name(n) for n in ("Frank No ´e", "Simon Olsson", "Jonas K ¨ohler", "V alentin V assilev")
    )
    clean = (
        Author(given="Frank", family="Noé"),
        Author(given="Simon", family="Olsson"),
        Author(given="Jonas", family="Köhler"),
        Author(given="Valentin", family="Vassilev"),
    )
    v = by_search(cite(authors=damaged), rec(O, authors=clean), rec(S, authors=clean))
    assert v.status is VerdictStatus.VERIFIED, v.reasons


# --- the web tier (core.web) ----------------------------------------------------------------------

WEB_URL = "https://widgets.example/blog/scaling"


def web_cite(**kw: object) -> CitedReference:
    base: dict[str, object] = {
        "entry_type": "misc",
        "venue": None,
        "authors": (),
        "title": "Scaling Laws for Widgets",
        "url": WEB_URL,
    }
    base.update(kw)
    return cite(**base)


def page(title: str | None, final: str = WEB_URL, *others: str) -> SourceAnswer:
    record = WorkRecord(
        source=SourceName.WEB,
        title=title,
        alternate_titles=others,
        work_type="web_page",
        urls={"cited": WEB_URL, "final": final},
    )
    return found(SourceName.WEB, QueryKind.URL, record, query=WEB_URL)


def test_web_page_answering_with_the_cited_title_is_verified() -> None:
    v = run(web_cite(), page("Scaling Laws for Widgets | The Widget Blog"))
    assert v.status is VerdictStatus.VERIFIED and Reason.WEB_PAGE_TITLE_MATCHES in v.reasons
    assert fired(v)[0] == "web_page_answers_with_cited_title"
    assert v.match is not None and v.match.source is SourceName.WEB and v.match.work_type == "web_page"
    assert any(n.startswith("content type: web_page") for n in v.notes)
    assert v.fields["title"].agrees is True and v.fields["title"].source is SourceName.WEB
    # og:title or h1 count too; and without the web tier's answer it stays out of scope
    assert run(web_cite(), page("Home", WEB_URL, "Scaling laws for widgets")).status is VerdictStatus.VERIFIED
    assert run(web_cite()).status is VerdictStatus.OUT_OF_SCOPE
    # a sign of invention still wins over a page that answers
    assert run(web_cite(year=2031), page("Scaling Laws for Widgets")).status is VerdictStatus.FABRICATED


def test_archived_copy_of_another_date_is_a_minor_error() -> None:
    archived = "https://web.archive.org/web/20230105000000/https://widgets.example/blog/scaling"
    cited = web_cite(url=archived, fields={"urldate": "2023-01-04"})
    same = page("Scaling Laws for Widgets", archived)
    assert run(cited, same).status is VerdictStatus.VERIFIED
    later = page("Scaling Laws for Widgets", archived.replace("20230105", "20250601"))
    v = run(cited, later)
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR and not v.flagged
    assert Reason.ARCHIVE_DATE_DIFFERS in v.reasons
    assert any("archived copy of 2025-06-01" in n and "access date 2023-01-04" in n for n in v.notes)
    # without an access date, the archive URL's own timestamp is the cited date
    v = run(web_cite(url=archived), later)
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.ARCHIVE_DATE_DIFFERS in v.reasons


def test_web_page_with_another_title_is_a_minor_error() -> None:
    v = run(web_cite(), page("Cooking with Cast Iron Pans"))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR and not v.flagged
    assert Reason.WEB_PAGE_TITLE_DIFFERS in v.reasons and v.fields["title"].agrees is False
    # a page without a title, or a citation without one, has nothing to compare: out of scope
    assert run(web_cite(), page(None)).status is VerdictStatus.OUT_OF_SCOPE
    assert run(web_cite(title=None), page("Anything")).status is VerdictStatus.OUT_OF_SCOPE


def test_web_page_that_does_not_answer_is_unverifiable() -> None:
    for answer in (
        failed(SourceName.WEB, QueryKind.URL, WEB_URL),
        missing(SourceName.WEB, QueryKind.URL, WEB_URL),
    ):
        v = run(web_cite(), answer)
        assert v.status is VerdictStatus.UNVERIFIABLE and Reason.WEB_PAGE_UNREACHABLE in v.reasons
        assert v.status not in (VerdictStatus.FABRICATED, VerdictStatus.NOT_FOUND)
        assert any("not evidence of invention" in n for n in v.notes)


# --- source trust (seed 003) ------------------------------------------------------------------------


def test_low_trust_evidence_is_never_decisive() -> None:
    web_hit = SourceName("tavily")
    # Only a search engine's hit has the work: not verified, and its fields decide nothing.
    v = by_search(cite(), rec(web_hit))
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.LOW_TRUST_EVIDENCE in v.reasons
    assert "only_low_trust_evidence" in fired(v) and "low_trust_evidence_only" in fired(v)
    assert all(not ev.decisive and ev.trust == "search_hit" for ev in v.fields.values())
    # What it contradicts is reported, never major and never flagged.
    v = by_search(cite(year=2017), rec(web_hit))
    assert Reason.YEAR_MISMATCH in v.reasons and not v.flagged and v.severity is not Severity.MAJOR
    # The same contradiction from the indexes is decisive.
    v = by_search(cite(year=2017), rec(O), rec(S))
    year = v.fields["year"]
    assert v.severity is Severity.MAJOR and year.decisive and year.trust == "aggregator_index"
    assert Reason.LOW_TRUST_EVIDENCE not in v.reasons


def test_venue_confirmed_by_dblp() -> None:
    """Issue 12: DBLP's record under the work's key names the cited venue: positive evidence."""
    dblp = rec(SourceName.DBLP, venue="NeurIPS", dblp_key="conf/nips/BrownMRSKDNSSAA20")
    s2 = rec(S, dblp_key="conf/nips/BrownMRSKDNSSAA20")
    v = by_search(cite(), dblp, s2)
    assert Reason.VENUE_CONFIRMED_BY_DBLP in v.reasons and v.status is VerdictStatus.VERIFIED
    # Its CoRR copy confirms nothing; nor does a DBLP record another source files under another key.
    corr = rec(SourceName.DBLP, venue="CoRR", dblp_key="journals/corr/abs-2005-14165", is_preprint=True)
    assert Reason.VENUE_CONFIRMED_BY_DBLP not in by_search(cite(), corr, s2).reasons
    other = rec(S, dblp_key="conf/icml/Other20")
    assert Reason.VENUE_CONFIRMED_BY_DBLP not in by_search(cite(), dblp, other).reasons
    assert Reason.VENUE_CONFIRMED_BY_DBLP not in by_search(cite(venue="ICML"), dblp, s2).reasons


def test_orcid() -> None:
    """Issue 12: two sources name different people (ORCID iDs) for the same author position."""
    first = AUTHORS[0]
    crossref = rec(C, authors=(first.model_copy(update={"orcid": "0000-0002-1825-0097"}), *AUTHORS[1:]))
    openalex = rec(O, authors=(first.model_copy(update={"orcid": "0000-0001-5109-3700"}), *AUTHORS[1:]))
    v = by_search(cite(), crossref, openalex)
    assert Reason.ORCID_CONFLICT in v.reasons and v.status is VerdictStatus.VERIFIED and not v.flagged
    same = rec(O, authors=crossref.authors)
    assert Reason.ORCID_CONFLICT not in by_search(cite(), crossref, same).reasons
