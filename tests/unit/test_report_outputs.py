"""Issue 20, "Errors and outputs": the corrected BibTeX and CSL-JSON a person imports, and the
exit code when input problems meet flagged references."""

from __future__ import annotations

import io
import json
from collections import Counter

import bibtexparser

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import VerdictStatus
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs.tally import VerifySummary
from aletheia.pipeline.reports.formats import BibtexSink, CslJsonSink, reference_json

AUTHORS = (Author(given="Ashish", family="Vaswani"), Author(given="Noam", family="Shazeer"))
TITLE = "Attention is All you Need"


def record(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2017,
        "venue": "Advances in Neural Information Processing Systems",
        "arxiv_id": "1706.03762",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def obj(cited: CitedReference, *records: WorkRecord) -> dict[str, object]:
    answers = tuple(
        SourceAnswer(source=r.source, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(r,))
        for r in records
    ) or (
        SourceAnswer(source=SourceName.CROSSREF, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND),
    )
    evidence = Evidence(answers=answers)
    verdict = decide(cited, evidence, current_year=2026)
    return reference_json(ReferenceOutcome(cited=cited, verdict=verdict, evidence=evidence, raw=[]))


def plain(key: str, raw: str, **kw: object) -> CitedReference:
    values: dict[str, object] = {"key": key, "raw": raw, "title": TITLE, "authors": AUTHORS[:1], "year": 2017}
    values.update(kw)
    return CitedReference(**values)  # type: ignore[arg-type]


def test_corrected_bibtex_of_a_plain_list_has_real_keys_standard_fields_and_no_no_op_changes() -> None:
    out = io.StringIO()
    sink = BibtexSink(out)
    first = plain(
        "1",
        "Vaswani, A. (2017). Attention is all you need. NeurIPS. arXiv:1706.03762",
        venue="Advances in Neural Information Processing Systems",
        arxiv_id="1706.03762",
        authors=AUTHORS,
    )
    sink.reference(obj(first, record(SourceName.ARXIV), record(SourceName.SEMANTIC_SCHOLAR)))
    second = plain("2", "Vaswani, A. (2017). Another paper. Nowhere.", title="Another paper")
    sink.reference(obj(second))
    sink.summary({"total": 2, "logic_version": "x"})
    text = out.getvalue()
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    keys = [e.key for e in library.entries]
    assert keys == ["vaswani2017", "vaswani2017a"], keys
    entry = library.entries[0]
    assert entry.entry_type == "inproceedings"
    standard = {
        "author",
        "title",
        "year",
        "booktitle",
        "journal",
        "eprint",
        "archiveprefix",
        "doi",
        "url",
        "note",
    }
    for e in library.entries:
        assert {f.key.lower() for f in e.fields} <= standard, e.fields
    assert entry["booktitle"] == "Advances in Neural Information Processing Systems"
    assert entry["eprint"] == "1706.03762"
    for line in text.splitlines():
        if " changed from " in line:
            old, new = line.split(" changed from ", 1)[1].split(" (source")[0].split(" to ", 1)
            assert old != new, line


def test_csl_json_keeps_every_field_and_types_conference_papers() -> None:
    cited = CitedReference(
        key="vaswani2017",
        entry_type="inproceedings",
        fields={
            "title": TITLE,
            "author": "Vaswani, Ashish and Shazeer, Noam",
            "booktitle": "Advances in Neural Information Processing Systems",
            "year": "2017",
            "pages": "5998--6008",
            "volume": "30",
            "publisher": "Curran Associates",
            "url": "https://papers.nips.cc/paper/7181",
        },
        title=TITLE,
        authors=AUTHORS,
        year=2017,
        venue="Advances in Neural Information Processing Systems",
    )
    flagged = CitedReference(
        key="ghost",
        entry_type="article",
        fields={
            "title": "A Paper Nobody Wrote",
            "author": "Nobody, Ann",
            "journal": "Journal of Nothing",
            "year": "2020",
            "volume": "3",
            "pages": "1--9",
        },
        title="A Paper Nobody Wrote",
        authors=(Author(given="Ann", family="Nobody"),),
        year=2020,
        venue="Journal of Nothing",
    )
    out = io.StringIO()
    sink = CslJsonSink(out)
    sink.reference(obj(cited, record(SourceName.ARXIV), record(SourceName.SEMANTIC_SCHOLAR)))
    sink.reference(obj(flagged))
    sink.summary({"total": 2, "logic_version": "x"})
    good, ghost = json.loads(out.getvalue())
    assert good["type"] == "paper-conference"
    assert good["container-title"] == "Advances in Neural Information Processing Systems"
    assert (good["page"], good["volume"], good["publisher"], good["URL"]) == (
        "5998-6008",
        "30",
        "Curran Associates",
        "https://papers.nips.cc/paper/7181",
    )
    assert good["author"][0] == {"family": "Vaswani", "given": "Ashish"}
    assert ghost["type"] == "article-journal"
    assert (
        ghost["container-title"] == "Journal of Nothing" and ghost["volume"] == "3" and ghost["page"] == "1-9"
    )
    assert ghost["author"] == [{"family": "Nobody", "given": "Ann"}]
    assert ghost["issued"] == {"date-parts": [[2020]]}
    assert "not verified" in ghost["note"]


def test_flagged_references_exit_1_even_with_input_problems() -> None:
    """Duplicate keys are reported, and the entries are verified: a flagged one makes it exit 1."""
    summary = VerifySummary()
    summary.problems.append("refs.bib:9: duplicate key 'x' (first used at line 1); both entries are kept")  # type: ignore[arg-type]
    summary.by_verdict[VerdictStatus.FABRICATED.value] = 1
    summary.flagged = 1
    assert summary.exit_code() == 1
    summary.flagged = 0
    summary.by_verdict = Counter({VerdictStatus.VERIFIED.value: 1})
    assert summary.exit_code() == 2


def _offline_summary() -> dict[str, object]:
    names = ("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp", "acl_anthology")
    sources = {n: {"status": "offline", "affected": 0, "affected_verdicts": {}} for n in names}
    sources["dblp"] = {"status": "offline", "affected": 2, "affected_verdicts": {"unverifiable": 2}}
    return {"total": 3, "by_verdict": {"unverifiable": 2, "verified": 1}, "sources": sources}


def test_the_offline_banner_names_only_sources_that_affected_a_verdict_by_their_names() -> None:
    from aletheia.pipeline.reports.advice import attention

    att = attention(_offline_summary(), [])
    line = att.sources_line()
    assert "0 verdicts affected" not in line, line
    assert "DBLP (offline; 2 verdicts affected" in line and "dblp" not in line, line
    assert line.startswith("Offline"), line
    for code in ("crossref", "acl_anthology", "semantic_scholar"):
        assert code not in line, line


def test_long_titles_are_cut_at_a_word_with_an_ellipsis() -> None:
    from aletheia.pipeline.reports.fields import shorten

    title = (
        "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental "
        "disorder in children"
    )
    cut = shorten(title, 100)
    assert len(cut) <= 100 and cut.endswith("…") and title.startswith(cut[:-1].rstrip())
    assert cut[:-1].rstrip().split()[-1] in title.split()  # a whole word before the ellipsis
    assert shorten("Deep Learning", 100) == "Deep Learning"


def test_the_html_report_says_no_adr_and_never_breaks_a_word_of_a_verdict_or_badge() -> None:
    import re

    from aletheia.pipeline.reports.formats import render_html

    page = render_html(
        {
            "references": [],
            "summary": {
                "total": 0,
                "by_verdict": {},
                "sources": {},
                "by_verification_status": {"verified": 1},
                "logic_version": "x",
            },
        }
    )
    assert "ADR" not in page
    css = page.split("</style>")[0]
    for rule in re.findall(r"(\.badge\s*\{[^}]*\}|\.v\s*\{[^}]*\})", css):
        assert "anywhere" not in rule and "break-all" not in rule, rule


ADAM = "Adam: A Method for Stochastic Optimization"
KINGMA_BA = (Author(given="Diederik P.", family="Kingma"), Author(given="Jimmy", family="Ba"))


def _conflicting_doi() -> dict[str, object]:
    """A real work cited with a DOI that belongs to another paper: `identifier_conflict`, the
    work's own DOI in `corrected`."""
    cited = CitedReference(
        key="vaswani2017",
        entry_type="article",
        fields={
            "title": TITLE,
            "author": "Vaswani, Ashish and Shazeer, Noam",
            "journal": "NeurIPS",
            "year": "2017",
            "doi": "10.1000/wrong.1",
        },
        title=TITLE,
        authors=AUTHORS,
        year=2017,
        venue="NeurIPS",
        doi="10.1000/wrong.1",
    )
    elsewhere = WorkRecord(
        source=SourceName.CROSSREF,
        title="Soil Moisture Dynamics in Semi-Arid Grasslands",
        authors=(Author(given="Xu", family="Yang"),),
        year=2001,
        doi="10.1000/wrong.1",
    )
    answers = (
        SourceAnswer(
            source=SourceName.CROSSREF,
            kind=QueryKind.DOI,
            query="10.1000/wrong.1",
            outcome=Outcome.FOUND,
            records=(elsewhere,),
        ),
        *(
            SourceAnswer(
                source=source,
                kind=QueryKind.SEARCH,
                query="q",
                outcome=Outcome.FOUND,
                records=(record(source, doi="10.5555/right.2"),),
            )
            for source in (SourceName.SEMANTIC_SCHOLAR, SourceName.OPENALEX)
        ),
    )
    evidence = Evidence(answers=answers)
    verdict = decide(cited, evidence, current_year=2026)
    return reference_json(ReferenceOutcome(cited=cited, verdict=verdict, evidence=evidence, raw=[]))


def test_bibtex_and_csl_json_render_one_corrected_record() -> None:
    adam = CitedReference(
        key="kingma2015",
        entry_type="inproceedings",
        fields={
            "title": ADAM,
            "author": "Kingma, Diederik P. and Ba, Jimmy",
            "booktitle": "ICLR",
            "year": "2015",
        },
        title=ADAM,
        authors=KINGMA_BA,
        year=2015,
        venue="ICLR",
    )
    preprint = {"title": ADAM, "authors": KINGMA_BA, "year": 2014, "arxiv_id": "1412.6980", "venue": "arXiv"}
    verified = obj(
        adam,
        record(SourceName.ARXIV, **preprint),
        record(SourceName.SEMANTIC_SCHOLAR, **preprint),
        record(SourceName.DBLP, title=ADAM, authors=KINGMA_BA, year=2015, venue="ICLR", arxiv_id=None),
    )
    # The matched record is the 2014 preprint; the decision accepted the cited 2015.
    assert verified["verdict"] == "verified" and verified["match"]["year"] == 2014  # type: ignore[index]
    conflict = _conflicting_doi()
    assert conflict["verdict"] == "identifier_conflict"
    assert conflict["corrected"]["doi"] == "10.5555/right.2"  # type: ignore[index]
    bib, csl = io.StringIO(), io.StringIO()
    for sink in (BibtexSink(bib), CslJsonSink(csl)):
        sink.reference(verified)
        sink.reference(conflict)
        sink.summary({"total": 2, "logic_version": "x"})
    entries = {e.key: e for e in bibtexparser.parse_string(bib.getvalue()).entries}
    items = {i["id"]: i for i in json.loads(csl.getvalue())}
    assert set(entries) == set(items) == {"kingma2015", "vaswani2017"}
    for key, entry in entries.items():
        item = items[key]
        assert int(entry["year"]) == item["issued"]["date-parts"][0][0], key
        assert entry.fields_dict.get("doi") is None or entry["doi"] == item.get("DOI"), key
        assert ("doi" in entry.fields_dict) == ("DOI" in item), key
        assert entry["title"] == item["title"], key
    assert items["kingma2015"]["issued"] == {"date-parts": [[2015]]}
    assert items["vaswani2017"]["DOI"] == entries["vaswani2017"]["doi"] == "10.5555/right.2"


def test_bibtex_and_csl_json_both_put_a_wrong_venue_right() -> None:
    """A venue the decision corrected (the work appeared elsewhere): the BibTeX's booktitle and the
    CSL's container-title are both the sources' venue (CSL kept the cited, wrong one)."""
    cited = CitedReference(
        key="vaswani2017",
        entry_type="inproceedings",
        fields={
            "title": TITLE,
            "author": "Vaswani, Ashish and Shazeer, Noam",
            "booktitle": "International Conference on Machine Learning",
            "year": "2017",
        },
        title=TITLE,
        authors=AUTHORS,
        year=2017,
        venue="International Conference on Machine Learning",
    )
    ref = obj(cited, record(SourceName.CROSSREF), record(SourceName.OPENALEX), record(SourceName.DBLP))
    neurips = "Advances in Neural Information Processing Systems"
    assert ref["corrected"] == {"venue": neurips}
    bib, csl = io.StringIO(), io.StringIO()
    for sink in (BibtexSink(bib), CslJsonSink(csl)):
        sink.reference(ref)
        sink.summary({"total": 1, "logic_version": "x"})
    (entry,) = bibtexparser.parse_string(bib.getvalue()).entries
    (item,) = json.loads(csl.getvalue())
    assert entry["booktitle"] == item["container-title"] == neurips


def test_sources_that_affected_no_verdict_make_no_partial_run() -> None:
    """A default run with a reference not found: the LLM fallback and the web search were skipped
    (no key) and affected nothing; the sources that answered are `ok`."""
    from aletheia.pipeline.reports.advice import attention
    from aletheia.pipeline.reports.formats import GithubSink

    sources = {
        "crossref": {"status": "ok", "affected": 0, "affected_verdicts": {}},
        "llm": {"status": "unavailable", "affected": 0, "affected_verdicts": {}},
        "tavily": {"status": "unavailable", "affected": 0, "affected_verdicts": {}},
        "openalex": {"status": "degraded", "affected": 0, "affected_verdicts": {}},
    }
    summary = {
        "total": 1,
        "by_verdict": {"not_found": 1},
        "flagged": 1,
        "sources": sources,
        "logic_version": "x",
    }
    att = attention(summary, [])
    assert not att.partial and att.sources_line() == "Every source answered."
    out = io.StringIO()
    GithubSink(out).summary(summary)
    assert "::warning" not in out.getvalue(), out.getvalue()
    # A source whose absence a verdict needed is still named.
    sources["tavily"] = {"status": "unavailable", "affected": 1, "affected_verdicts": {"unverifiable": 1}}
    assert (
        attention(summary, []).sources_line().startswith("Partial run — sources not fully available: Tavily")
    )


def test_the_table_starts_with_the_summary_and_lists_what_needs_attention_first() -> None:
    """Issue 30: the table printed its summary last and its rows in input order."""
    from tests.unit.test_report_ci import render

    lines = [line for line in render("table").splitlines() if line.strip()]
    assert lines[0].startswith("3 of 4 references need attention"), lines[:3]
    assert "Partial run" in lines[1] + lines[2]
    text = "\n".join(lines)
    # Input order: kingma (metadata error), ghost (not found), fine (verified), twin (ambiguous).
    where = {key: text.index(key) for key in ("ghost", "kingma", "twin", "fine")}
    assert where["ghost"] < where["kingma"] < where["twin"] < where["fine"], where


def test_the_exports_keep_a_cited_middle_initial_the_source_leaves_out() -> None:
    from aletheia.pipeline.reports.corrected import corrected_values

    ref = {
        "verdict": "metadata_error",
        "input": {"author": "Schütze, Hinrich and Manning, Christopher D."},
        "fields": {"authors": {"cited": ["Hinrich Schütze", "Christopher D. Manning"]}},
        "corrected": {"authors": ["Christopher Manning", "Hinrich Schütze"]},
    }
    assert corrected_values(ref)["authors"] == ["Christopher D. Manning", "Hinrich Schütze"]


def test_the_listed_change_is_the_corrected_entrys_authors() -> None:
    """The change a report lists ("authors: ... → ...") is the corrected record's, as its entry is:
    it said the middle initial goes while the entry kept it."""
    from aletheia.pipeline.reports.advice import explain
    from tests.unit.test_explain import _unmatched

    ref = _unmatched(
        "metadata_error",
        ["author_mismatch"],
        severity="major",
        input={"title": "Foundations", "author": "Schütze, Hinrich and Manning, Christopher D."},
        fields={"authors": {"cited": ["Hinrich Schütze", "Christopher D. Manning"]}},
        corrected={"authors": ["Christopher Manning", "Hinrich Schütze"]},
    )
    fix = explain(ref).fix
    assert fix.bibtex is not None and "Manning, Christopher D." in fix.bibtex
    assert fix.changes == [
        "authors: Hinrich Schütze, Christopher D. Manning → Christopher D. Manning, Hinrich Schütze"
    ]
