"""The reason sentences (explain.py) and the three answers per reference (report_advice): every
reason code has a sentence, values are filled in from the field evidence, cited fields are
decoded, and each verdict gets the fix a person would make."""

from __future__ import annotations

import string
from typing import Any

import bibtexparser

from aletheia.core.verdicts import Reason
from aletheia.pipeline.reports.advice import attention, explain
from aletheia.pipeline.reports.explain import context, fill, sentence
from aletheia.pipeline.reports.fields import decoded_cited, diff_tokens, split_origin
from aletheia.pipeline.reports.reason_sentences import SENTENCES


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_reason_has_a_sentence_that_never_fails() -> None:
    assert set(SENTENCES) == set(Reason)
    for reason, (role, templates) in SENTENCES.items():
        assert role in ("wrong", "how", "note"), reason
        assert templates and not _placeholders(templates[-1]), f"{reason}: the last template needs no value"
        assert sentence(reason.value, {}) == templates[-1]
        assert "_" not in templates[-1], f"{reason}: say it in words, not codes"


def test_a_template_falls_through_when_a_value_is_missing() -> None:
    templates = ("cited {year_cited}; {year_says} {year_found}", "the year is wrong")
    assert fill(templates, {"year_cited": "2019"}) == "the year is wrong"
    assert fill(templates, {"year_cited": "2019", "year_says": "arXiv says", "year_found": "2014"}) == (
        "cited 2019; arXiv says 2014"
    )


def test_an_identifier_that_resolves_nowhere_is_named_whatever_its_kind() -> None:
    nowhere = Reason.IDENTIFIER_RESOLVES_NOWHERE.value
    by_doi = context({"fields": {}}, {"doi": "10.9999/invented"})
    assert sentence(nowhere, by_doi) == "the identifier doi:10.9999/invented resolves at no registry"
    by_acl = context({"fields": {}}, {"url": "https://aclanthology.org/2023.acl-long.123/"})
    assert (
        sentence(nowhere, by_acl) == "the identifier ACL Anthology 2023.acl-long.123 resolves at no registry"
    )
    assert sentence(nowhere, context({"fields": {}}, {})) == "the cited identifier resolves at no registry"


def wrong_year_ref() -> dict[str, Any]:
    return {
        "key": "kingma2017adam",
        "entry_type": "inproceedings",
        "origin": "refs/paper.bib:47",
        "input": {
            "title": "{Adam}: A Method for Stochastic Optimization",
            "author": "Kingma, Diederik P. and Ba, Jimmy",
            "booktitle": "ICLR",
            "year": "2019",
            "eprint": "1412.6980",
            "archiveprefix": "arXiv",
        },
        "verdict": "metadata_error",
        "severity": "major",
        "reasons": ["arxiv_resolved", "year_mismatch", "triangulated"],
        "fields": {
            "year": {
                "cited": 2019,
                "found": 2014,
                "source": "semantic_scholar",
                "decisive": True,
                "agrees": False,
            },
            "arxiv_id": {
                "cited": "1412.6980",
                "found": "1412.6980",
                "source": "arxiv",
                "decisive": True,
                "agrees": True,
            },
        },
        "match": {
            "title": "Adam: A Method for Stochastic Optimization",
            "sources": ["arxiv", "semantic_scholar"],
        },
        "retraction": {},
        "corrected": {"year": 2014},
        "notes": ["rules: fields_disagree, year_mismatch"],
        "sources_unavailable": [],
        "trace": [
            {"source": "arxiv", "kind": "arxiv", "query": "1412.6980", "outcome": "found", "records": 1}
        ],
    }


def test_a_wrong_year_says_what_each_source_said_and_gives_the_corrected_entry() -> None:
    ex = explain(wrong_year_ref())
    assert ex.wrong == ["the year is wrong: cited 2019; Semantic Scholar and arXiv say 2014"]
    assert "arXiv:1412.6980 resolves to this work" in ex.how
    assert ex.label == "wrong year"
    assert (ex.file, ex.line) == ("refs/paper.bib", 47)
    assert ex.fix.kind == "replace" and ex.fix.changes == ["year: 2019 → 2014"]
    (entry,) = bibtexparser.parse_string(ex.fix.bibtex or "").entries
    assert entry["year"] == "2014" and entry.key == "kingma2017adam"
    assert ex.cited["title"] == "Adam: A Method for Stochastic Optimization"  # LaTeX decoded
    (diff,) = ex.diffs
    assert diff["cited"] == [{"text": "2019", "differs": True}]


def test_cited_fields_are_decoded_and_authors_listed() -> None:
    cited = decoded_cited(
        {
            "input": {
                "title": "{BERT}: Pre-training of Deep Bidirectional Transformers",
                "author": "Vaswani, Ashish and Kaiser, {\\L}ukasz and others",
                "journal": "Trans. {ACL}",
            }
        }
    )
    assert cited["title"] == "BERT: Pre-training of Deep Bidirectional Transformers"
    assert cited["authors"] == ["Ashish Vaswani", "Łukasz Kaiser", "et al."]
    assert cited["venue"] == "Trans. ACL"


def test_origins_and_word_differences() -> None:
    assert split_origin("examples/sample.bib:4") == ("examples/sample.bib", 4)
    assert split_origin("refs.bbl:12:3") == ("refs.bbl", 12)
    assert split_origin("-") == ("-", None)
    assert split_origin(None) == (None, None)
    left, right = diff_tokens(
        ["Deep", "Residual", "Learning"], ["Deep", "residual", "learning", "for", "images"]
    )
    assert [d for _, d in left] == [False, False, False]
    assert [t for t, d in right if d] == ["for", "images"]


def _unmatched(verdict: str, reasons: list[str], **extra: object) -> dict[str, Any]:
    ref: dict[str, Any] = {
        "key": "x",
        "origin": "a.bib:3",
        "input": {"title": "Ghost paper", "author": "Doe, John"},
        "verdict": verdict,
        "severity": None,
        "reasons": reasons,
        "fields": {},
        "match": None,
        "corrected": {},
        "notes": [],
        "sources_unavailable": [],
        "trace": [
            {"source": "openalex", "kind": "search", "query": "q", "outcome": "not_found"},
            {"source": "crossref", "kind": "search", "query": "q", "outcome": "not_found"},
        ],
    }
    ref.update(extra)
    return ref


def test_each_verdict_gets_a_fix_a_person_would_make() -> None:
    gone = explain(_unmatched("not_found", ["no_match_found"]))
    assert gone.fix.kind == "remove"
    assert gone.fix.text == "remove: no source knows this work (asked: OpenAlex and Crossref)"
    conflict = explain(
        _unmatched(
            "ambiguous",
            ["triangulation_conflict"],
            notes=["triangulation_conflict:year: crossref=2001 openalex=2011"],
        )
    )
    assert conflict.fix.kind == "check" and conflict.fix.text.startswith(
        "check by hand: the sources disagree"
    )
    down = explain(
        _unmatched(
            "unverifiable",
            ["source_unavailable", "search_incomplete"],
            sources_unavailable=["semantic_scholar"],
            notes=["not searched: semantic_scholar"],
        )
    )
    assert down.fix.kind == "check" and "Semantic Scholar" in down.fix.text
    assert "could not ask Semantic Scholar" in down.notes
    fine = explain(_unmatched("verified", ["doi_resolved", "triangulated"]))
    assert fine.fix.kind == "nothing" and not fine.needs_attention


def test_the_summary_counts_by_kind_and_names_the_sources_not_asked() -> None:
    refs = [explain(wrong_year_ref()), explain(_unmatched("not_found", ["no_match_found"]))]
    summary = {
        "total": 2,
        "sources": {
            "crossref": {"status": "ok", "affected": 0},
            "semantic_scholar": {
                "status": "unavailable",
                "affected": 1,
                "affected_verdicts": {"unverifiable": 1},
            },
        },
    }
    att = attention(summary, refs)
    assert att.headline == "2 of 2 references need attention: 1 to remove, 1 to correct."
    assert att.partial
    assert "Semantic Scholar (unavailable; 1 verdicts affected: unverifiable: 1)" in att.sources_line()
    assert attention({"total": 2, "sources": {"crossref": {"status": "ok"}}}, refs).sources_line() == (
        "Every source answered."
    )


def test_a_doi_that_points_elsewhere_is_named_with_the_dois_own_work() -> None:
    """Issue 20: the work found by title is the match; the sentence about the cited DOI must quote
    the work *the DOI* names, never the cited title."""
    from aletheia.core.decide import decide
    from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
    from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord

    cited_title = "Language Models are Few-Shot Learners"
    authors = (Author(given="Tom", family="Brown"), Author(given="Benjamin", family="Mann"))
    go = WorkRecord(
        source=SourceName.CROSSREF,
        title="Mastering the game of Go",
        authors=(Author(given="David", family="Silver"),),
        year=2016,
        doi="10.1/go",
    )
    gpt3 = WorkRecord(
        source=SourceName.OPENALEX, title=cited_title, authors=authors, year=2020, doi="10.1/gpt3"
    )
    cited = CitedReference(key="brown2020", title=cited_title, authors=authors, year=2020, doi="10.1/go")

    def answer(source: SourceName, kind: QueryKind, *records: WorkRecord) -> SourceAnswer:
        outcome = Outcome.FOUND if records else Outcome.NOT_FOUND
        return SourceAnswer(source=source, kind=kind, query="10.1/go", outcome=outcome, records=records)

    answers = (
        answer(SourceName.CROSSREF, QueryKind.DOI, go),
        answer(SourceName.OPENALEX, QueryKind.SEARCH, gpt3),
        answer(SourceName.CROSSREF, QueryKind.SEARCH),
        answer(SourceName.SEMANTIC_SCHOLAR, QueryKind.SEARCH),
    )
    v = decide(cited, Evidence(answers=answers), current_year=2026)
    assert v.status.value == "identifier_conflict"
    ref = {
        "verdict": v.status.value,
        "reasons": [r.value for r in v.reasons],
        "fields": {k: ev.model_dump(mode="json") for k, ev in v.fields.items()},
        "match": {"title": v.match.title if v.match else None, "sources": ["openalex"]},
        "notes": list(v.notes),
        "input": {"title": cited_title, "doi": "10.1/go", "year": "2020"},
    }
    said = " ".join(explain(ref).wrong)
    assert "Mastering the game of Go" in said, said
    assert f"“{cited_title}”" not in said.split("belongs to another work")[1], said
