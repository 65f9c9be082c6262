"""Compiled bibliographies: BibTeX's \\bibitem lists, biblatex's \\entry records, LaTeX documents."""

from __future__ import annotations

from pathlib import Path

from aletheia.core.bibliography import InputProblem
from aletheia.core.bibliography.bbl import iter_bbl, latex_reference_text
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


def _refs(name: str) -> list[CitedReference | InputProblem]:
    return list(iter_bbl((FIXTURES / name).read_text(encoding="utf-8"), origin=name))


def test_natbib_bibitems() -> None:
    results = _refs("natbib.bbl")
    refs = [r for r in results if isinstance(r, CitedReference)]
    assert [r.key for r in refs] == ["okafor2019", "muller2021a", "plainkey"]
    okafor, muller, tanaka = refs
    assert okafor.title == "Sparse attention for long documents"
    assert [a.family for a in okafor.authors] == ["Okafor", "Lindqvist"]
    assert okafor.year == 2019
    assert okafor.doi == "10.5555/efficient.2019.12"
    assert okafor.origin == "natbib.bbl:8"
    assert okafor.raw is not None and "\\newblock" not in okafor.raw
    assert [a.family for a in muller.authors] == ["Müller", "Sato", "Brandt"]
    assert (muller.arxiv_id, muller.url) == ("2103.04567", "https://arxiv.org/abs/2103.04567")
    assert muller.year == 2021
    assert tanaka.title == "Heuristics for Graph Colouring"
    assert tanaka.venue == "Academic Press"
    assert "title" in tanaka.heuristic_fields


def test_biblatex_records_are_read_field_by_field() -> None:
    refs = [r for r in _refs("biblatex.bbl") if isinstance(r, CitedReference)]
    assert [r.key for r in refs] == ["novak2020", "ito2018"]
    novak, ito = refs
    assert novak.entry_type == "article"
    assert novak.title == "Tidal Forcing of Coastal Aquifers"
    assert [(a.given, a.family) for a in novak.authors] == [("Petra", "Novák"), ("Lars", "van den Berg")]
    assert (novak.year, novak.venue, novak.doi) == (
        2020,
        "Journal of Hydrology Letters",
        "10.5555/jhl.2020.0042",
    )
    assert novak.heuristic_fields == ()
    assert ito.arxiv_id == "1805.01234"


def test_thebibliography_in_a_latex_document() -> None:
    refs = [r for r in _refs("thesis.tex") if isinstance(r, CitedReference)]
    assert [r.key for r in refs] == ["novak", "ito"]
    assert refs[0].title == "Tidal forcing of coastal aquifers"
    assert [a.family for a in refs[0].authors] == ["Novák", "van den Berg"]
    assert refs[0].venue == "Journal of Hydrology Letters"
    assert refs[1].arxiv_id == "1805.01234"
    assert refs[0].origin == "thesis.tex:7"


def test_a_document_citing_a_bib_file_names_it() -> None:
    text = "\\documentclass{article}\\begin{document}\\bibliography{refs,strings}\\end{document}"
    (problem,) = list(iter_bbl(text, origin="paper.tex"))
    assert isinstance(problem, InputProblem)
    assert "refs.bib, strings.bib" in problem.message
    (nothing,) = list(iter_bbl("\\documentclass{article}", origin="empty.tex"))
    assert isinstance(nothing, InputProblem) and "no bibliography" in nothing.message


def test_acm_style_tagged_fields_are_exact() -> None:
    text = (
        "\\begin{thebibliography}{1}\n\\bibitem[Ito(2018)]{ito}\n"
        "\\bibfield{author}{\\bibinfo{person}{Kenji Ito}.} \\bibinfo{year}{2018}\\natexlab{}.\n"
        "\\newblock \\bibinfo{title}{Learning to {R}ank Citations}.\n"
        "\\newblock \\bibinfo{journal}{\\emph{Ranking Letters}} \\bibinfo{volume}{3}"
        " (\\bibinfo{year}{2018}).\n"
        "\\end{thebibliography}\n"
    )
    (ref,) = list(iter_bbl(text, origin="acm.bbl"))
    assert isinstance(ref, CitedReference)
    assert ref.title == "Learning to Rank Citations"
    assert ref.year == 2018
    assert ref.venue == "Ranking Letters"
    assert "title" not in ref.heuristic_fields and "year" not in ref.heuristic_fields


def test_malformed_bibitems_are_problems() -> None:
    text = (
        "\\begin{thebibliography}{9}\n\\bibitem[x]\n\\bibitem{empty}\n"
        "\\bibitem{ok} A. Author. A title. 2001.\n"
    )
    results = list(iter_bbl(text, origin="bad.bbl"))
    assert [type(r).__name__ for r in results] == ["InputProblem", "InputProblem", "CitedReference"]


def test_latex_reference_text_keeps_urls_readable() -> None:
    text = latex_reference_text("A.~B. \\emph{T}. \\newblock \\url{https://x.org/a_b%20c~d}")
    assert text == "A. B. T. https://x.org/a_b%20c~d"
