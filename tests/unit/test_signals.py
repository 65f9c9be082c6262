"""Integrity signals (core/aletheia/core/signals.py): predatory venues, corrections and expressions
of concern, citation cohorts. Pure functions: no verdict is changed by any of them."""

from __future__ import annotations

from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.signals import (
    CitedWork,
    PredatoryList,
    SignalKind,
    cohort_signal,
    normalize_journal_title,
    parse_predatory_csv,
    predatory_signals,
    standing_signals,
)

# A fixture list: invented venues, invented (but check-digit valid) ISSNs.
FIXTURE_CSV = """\
# a fixture list for the tests
issn,title,source,date,note
1234-5679,Journal of Invented Results,fixture: delisted by an index,2024-05-01,editorial misconduct
"2049-3630; 1050-012x",The International Journal of Made-Up Studies,fixture: a published list,2023-01-15,
,Global Archive of Everything & More,fixture: a published list,2022,
0000-0001,Bad Checksum Journal,fixture,2022,
1111-1111,No Source Journal,,2022,
"""


def listed() -> PredatoryList:
    entries, problems = parse_predatory_csv(FIXTURE_CSV.splitlines(keepends=True))
    assert len(problems) == 3  # two bad check digits (one row kept by its title), no source
    return PredatoryList(entries)


def record(**kw: object) -> WorkRecord:
    return WorkRecord.model_validate({"source": "crossref", "title": "A paper", **kw})


def test_journal_titles_fold() -> None:
    assert normalize_journal_title("The Journal of X & Y.") == "journal of x and y"


def test_csv_rows_and_problems() -> None:
    entries, problems = parse_predatory_csv(FIXTURE_CSV.splitlines(keepends=True))
    assert [e.issn for e in entries] == [("1234-5679",), ("2049-3630", "1050-012X"), (), ()]
    assert entries[0].source == "fixture: delisted by an index" and entries[0].date == "2024-05-01"
    assert any("invalid ISSN 0000-0001" in p for p in problems)
    assert any("no source" in p for p in problems)
    _, missing = parse_predatory_csv(["title,date\n", "x,2020\n"])
    assert missing == ["missing column(s): issn, source"]


def test_issn_match_comes_first_and_names_the_lists_source() -> None:
    rec = record(venue="Some Other Name", issn=("1050012X",))
    [signal] = predatory_signals([rec], listed())
    assert signal.kind is SignalKind.PREDATORY_SOURCE
    assert signal.source == "fixture: a published list"
    assert signal.evidence["matched_on"] == "issn" and signal.evidence["value"] == "1050-012X"
    assert signal.evidence["listed_title"] == "The International Journal of Made-Up Studies"


def test_title_match_when_no_issn_matches() -> None:
    rec = record(venue="Global Archive of Everything and More", issn=("0028-0836",))
    [signal] = predatory_signals([rec], listed())
    assert signal.evidence["matched_on"] == "title"
    # Only the exact normalised title: a longer or shorter name is another journal.
    assert predatory_signals([record(venue="Global Archive of Everything")], listed()) == []


def test_nothing_listed_nothing_signalled() -> None:
    assert predatory_signals([record(venue="Nature", issn=("0028-0836",))], listed()) == []
    assert predatory_signals([record(venue="Journal of Invented Results")], PredatoryList()) == []
    assert predatory_signals([], listed()) == []


def notice(kind: RetractionKind, doi: str | None, date: str | None, source: SourceName) -> RetractionNotice:
    return RetractionNotice(kind=kind, source=source, notice_doi=doi, date=date)


def test_corrections_and_concerns_from_the_combined_standing() -> None:
    status = combine_retraction_status(
        [
            notice(RetractionKind.CORRECTED, "10.1/corr", "2021-02-03", SourceName.CROSSREF),
            notice(RetractionKind.CORRECTED, "10.1/corr", None, SourceName.RETRACTION_WATCH),
            notice(RetractionKind.EXPRESSION_OF_CONCERN, "10.1/eoc", "2022-01-01", SourceName.CROSSREF),
        ]
    )
    signals = standing_signals(status.model_dump(mode="json"))
    assert sorted((s.kind.value, s.evidence.get("notice_doi")) for s in signals) == [
        ("corrected", "10.1/corr"),
        ("expression_of_concern", "10.1/eoc"),
    ]
    corrected = next(s for s in signals if s.kind is SignalKind.CORRECTED)
    assert corrected.evidence == {"notice_doi": "10.1/corr", "date": "2021-02-03"}
    assert corrected.source == "crossref, retraction_watch"


def test_a_lifted_concern_and_a_plain_retraction_are_no_signal() -> None:
    status = combine_retraction_status(
        [
            notice(
                RetractionKind.EXPRESSION_OF_CONCERN, "10.1/eoc", "2020-01-01", SourceName.RETRACTION_WATCH
            ),
            notice(RetractionKind.REINSTATED, "10.1/re", "2021-01-01", SourceName.RETRACTION_WATCH),
            notice(RetractionKind.RETRACTED, "10.1/ret", "2022-01-01", SourceName.CROSSREF),
        ]
    )
    assert standing_signals(status.model_dump(mode="json")) == []
    assert standing_signals({}) == [] and standing_signals(None) == []


def person(given: str, family: str) -> Author:
    return Author(given=given, family=family)


def works(*author_lists: tuple[Author, ...]) -> list[CitedWork]:
    return [CitedWork(key=f"r{i}", authors=authors) for i, authors in enumerate(author_lists, 1)]


SMITH, DOE, ROE = person("Alice", "Smith"), person("John", "Doe"), person("Mary", "Roe")


def others(n: int) -> list[tuple[Author, ...]]:
    return [(person(f"Given{i}", f"Surname{i}"),) for i in range(n)]


def test_a_cluster_over_forty_percent_is_reported_with_who_and_which() -> None:
    # r1-r4 all have Smith: one author on 4 of 8 references (50%).
    refs = works((SMITH,), (SMITH, ROE), (SMITH, DOE), (SMITH, DOE), *others(4))
    signal = cohort_signal(refs)
    assert signal is not None and signal.kind is SignalKind.COHORT_CONCENTRATED
    assert signal.evidence["references"] == ["r1", "r2", "r3", "r4"]
    assert signal.evidence["share"] == 0.5 and signal.evidence["cluster"] == "one_author"
    assert signal.evidence["authors"][0] == {"name": "Alice Smith", "references": 4}
    assert {"name": "John Doe", "references": 2} in signal.evidence["authors"]


def test_a_chain_through_single_shared_people_is_not_a_cohort() -> None:
    # r1-r2 share Smith, r2-r3 Doe, r3-r4 Roe: connected, but no author set is shared by the four.
    chain = works((SMITH,), (SMITH, DOE), (DOE, ROE), (ROE,), *others(3))
    assert cohort_signal(chain) is None


def test_a_group_linked_by_two_shared_members_is_a_cohort() -> None:
    lee, kim = person("Ann", "Lee"), person("Bo", "Kim")
    # No one is on all four, but each consecutive pair shares two people: one group.
    group = works((SMITH, DOE), (SMITH, DOE, ROE), (DOE, ROE, lee), (ROE, lee, kim), *others(3))
    signal = cohort_signal(group)
    assert signal is not None and signal.evidence["cluster"] == "same_group"
    assert signal.evidence["references"] == ["r1", "r2", "r3", "r4"]


def test_at_or_under_forty_percent_no_signal() -> None:
    assert cohort_signal(works((SMITH,), (SMITH,), (SMITH,), (DOE,), *others(6))) is None  # 30%
    assert cohort_signal(works((SMITH,), (SMITH,), (DOE,), (DOE,), *others(1))) is None  # cluster of 2


def test_same_surname_other_given_name_is_another_person() -> None:
    wangs = works(*[(person(g, "Wang"),) for g in ("Yi", "Zhe", "Lei", "Min", "Hao")])
    assert cohort_signal(wangs) is None
    initials = works((person("Y.", "Wang"),), (person("Yi", "Wang"),), (person("Y", "Wang"),), *others(2))
    assert cohort_signal(initials) is not None


def test_too_few_references_no_signal() -> None:
    assert cohort_signal(works((SMITH,), (SMITH,), (SMITH,), (SMITH,))) is None


# --- in the report: the REFERENCE's `signals`, the summary's cohort, the HTML chips ---------------


def _outcome(key: str, match: WorkRecord, *, retraction: dict[str, object] | None = None) -> object:
    from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
    from aletheia.core.records import CitedReference
    from aletheia.core.verdicts import Verdict, VerdictStatus
    from aletheia.pipeline.evidence.outcome import ReferenceOutcome

    twin = match.model_copy(update={"source": SourceName.OPENALEX, "issn": ("1050012X",), "venue": None})
    answer = SourceAnswer(
        source=SourceName.OPENALEX, kind=QueryKind.DOI, query="q", outcome=Outcome.FOUND, records=(twin,)
    )
    verdict = Verdict(status=VerdictStatus.VERIFIED, match=match, retraction=retraction or {})
    cited = CitedReference(key=key, title=match.title, authors=match.authors, doi=match.doi)
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=(answer,)), raw=[])


def test_reference_json_carries_signals_and_the_verdict_stands() -> None:
    from aletheia.pipeline.reports.formats import reference_json

    status = combine_retraction_status(
        [notice(RetractionKind.EXPRESSION_OF_CONCERN, "10.1/eoc", "2022-01-01", SourceName.CROSSREF)]
    )
    # The ISSN is on the OpenAlex twin of the match only: every record of the matched work counts.
    out = _outcome("k", record(doi="10.9/x", venue="Elsewhere"), retraction=status.model_dump(mode="json"))
    obj = reference_json(out, predatory=listed())  # type: ignore[arg-type]
    assert obj["verdict"] == "verified"
    assert [s["kind"] for s in obj["signals"]] == ["predatory_source", "expression_of_concern"]
    assert obj["signals"][0]["evidence"]["record"] == "openalex"
    # The default list is the shipped one, which is empty: no venue signal.
    assert [s["kind"] for s in reference_json(out)["signals"]] == ["expression_of_concern"]  # type: ignore[arg-type]


def test_sinks_add_the_cohort_to_the_summary_and_html_shows_chips() -> None:
    import io
    import json

    from aletheia.pipeline.reports.formats import JsonSink, reference_json
    from aletheia.pipeline.reports.html import render_html

    smith = (person("Alice", "Smith"),)
    refs = [
        reference_json(_outcome(f"r{i}", record(doi=f"10.9/{i}", authors=smith if i < 3 else others(6)[i])))  # type: ignore[arg-type]
        for i in range(6)
    ]
    out = io.StringIO()
    sink = JsonSink(out)
    for ref in refs:
        sink.reference(ref)
    sink.summary({"total": 6})
    summary = json.loads(out.getvalue())["summary"]
    [cohort] = summary["signals"]
    assert cohort["kind"] == "cohort_concentrated" and cohort["evidence"]["references"] == ["r0", "r1", "r2"]
    page = render_html(
        {"summary": {"total": 6, "by_verdict": {"verified": 6}, "sources": {}}, "references": refs}
    )
    assert 'data-signal="cohort_concentrated"' in page and "Alice Smith" in page
