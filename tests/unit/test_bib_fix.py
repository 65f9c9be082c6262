"""`aletheia fix`'s core: value spans of a BibTeX file, span edits, and the fix plan from verdicts."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.core.bib_fix import plan_fix
from aletheia.core.bibliography import InputProblem, iter_bibtex
from aletheia.core.bibliography.bibtex_scan import MAX_BRACE_DEPTH
from aletheia.core.bibtex_edit import Edit, apply_edits, render_value, scan_entries
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FieldEvidence, Reason, Severity, Verdict, VerdictStatus

BIB = (
    "% my references\r\n"
    "@string{jmlr = {Journal of Machine Learning Research}}\r\n"
    "@article{adam,\r\n"
    "  author    = {Kingma, Diederik and Bo, Jimmy},\r\n"
    '  title     = "{Adam}: A Method for Stochastic Optimisation",\r\n'
    "  journal   = jmlr,\r\n"
    "  year      = 2015,\r\n"
    "}\r\n"
    "\r\n"
    "@inproceedings{ghost, title={{A Paper Nobody Wrote}}, author={Doe, Jane}, year={2021}}\r\n"
    "@misc{macro, title = {Part} # { two}, year = {2020}}\r\n"
)


def _refs(text: str) -> list[CitedReference]:
    return [r for r in iter_bibtex([text], origin="refs.bib") if isinstance(r, CitedReference)]


def _record(title: str, authors: list[tuple[str, str]], year: int) -> WorkRecord:
    return WorkRecord(
        source=SourceName.CROSSREF,
        title=title,
        authors=tuple(Author(given=g, family=f) for g, f in authors),
        year=year,
        doi="10.5555/x",
    )


def _verified(ref: CitedReference) -> Verdict:
    record = _record(
        ref.title or "", [(a.given or "", a.family or "") for a in ref.authors], ref.year or 2000
    )
    return Verdict(
        status=VerdictStatus.VERIFIED,
        match=record,
        fields={
            "title": FieldEvidence(cited=ref.title, found=ref.title, source=SourceName.CROSSREF, agrees=True)
        },
    )


def _contradicted(ref: CitedReference) -> Verdict:
    record = _record(
        "Adam: A Method for Stochastic Optimization", [("Diederik P.", "Kingma"), ("Jimmy", "Ba")], 2014
    )
    authors = [a.display for a in record.authors]
    return Verdict(
        status=VerdictStatus.METADATA_ERROR,
        severity=Severity.MAJOR,
        reasons=(Reason.AUTHOR_LIST_DIFFERS, Reason.YEAR_MISMATCH, Reason.TITLE_NEAR_MISS),
        match=record,
        fields={
            "title": FieldEvidence(
                cited=ref.title, found=record.title, source=SourceName.CROSSREF, similarity=0.97, agrees=False
            ),
            "authors": FieldEvidence(
                cited=[a.display for a in ref.authors],
                found=authors,
                source=SourceName.CROSSREF,
                similarity=0.6,
                agrees=False,
            ),
            "year": FieldEvidence(cited=2015, found=2014, source=SourceName.CROSSREF, agrees=False),
        },
        corrected={"title": record.title, "authors": authors, "year": 2014},
    )


def test_scan_finds_value_spans() -> None:
    entries = {e.key: e for e in scan_entries(BIB)}
    assert set(entries) == {"adam", "ghost", "macro"}
    adam = entries["adam"]
    assert adam.line == 3
    assert BIB[adam.fields["title"].start : adam.fields["title"].end].startswith('"{Adam}')
    assert BIB[adam.fields["year"].start : adam.fields["year"].end] == "2015"
    assert not adam.fields["journal"].editable  # a macro
    assert not entries["macro"].fields["title"].editable  # concatenation


def test_contradicted_values_are_replaced_and_nothing_else() -> None:
    refs = _refs(BIB)
    adam = next(r for r in refs if r.key == "adam")
    results = [(r, _contradicted(r) if r.key == "adam" else _verified(r)) for r in refs]
    plan = plan_fix(BIB, results)
    fixed = plan.fixed_text()
    assert {c.field for c in plan.changes} == {"title", "author", "year"}
    assert '"Adam: A Method for Stochastic Optimization"' in fixed  # the original delimiter kept
    assert "{Kingma, Diederik P. and Ba, Jimmy}" in fixed
    assert "year      = 2014,\r\n" in fixed
    # Everything outside the three value spans is the same bytes.
    spans = [
        f
        for e in scan_entries(BIB)
        if e.key == "adam"
        for n, f in e.fields.items()
        if n in ("title", "author", "year")
    ]
    cursor, pieces = 0, []
    for span in sorted(spans, key=lambda s: s.start):
        pieces.append(BIB[cursor : span.start])
        cursor = span.end
    pieces.append(BIB[cursor:])
    assert all(piece in fixed for piece in pieces)
    change = next(c for c in plan.changes if c.field == "year")
    assert (change.cited, change.new, change.source) == (2015, 2014, "crossref")
    assert adam.title and plan.exit_code() == 1


@pytest.mark.parametrize(
    "status",
    [VerdictStatus.NOT_FOUND, VerdictStatus.AMBIGUOUS, VerdictStatus.UNVERIFIABLE, VerdictStatus.FABRICATED],
)
def test_unverified_references_are_marked_never_changed(status: VerdictStatus) -> None:
    refs = _refs(BIB)
    contradicted = _contradicted(refs[0])
    # Even with evidence that looks like a contradiction, a verdict that is not a match changes nothing.
    verdict = contradicted.model_copy(update={"status": status, "reasons": (Reason.NO_MATCH_FOUND,)})
    results = [(r, verdict if r.key == "ghost" else _verified(r)) for r in refs]
    plan = plan_fix(BIB, results)
    assert plan.changes == []
    fixed = plan.fixed_text()
    mark = f"% aletheia: NOT VERIFIED ({status.value}: no_match_found); kept unchanged, check it by hand\r\n"
    assert mark + "@inproceedings{ghost" in fixed
    assert fixed.replace(mark, "") == BIB
    assert plan_fix(fixed, results).fixed_text() == fixed  # marking twice adds nothing
    assert plan.exit_code() == (3 if status in (VerdictStatus.AMBIGUOUS, VerdictStatus.UNVERIFIABLE) else 1)


def test_a_contradiction_in_a_macro_value_is_reported_not_applied() -> None:
    refs = _refs(BIB)
    macro = next(r for r in refs if r.key == "macro")
    verdict = Verdict(
        status=VerdictStatus.METADATA_ERROR,
        match=_record("Part three", [], 2020),
        fields={
            "title": FieldEvidence(
                cited=macro.title, found="Part three", source=SourceName.CROSSREF, agrees=False
            )
        },
        corrected={"title": "Part three"},
    )
    plan = plan_fix(BIB, [(macro, verdict)])
    assert plan.changes == [] and plan.fixed_text() == BIB
    assert [n.field for n in plan.not_applied] == ["title"]


def test_unreadable_entries_are_marked() -> None:
    text = "@article{ok, title={T}}\n@article{broken, title={T}\n"
    problem = InputProblem(origin="refs.bib", line=2, message="entry never closes", key="broken")
    plan = plan_fix(text, [], [problem])
    assert plan.fixed_text().splitlines()[1].startswith("% aletheia: NOT VERIFIED (could not be read")


def test_render_value_keeps_case_protection() -> None:
    assert render_value("{", "New", original="{{Old}}") == "{{New}}"
    assert render_value("{", "New", original="{Old} and {Other}") == "{New}"
    assert render_value('"', "New") == '"New"' and render_value("", "2014") == "2014"


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits("abcdef", [Edit(0, 3, "x"), Edit(2, 4, "y")])


_FIELD_VALUE = st.text(
    alphabet=st.characters(blacklist_characters='{}"\\@%', blacklist_categories=("Cs",)), max_size=30
)
_ENTRY = st.builds(
    lambda key, title, year, sep, delim: (
        f"@article{{{key},{sep}title = {delim[0]}{title}{delim[1]},{sep}year={year}}}{sep}"
    ),
    st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True),
    _FIELD_VALUE,
    st.integers(1900, 2030),
    st.sampled_from(["\n", "\r\n", " ", "\n\n  "]),
    st.sampled_from([("{", "}"), ('"', '"')]),
)


@given(st.lists(_ENTRY, max_size=5), st.sampled_from(["", "% comment\n", "junk between entries\n"]))
@example([], "")
def test_no_contradiction_reproduces_the_input_byte_for_byte(entries: list[str], filler: str) -> None:
    text = filler.join(entries) + filler
    refs = _refs(text)
    plan = plan_fix(text, [(r, _verified(r)) for r in refs])
    assert plan.fixed_text() == text
    assert plan.changes == [] and plan.marks == []


@given(st.lists(_ENTRY, max_size=4), st.integers(0, 4), st.integers(1, 3 * MAX_BRACE_DEPTH))
@example([], 0, 10_000)
@example(["@article{a, title={x}, year=2000}\n"], 1, MAX_BRACE_DEPTH - 2)
@example(["@article{a, title={x}, year=2000}\n"], 1, MAX_BRACE_DEPTH - 1)
def test_fix_edits_the_entries_verify_read_and_skips_braces_nested_too_deep(
    entries: list[str], at: int, depth: int
) -> None:
    """One scanner (`bibliography/bibtex_scan`) for both: a block nesting braces past its guard is
    reported by the reader and left alone by `aletheia fix`, and the entries around it are still
    found at the right places."""
    deep = "@misc{deep, title = {" + "{" * depth + "x" + "}" * depth + "}}\n"
    parts = list(entries)
    parts.insert(min(at, len(parts)), deep)
    text = "".join(parts)
    spans = scan_entries(text)
    refs = _refs(text)
    assert [e.key for e in spans] == [r.key for r in refs]
    too_deep = depth + 2 > MAX_BRACE_DEPTH  # the block's brace, the title's, then `depth` more
    assert ("deep" in [e.key for e in spans]) is not too_deep
    problems = [p for p in iter_bibtex([text], origin="refs.bib") if isinstance(p, InputProblem)]
    assert any("nested more than" in p.message for p in problems) is too_deep
    for entry in spans:
        assert text[entry.start] == "@" and text[entry.end - 1] == "}"
        title = entry.fields["title"]
        assert text[title.start] in '{"' and text[title.end - 1] in '}"'


@given(st.text(alphabet=st.sampled_from(list('@{}"#,=% \n\\()abc12')), max_size=200))
@example('@article{a, title = {x} # "y", year = 20}')
@example("@string{s = {x}} @comment{ } @article{")
def test_scanning_any_text_never_fails_and_spans_stay_inside(text: str) -> None:
    for entry in scan_entries(text):
        assert 0 <= entry.start < entry.end <= len(text) and text[entry.start] == "@"
        for span in entry.fields.values():
            assert entry.start < span.start <= span.end <= entry.end
    assert apply_edits(text, []) == text


def test_placeholder_authors_of_a_real_work_are_replaced() -> None:
    """Issue 20 (seed 003's `fix_hallucinated_authors`): title and DOI name a real work, the authors
    are templates. `fix` replaces them with the sources' authors and keeps the title and DOI."""
    from aletheia.core.decide import decide
    from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer

    text = (
        "@article{attn,\n  author = {Smith, John and Doe, Jane},\n"
        "  title = {Sparse Attention Kernels for Long Document Retrieval},\n"
        "  journal = {Proceedings of the Conference on Information Retrieval},\n"
        "  year = {2021},\n  doi = {10.5555/cir.2021.88},\n}\n"
    )
    [ref] = _refs(text)
    real = [
        WorkRecord(
            source=source,
            title="Sparse Attention Kernels for Long Document Retrieval",
            authors=(Author(given="Wei", family="Zhang"), Author(given="Amara", family="Diallo")),
            year=2021,
            venue="Proceedings of the Conference on Information Retrieval",
            doi="10.5555/cir.2021.88",
        )
        for source in (SourceName.CROSSREF, SourceName.OPENALEX)
    ]
    answers = tuple(
        SourceAnswer(
            source=r.source, kind=QueryKind.DOI, query=ref.doi or "", outcome=Outcome.FOUND, records=(r,)
        )
        for r in real
    )
    verdict = decide(ref, Evidence(answers=answers), current_year=2026)
    assert verdict.status is VerdictStatus.METADATA_ERROR, (verdict.status, verdict.reasons)
    plan = plan_fix(text, [(ref, verdict)])
    fixed = plan.fixed_text()
    assert "author = {Zhang, Wei and Diallo, Amara}" in fixed, fixed
    assert "Smith" not in fixed and "Doe" not in fixed
    assert "doi = {10.5555/cir.2021.88}" in fixed and "Sparse Attention Kernels" in fixed
    assert [c.field for c in plan.changes] == ["author"]


def test_reordering_authors_keeps_the_cited_middle_initials() -> None:
    """Issue 30: "Manning, Christopher D." became "Manning, Christopher" when `fix` put the
    authors in the source's order (the source writes no middle initial)."""
    text = (
        "@book{irbook, title={Introduction to Information Retrieval},\n"
        '  author={Sch{\\"u}tze, Hinrich and Manning, Christopher D. and Raghavan, P.},\n  year={2008}}\n'
    )
    (ref,) = _refs(text)
    record = _record(
        "Introduction to Information Retrieval",
        [("Christopher", "Manning"), ("Prabhakar", "Raghavan"), ("Hinrich", "Schütze")],
        2008,
    )
    found = [a.display for a in record.authors]
    verdict = Verdict(
        status=VerdictStatus.METADATA_ERROR,
        severity=Severity.MAJOR,
        reasons=(Reason.AUTHOR_LIST_DIFFERS,),
        match=record,
        fields={
            "authors": FieldEvidence(
                cited=[a.display for a in ref.authors], found=found, source=SourceName.CROSSREF, agrees=False
            )
        },
        corrected={"authors": found},
    )
    plan = plan_fix(text, [(ref, verdict)])
    fixed = apply_edits(text, plan.edits)
    # The source's order; each person as fully as either side names them (the source's full
    # "Prabhakar" over the cited initial, the cited "D." kept).
    assert "author={Manning, Christopher D. and Raghavan, Prabhakar and Schütze, Hinrich}" in fixed, fixed
    (change,) = plan.changes
    assert change.new == ["Christopher D. Manning", "Prabhakar Raghavan", "Hinrich Schütze"]
