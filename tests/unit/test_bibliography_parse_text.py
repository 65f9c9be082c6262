"""The dispatcher: every format through one call, and nothing but InputError ever escapes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aletheia.core.bibliography import InputError, InputFormat, InputProblem, parse_text
from aletheia.core.bibliography.problems import InputError as ProblemsInputError
from aletheia.core.records import CitedReference

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("refs.bib", 8),
        ("natbib.bbl", 3),
        ("biblatex.bbl", 2),
        ("thesis.tex", 2),
        ("paper.md", 7),
        ("ieee.txt", 3),
        ("apa_numbered.txt", 3),
        ("vancouver_paren.txt", 3),
        ("refs.json", 3),
    ],
)
def test_every_fixture_through_parse_text(name: str, count: int) -> None:
    results = list(parse_text((FIXTURES / name).read_text(encoding="utf-8"), origin=name))
    refs = [r for r in results if isinstance(r, CitedReference)]
    assert len(refs) == count
    assert all(r.origin and r.origin.startswith(name) for r in refs)


def test_an_explicit_format_overrides_detection() -> None:
    refs = list(parse_text("@article{k, title={T}}", origin="x", fmt=InputFormat.PLAIN))
    assert len(refs) == 1 and isinstance(refs[0], CitedReference) and refs[0].raw == "@article{k, title={T}}"


def test_whole_input_failures_name_the_file() -> None:
    with pytest.raises(InputError, match=r"^blob\.bin: binary data, not text \(NUL character at offset 3\)"):
        parse_text("abc\x00def", origin="blob.bin")
    with pytest.raises(InputError, match=r"^data\.json: not a bibliography format"):
        parse_text('{"name": "x"}', origin="data.json", fmt=InputFormat.UNKNOWN)
    with pytest.raises(InputError, match="bytes"):
        parse_text("%PDF-1.4", origin="paper.pdf")


def test_input_error_is_a_value_error_and_pickles() -> None:
    import pickle

    error = ProblemsInputError("refs.bib", "broken", offset=12)
    assert isinstance(error, ValueError)
    clone = pickle.loads(pickle.dumps(error))  # noqa: S301 (our own bytes, just made)
    assert str(clone) == str(error) == "refs.bib (byte 12): broken"
    assert clone.offset == 12


def test_input_problem_position() -> None:
    problem = InputProblem(origin="refs.bib", line=3, column=7, message="bad")
    assert str(problem) == "refs.bib:3:7: bad"
    assert InputProblem(origin="x.json", message="m").position == "x.json"


_MARKUP = st.sampled_from(
    [
        "@article{",
        "}",
        "{",
        "\\bibitem{",
        "\\begin{thebibliography}",
        "[^1]: ",
        "## References\n",
        "1. ",
        "[2] ",
        "(3) ",
        '"title": ',
        "[",
        "]",
        "(",
        ")",
        "\n",
        "\n\n",
        "    ",
        "*",
        "_",
        "`",
        "https://doi.org/10.1000/x",
        "arXiv:2101.00001",
        "Smith, J. (2020). ",
        "“",
        "”",
        "\\",
        "%",
        "\\entry{k}{article}{}",
        "\\endentry",
        "\\field{title}{",
        "&",
        ";",
        ",",
        ". ",
    ]
)
_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(_MARKUP, st.text(max_size=8)), max_size=60).map("".join),
)


@settings(max_examples=400, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXT, st.sampled_from([None, "x.bib", "x.md", "x.txt", "x.json", "x.tex", "x.bbl"]))
@example("[", None)
@example("{", "x.json")
@example("[" * 5000, "x.json")
@example("\\bibitem" * 200, None)
@example("{" * 3000 + "@article{k, title=" + "{" * 3000, None)
@example("**" * 2000, "x.md")
@example("## References\n" + "1. " * 500, None)
def test_parse_text_raises_nothing_but_input_error(text: str, name: str | None) -> None:
    try:
        for result in parse_text(text, origin=name or "fuzz"):
            assert isinstance(result, CitedReference | InputProblem)
    except InputError:
        pass
