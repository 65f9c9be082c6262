"""BibTeX/biblatex reading: macros, crossref, LaTeX, identifiers, recovery from malformed entries,
streaming in bounded memory, and robustness on brace soup."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aletheia.core.bibliography import InputProblem
from aletheia.core.bibliography.bibtex import iter_bibtex, parse_bibtex_year
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


def _read(text: str, *, chunk: int = 64 * 1024) -> list[CitedReference | InputProblem]:
    return list(iter_bibtex((text[i : i + chunk] for i in range(0, len(text), chunk)), origin="t.bib"))


def _refs(results: list[CitedReference | InputProblem]) -> dict[str, CitedReference]:
    return {r.key: r for r in results if isinstance(r, CitedReference)}


@pytest.fixture(scope="module")
def fixture_results() -> list[CitedReference | InputProblem]:
    return _read((FIXTURES / "refs.bib").read_text(encoding="utf-8"))


def test_every_entry_is_read_around_the_malformed_one(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    keys = [r.key for r in fixture_results if isinstance(r, CitedReference)]
    assert sorted(keys) == sorted(
        ["novak2020", "ito2018", "tanaka2023", "yearless", "pmid2017", "novak2020", "wem2019", "okafor2019"]
    )
    problems = [r for r in fixture_results if isinstance(r, InputProblem)]
    malformed = [p for p in problems if "malformed" in p.message]
    assert len(malformed) == 1
    assert (malformed[0].origin, malformed[0].line, malformed[0].column) == ("t.bib", 35, 1)
    assert "line 40" in malformed[0].message  # names where reading resumed
    assert str(malformed[0]).startswith("t.bib:35:1: ")


def test_commented_out_entries_preamble_and_comments_are_skipped(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    keys = {r.key for r in fixture_results if isinstance(r, CitedReference)}
    assert "commented_out" not in keys
    assert not any(isinstance(r, InputProblem) and "preamble" in r.message for r in fixture_results)


def test_macros_concatenation_accents_and_verbatim_fields(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    novak = next(r for r in fixture_results if isinstance(r, CitedReference) and r.key == "novak2020")
    assert novak.venue == "Journal of Hydrology Letters (Special Issue)"
    assert novak.title == "Tidal Forcing of Coastal Aquifers in Öresund"
    assert [a.family for a in novak.authors] == ["Novák", "van den Berg", "Østergaard"]
    assert novak.authors[2].given == "Søren"
    assert novak.year == 2020
    assert novak.doi == "10.5555/jhl.2020.0042"
    assert novak.entry_type == "article"
    assert novak.origin == "t.bib:9"
    # fields keep the value as written (macros expanded, LaTeX untouched)
    assert novak.fields["title"] == 'Tidal Forcing of {C}oastal {A}quifers in {\\"O}resund'
    assert novak.fields["doi"] == "10.5555/JHL.2020.0042"
    assert novak.fields["month"] == "March"
    assert novak.fields["volume"] == "12"
    assert novak.heuristic_fields == ()


def test_crossref_parent_after_child_is_inherited(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    child = _refs(fixture_results)["okafor2019"]
    assert child.venue == "Proceedings of the Workshop on Efficient Models"
    assert child.fields["booktitle"] == "Proceedings of the Workshop on Efficient Models"
    assert child.year == 2019
    assert child.fields["publisher"] == "Efficient Press"
    assert child.doi is None  # a volume's DOI is not its papers'
    assert child.origin == "t.bib:19"


def test_eprint_archiveprefix_and_others(fixture_results: list[CitedReference | InputProblem]) -> None:
    ito = _refs(fixture_results)["ito2018"]
    assert (ito.arxiv_id, ito.arxiv_version) == ("1805.01234", 3)
    assert ito.authors_truncated
    assert [a.family for a in ito.authors] == ["Ito"]


def test_biblatex_date_journaltitle_subtitle_and_scanned_identifiers(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    tanaka = _refs(fixture_results)["tanaka2023"]
    assert tanaka.year == 2023
    assert tanaka.venue == "Colouring Quarterly"
    assert tanaka.title == "Heuristics for Graph Colouring: A Field Guide"
    assert tanaka.doi == "10.5555/cq.2023.7"  # from howpublished
    assert tanaka.arxiv_id == "2301.04567"  # from note
    assert tanaka.url == "https://doi.org/10.5555/cq.2023.7"
    assert tanaka.entry_type == "online"


def test_unreliable_years_are_none_and_pubmed_eprints_are_pmids(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    refs = _refs(fixture_results)
    assert refs["yearless"].year is None
    assert refs["pmid2017"].year is None
    assert refs["pmid2017"].pmid == "28911234"
    assert refs["pmid2017"].isbn == "9783161484100"


def test_duplicate_keys_keep_both_and_note_a_problem(
    fixture_results: list[CitedReference | InputProblem],
) -> None:
    duplicates = [r for r in fixture_results if isinstance(r, CitedReference) and r.key == "novak2020"]
    assert [d.year for d in duplicates] == [2020, 2021]
    problem = next(r for r in fixture_results if isinstance(r, InputProblem) and "duplicate key" in r.message)
    assert (problem.line, problem.key) == (66, "novak2020")
    assert "line 9" in problem.message


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_chunk_boundaries_do_not_change_the_result(chunk: int) -> None:
    text = (FIXTURES / "refs.bib").read_text(encoding="utf-8")
    assert _read(text, chunk=chunk) == _read(text)


@pytest.mark.parametrize(
    ("value", "year"),
    [
        ("2023", 2023),
        ("{2023}", 2023),
        ('"2023"', 2023),
        ("2023-05-01", 2023),
        ("2023/2024", 2023),
        ("2023~", 2023),
        ("2023a", None),
        ("to appear", None),
        ("forthcoming", None),
        ("in press", None),
        ("", None),
        (None, None),
        ("0999", None),
    ],
)
def test_parse_bibtex_year(value: str | None, year: int | None) -> None:
    assert parse_bibtex_year(value) == year


def test_string_macros_are_case_insensitive_and_may_use_earlier_macros() -> None:
    text = '@string{A = "Alpha"}\n@string{ab = a # " Beta"}\n@misc{k, title = AB # { Gamma}, month = DEC}\n'
    ref = _refs(_read(text))["k"]
    assert ref.title == "Alpha Beta Gamma"
    assert ref.fields["month"] == "December"


def test_undefined_macro_is_kept_as_its_name() -> None:
    ref = _refs(_read("@inproceedings{k, title = {T}, booktitle = neurips}"))["k"]
    assert ref.venue == "neurips"


def test_crossref_parent_before_child_and_missing_parent() -> None:
    text = (
        "@proceedings{conf, title = {Conf Proceedings}, year = 1999, editor = {Ed, Ida}}\n"
        "@inproceedings{child, title = {Child}, crossref = {CONF}}\n"
        "@inproceedings{orphan, title = {Orphan}, crossref = {nowhere}}\n"
    )
    results = _read(text)
    refs = _refs(results)
    assert refs["child"].venue == "Conf Proceedings"
    assert refs["child"].year == 1999
    assert refs["child"].fields["editor"] == "Ed, Ida"
    assert refs["orphan"].venue is None
    problem = next(r for r in results if isinstance(r, InputProblem))
    assert "nowhere" in problem.message and problem.line == 3


def test_crossref_chains_resolve_once_the_root_appears() -> None:
    text = (
        "@inproceedings{paper, title = {Paper}, crossref = {vol}}\n"
        "@proceedings{vol, title = {Volume}, crossref = {series}}\n"
        "@mvproceedings{series, title = {Series}, year = 2001, publisher = {Pub}}\n"
    )
    refs = _refs(_read(text))
    assert refs["paper"].year == 2001
    assert refs["paper"].fields["publisher"] == "Pub"
    assert refs["paper"].venue == "Volume"


def test_old_style_eprint_with_primary_class_and_dblp_corr() -> None:
    text = (
        "@misc{old, title = {Old}, eprint = {9901001}, archivePrefix = {arXiv}, primaryClass = {hep-th}}\n"
        "@article{dblp, title = {BERT}, journal = {CoRR}, volume = {abs/1810.04805}, year = {2018}}\n"
        "@article{doi_arxiv, title = {X}, doi = {10.48550/arXiv.2101.00001}}\n"
    )
    refs = _refs(_read(text))
    assert refs["old"].arxiv_id == "hep-th/9901001"
    assert refs["dblp"].arxiv_id == "1810.04805"
    assert refs["doi_arxiv"].arxiv_id == "2101.00001"


def test_paren_delimited_entries_and_odd_spacing() -> None:
    refs = _refs(_read("@Article ( paren1 , title = {Paren} , year = 2001 )\n@ARTICLE {upper, title={Up}}"))
    assert refs["paren1"].title == "Paren"
    assert refs["upper"].entry_type == "article"


def test_missing_comma_and_bad_keys_are_problems_with_positions() -> None:
    results = _read(
        "@article{ok1, title={A}}\n@article{nocomma title = {B}}\n@article{, title={C}}\n@article{ok2}"
    )
    assert sorted(_refs(results)) == ["ok1", "ok2"]
    problems = [r for r in results if isinstance(r, InputProblem)]
    assert [p.line for p in problems] == [2, 3]


def test_an_entry_that_never_closes_is_reported_at_the_end() -> None:
    results = _read("@article{a, title={A}}\n@article{b, title={B\n")
    assert list(_refs(results)) == ["a"]
    assert isinstance(results[-1], InputProblem)
    assert "input ended" in results[-1].message


def test_at_signs_in_comments_and_values_are_not_entries() -> None:
    text = "Mail me at someone@example.org {\n@misc{k, note = {write to a@b.c}, title = {T}}\n"
    assert list(_refs(_read(text))) == ["k"]


def test_macros_are_shared_across_calls() -> None:
    macros: dict[str, str] = {}
    list(iter_bibtex(['@string{jmlr = "J. Mach. Learn. Res."}'], origin="strings.bib", macros=macros))
    refs = list(iter_bibtex(["@article{k, journal = jmlr}"], origin="refs.bib", macros=macros))
    assert isinstance(refs[0], CitedReference) and refs[0].venue == "J. Mach. Learn. Res."


# --- streaming ---------------------------------------------------------------------------------------


def _generated(count: int) -> Iterator[str]:
    yield "@string{jn = {Journal of Generated Tests}}\n"
    batch: list[str] = []
    for index in range(count):
        batch.append(
            f"@article{{key{index},\n  author = {{Doe, Jane}},\n  title = {{Entry number {index}}},\n"
            f"  journal = jn,\n  year = 2020\n}}\n"
        )
        if len(batch) == 100:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _peak_while_consuming(count: int) -> tuple[int, int]:
    tracemalloc.start()
    try:
        seen = sum(
            1 for item in iter_bibtex(_generated(count), origin="gen.bib") if isinstance(item, CitedReference)
        )
        return seen, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_streaming_memory_does_not_grow_with_the_input() -> None:
    small_count, small_peak = _peak_while_consuming(2_000)
    large_count, large_peak = _peak_while_consuming(20_000)
    assert (small_count, large_count) == (2_000, 20_000)
    # What remains per entry is the duplicate-key table (12 bytes a slot, doubled while it grows):
    # well under 64 bytes an entry, where keeping the references would cost kilobytes each.
    assert large_peak - small_peak < 64 * (large_count - small_count)
    assert large_peak < 4 * 1024 * 1024


def test_the_stream_is_lazy() -> None:
    def endless() -> Iterator[str]:
        index = 0
        while True:
            yield f"@misc{{k{index}, title = {{T{index}}}}}\n"
            index += 1

    stream = iter_bibtex(endless(), origin="endless.bib")
    first = [next(stream) for _ in range(3)]
    assert [r.key for r in first if isinstance(r, CitedReference)] == ["k0", "k1", "k2"]


# --- robustness --------------------------------------------------------------------------------------

_SOUP = st.lists(
    st.sampled_from([*'@{}()",=#%\\\n \tabkey0123', "@article{", "@string{", "crossref", " = ", "title"]),
    max_size=80,
).map("".join)


@settings(max_examples=300, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
@given(_SOUP)
@example("@article{a, crossref={a}}")
@example("@article{a, crossref={b}}@article{b, crossref={a}}")
@example("@{}")
@example("@string{=}")
@example("@article{k, title = {\\}}")
@example("@article(k, title = {)}) @misc{j}")
def test_brace_soup_yields_problems_not_exceptions(text: str) -> None:
    for result in _read(text, chunk=5):
        assert isinstance(result, CitedReference | InputProblem)


@settings(max_examples=100, deadline=1000)
@given(st.lists(st.sampled_from(["good", "unclosed", "nocomma", "dup"]), max_size=12))
def test_good_entries_survive_any_mix_of_bad_ones(kinds: list[str]) -> None:
    parts = []
    for index, kind in enumerate(kinds):
        if kind == "good":
            parts.append(f"@article{{good{index}, title = {{Good {index}}}}}\n")
        elif kind == "unclosed":
            parts.append(f"@article{{bad{index}, title = {{Never closed\n")
        elif kind == "nocomma":
            parts.append(f"@article{{bad{index} title = {{X}}}}\n")
        else:
            parts.append("@article{dup, title = {D}}\n")
    refs = [r for r in _read("".join(parts), chunk=11) if isinstance(r, CitedReference)]
    good = sorted(r.key for r in refs if r.key.startswith("good"))
    assert good == sorted(f"good{i}" for i, kind in enumerate(kinds) if kind == "good")
    assert sum(1 for r in refs if r.key == "dup") == kinds.count("dup")


# --- issue 30: a big legitimate field is read; an unclosed brace is still said clearly -----------


def _chunks(text: str, size: int = 64 * 1024) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_a_field_of_a_few_megabytes_is_read() -> None:
    abstract = ("Lichens grow about half a millimetre per year on granite. " * 30_000)[:1_700_000]
    text = (
        "@article{big, title={Lichen Growth Rates on Granite}, author={Nowicka, Ewa}, year={2018},\n"
        f"  abstract={{{abstract}}}}}\n"
        "@article{next, title={The Entry After}, author={Ortega, Sam}, year={2019}}\n"
    )
    results = list(iter_bibtex(_chunks(text), origin="big.bib"))
    assert [type(r).__name__ for r in results] == ["CitedReference", "CitedReference"], results[:1]
    big = results[0]
    assert isinstance(big, CitedReference) and len(big.fields["abstract"]) == 1_700_000


def test_an_unclosed_brace_is_still_refused_clearly_however_long() -> None:
    filler = "x" * 1_500_000
    before_next = (
        f"@article{{broken, title={{Never closed, author={{Doe, Jane}}, note={{{filler}}}\n"
        "@article{ok, title={Closed}, author={Roe, Rick}, year={2020}}\n"
    )
    problem, ok = list(iter_bibtex(_chunks(before_next), origin="b.bib"))
    assert isinstance(problem, InputProblem) and isinstance(ok, CitedReference)
    assert "no closing '}' before the next entry at line 2" in problem.message
    at_the_end = f"@article{{broken, title={{Never closed, note={{{filler}}}\n"
    (problem,) = list(iter_bibtex(_chunks(at_the_end), origin="b.bib"))
    assert isinstance(problem, InputProblem)
    assert "the input ended before its closing '}'" in problem.message
