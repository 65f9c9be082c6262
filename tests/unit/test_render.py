"""BibTeX and citation-snippet rendering of work records (CSL-JSON: test_bibliography_artifact.py)."""

from __future__ import annotations

import re

import pytest
from bibtexparser.entrypoint import parse_string
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.render import (
    bibtex_escape,
    bibtex_key,
    citation_snippet,
    full_title,
    render_bibtex,
)
from aletheia.core.text import normalize_whitespace

SOK = WorkRecord(
    source=SourceName.ARXIV,
    title="SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning",
    authors=tuple(
        Author(given=g, family=f)
        for g, f in [
            ("Heyi", "Zhang"),
            ("Yule", "Liu"),
            ("Xinlei", "He"),
            ("Jun", "Wu"),
            ("Tianshuo", "Cong"),
            ("Xinyi", "Huang"),
        ]
    ),
    year=2025,
    arxiv_id="2502.03801",
    is_preprint=True,
    work_type="preprint",
)

RFA = WorkRecord(
    source=SourceName.CROSSREF,
    title="Robust Aggregation for Federated Learning",
    authors=(
        Author(given="Krishna", family="Pillutla"),
        Author(given="Sham M.", family="Kakade"),
        Author(given="Zaid", family="Harchaoui"),
    ),
    year=2022,
    venue="IEEE Transactions on Signal Processing",
    work_type="journal-article",
    doi="10.1109/tsp.2022.3153135",
)


def _decoder() -> LatexNodes2Text:
    # pylatexenc as it ships, taught three standard LaTeX text macros it lacks (or maps to a
    # look-alike: it renders \textasciicircum as U+02C6).
    context = get_default_latex_context_db()
    context.add_context_category(
        "standard-text-macros",
        macros=[
            MacroTextSpec("textbraceleft", "{"),
            MacroTextSpec("textbraceright", "}"),
            MacroTextSpec("textasciicircum", "^"),
        ],
        prepend=True,
    )
    return LatexNodes2Text(latex_context=context, math_mode="verbatim")


DECODER = _decoder()


def parse_single_entry(bibtex: str) -> dict[str, str]:
    """The entry's fields; bibtexparser's default middleware removes the enclosing braces."""
    library = parse_string(bibtex)
    assert library.failed_blocks == []
    assert len(library.entries) == 1
    entry = library.entries[0]
    return {"ENTRYTYPE": entry.entry_type, "ID": entry.key, **{f.key: f.value for f in entry.fields}}


def decoded(value: str) -> str:
    return normalize_whitespace(DECODER.latex_to_text(value))


# --- BibTeX -------------------------------------------------------------------------------------------


def test_seed_bibtex_entry() -> None:
    assert render_bibtex(SOK) == (
        "@article{zhang2025sok,\n"
        "  title={SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning},\n"
        "  author={Zhang, Heyi and Liu, Yule and He, Xinlei and Wu, Jun"
        " and Cong, Tianshuo and Huang, Xinyi},\n"
        "  journal={arXiv preprint arXiv:2502.03801},\n"
        "  year={2025},\n"
        "  eprint={2502.03801},\n"
        "  archivePrefix={arXiv},\n"
        "  url={https://arxiv.org/abs/2502.03801}\n"
        "}"
    )
    fields = parse_single_entry(render_bibtex(SOK))
    assert fields["ID"] == "zhang2025sok"
    assert fields["ENTRYTYPE"] == "article"


def test_published_work_bibtex() -> None:
    fields = parse_single_entry(render_bibtex(RFA))
    assert fields["ID"] == "pillutla2022robust"
    assert fields["ENTRYTYPE"] == "article"
    assert fields["journal"] == "IEEE Transactions on Signal Processing"
    assert fields["doi"] == "10.1109/tsp.2022.3153135"
    assert fields["url"] == "https://doi.org/10.1109/tsp.2022.3153135"
    assert fields["author"] == "Pillutla, Krishna and Kakade, Sham M. and Harchaoui, Zaid"
    assert "eprint" not in fields


@pytest.mark.parametrize(
    ("work_type", "entry_type", "venue_field"),
    [
        ("proceedings-article", "inproceedings", "booktitle"),
        ("book-chapter", "incollection", "booktitle"),
        ("book", "book", "publisher"),
        ("report", "techreport", "institution"),
        ("thesis", "phdthesis", "school"),
        ("dataset", "misc", "howpublished"),
    ],
)
def test_entry_type_and_venue_field_follow_the_work_type(
    work_type: str, entry_type: str, venue_field: str
) -> None:
    record = RFA.model_copy(update={"work_type": work_type})
    fields = parse_single_entry(render_bibtex(record))
    assert fields["ENTRYTYPE"] == entry_type
    assert fields[venue_field] == "IEEE Transactions on Signal Processing"


def test_published_arxiv_work_keeps_its_venue_and_eprint() -> None:
    published = SOK.model_copy(
        update={"venue": "IEEE S&P", "work_type": "proceedings-article", "is_preprint": False}
    )
    fields = parse_single_entry(render_bibtex(published))
    assert fields["ENTRYTYPE"] == "inproceedings"
    assert fields["booktitle"] == r"IEEE S\&P"
    assert (fields["eprint"], fields["archivePrefix"]) == ("2502.03801", "arXiv")
    assert "journal" not in fields
    assert citation_snippet(published).endswith("*. IEEE S&P (2025). arXiv:2502.03801.")


def test_explicit_key_and_entry_type() -> None:
    fields = parse_single_entry(render_bibtex(RFA, key="Pillutla:2022", entry_type="misc"))
    assert (fields["ID"], fields["ENTRYTYPE"]) == ("Pillutla:2022", "misc")
    assert "howpublished" in fields
    for bad_key in ("a b", "a,b", "a{b", "", "x}"):
        with pytest.raises(ValueError, match="key"):
            render_bibtex(RFA, key=bad_key)
    with pytest.raises(ValueError, match="entry type"):
        render_bibtex(RFA, entry_type="article{x")


def test_names_organisations_suffixes_and_truncation() -> None:
    record = RFA.model_copy(
        update={
            "authors": (
                Author(given="John", family="Smith", suffix="Jr."),
                Author(literal="The ATLAS Collaboration"),
                Author(given="Ludwig", family="van Beethoven"),
                Author(given="Plato"),
                Author(given="A.", family="Barnes and Noble"),
                Author(),
            ),
            "authors_truncated": True,
        }
    )
    fields = parse_single_entry(render_bibtex(record))
    assert fields["author"] == (
        "Smith, Jr., John and {The ATLAS Collaboration} and van Beethoven, Ludwig and {Plato}"
        " and {Barnes and Noble}, A. and others"
    )


@pytest.mark.parametrize(
    ("title", "escaped"),
    [
        ("R&D at 100% for $5 #1 snake_case", r"R\&D at 100\% for \$5 \#1 snake\_case"),
        ("a {balanced} pair", r"a \{balanced\} pair"),
        ("a } lone { pair", r"a \textbraceright{} lone \textbraceleft{} pair"),
        ("back\\slash ~ and ^", r"back\textbackslash{}slash \textasciitilde{} and \textasciicircum{}"),
        ("en--dash ``quoted'' ?`", r"en-{}-dash `{}`quoted'{}' ?{}`"),
        ("line\nbreak\t and\x00 control", "line break and control"),
    ],
)
def test_bibtex_escape(title: str, escaped: str) -> None:
    assert bibtex_escape(title) == escaped
    fields = parse_single_entry(render_bibtex(RFA.model_copy(update={"title": title})))
    assert decoded(fields["title"]) == normalize_whitespace(title.replace("\x00", ""))


def test_bibtex_key() -> None:
    assert bibtex_key(SOK) == "zhang2025sok"
    no_year = SOK.model_copy(update={"year": None})
    assert bibtex_key(no_year) == "zhangsok"
    hegedus = RFA.model_copy(update={"authors": (Author(given="Gergely", family="Hegedűs"),)})
    assert bibtex_key(hegedus) == "hegedus2022robust"
    cjk = RFA.model_copy(update={"authors": (Author(family="张", given="伟"),), "title": "深度学习"})
    assert re.fullmatch(r"u[0-9a-f]{6}2022u[0-9a-f]{6}", bibtex_key(cjk))
    assert bibtex_key(WorkRecord(source=SourceName.CROSSREF)) == "anonuntitled"


def test_subtitle_is_part_of_the_title() -> None:
    record = RFA.model_copy(update={"title": "Attention", "subtitle": "All You Need"})
    assert full_title(record) == "Attention: All You Need"
    already = RFA.model_copy(update={"title": "Attention: All You Need", "subtitle": "All you need"})
    assert full_title(already) == "Attention: All You Need"


# --- the citation snippet --------------------------------------------------------------------------------


def test_seed_citation_snippet() -> None:
    assert citation_snippet(SOK) == (
        "Heyi Zhang, Yule Liu, Xinlei He, Jun Wu, Tianshuo Cong, Xinyi Huang. "
        "*SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning*. arXiv:2502.03801 (2025)."
    )


def test_published_citation_snippet() -> None:
    assert citation_snippet(RFA) == (
        "Krishna Pillutla, Sham M. Kakade, Zaid Harchaoui. *Robust Aggregation for Federated Learning*. "
        "IEEE Transactions on Signal Processing (2022). doi:10.1109/tsp.2022.3153135."
    )
    truncated = RFA.model_copy(
        update={"authors_truncated": True, "title": "A *starred* title.", "year": None}
    )
    assert citation_snippet(truncated) == (
        "Krishna Pillutla, Sham M. Kakade, Zaid Harchaoui, et al. *A \\*starred\\* title*. "
        "IEEE Transactions on Signal Processing. doi:10.1109/tsp.2022.3153135."
    )


# --- properties ---------------------------------------------------------------------------------------------

TRICKY = list("{}\\$&%#_^~-`'?!,<>@=\"\n\t é中")
text = st.text(st.sampled_from(TRICKY) | st.characters(codec="utf-8"), max_size=60)
authors = st.builds(
    Author,
    given=st.none() | text,
    family=st.none() | text,
    literal=st.none() | text,
    suffix=st.none() | text,
)
records = st.builds(
    WorkRecord,
    source=st.sampled_from(list(SourceName)),
    title=text.filter(lambda s: bool(normalize_whitespace(s))),
    subtitle=st.none() | text,
    authors=st.lists(authors, max_size=4).map(tuple),
    authors_truncated=st.booleans(),
    year=st.none() | st.integers(1000, 2999),
    venue=st.none() | text,
    work_type=st.sampled_from(
        [None, "journal-article", "proceedings-article", "preprint", "book", "thesis", "other"]
    ),
    doi=st.sampled_from(
        [None, "10.1109/tsp.2022.3153135", "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0"]
    ),
    arxiv_id=st.sampled_from([None, "2502.03801", "hep-th/9901001"]),
    pmid=st.sampled_from([None, "31452104"]),
    is_preprint=st.booleans(),
    abstract=st.none() | text,
)


@settings(max_examples=200, deadline=None)
@given(records)
@example(WorkRecord(source=SourceName.CROSSREF, title="}{ \\}{ %{", authors=(Author(family="and"),)))
@example(WorkRecord(source=SourceName.CROSSREF, title="---``''?`!`,,<<>>", venue="@{x}"))
def test_bibtex_always_parses_back_with_the_same_title(record: WorkRecord) -> None:
    bibtex = render_bibtex(record)
    fields = parse_single_entry(bibtex)
    title = full_title(record)
    if title:
        assert decoded(fields["title"]) == title
    else:  # nothing printable in it
        assert "title" not in fields
    # Every value is brace-balanced the way BibTeX counts (no escapes): it can be read by BibTeX too.
    for key, value in fields.items():
        if key not in ("ENTRYTYPE", "ID"):
            depth = 0
            for char in value:
                depth += {"{": 1, "}": -1}.get(char, 0)
                assert depth >= 0, (key, value)
            assert depth == 0, (key, value)


@settings(max_examples=200, deadline=None)
@given(records)
def test_citation_snippet_is_one_line(record: WorkRecord) -> None:
    snippet = citation_snippet(record)
    assert "\n" not in snippet and "\r" not in snippet
    if full_title(record):
        assert re.search(r"\*.+\*\.", snippet)
