"""Issue 20: whole documents given as input (a paper as .txt, .html, JATS or TEI XML; a blog page).

Only the references section of a paper is read: raw HTML, markup and paragraphs never become
"references". An input with no references (a page without a reference list, an empty file, blank
lines, an empty folder) is an input error: "no references found in FILE" (exit 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.core.bibliography import InputError, InputFormat, detect_format
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.inputs import iter_references

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
MB = 10 * 1024 * 1024
EXPECTED_TITLES = [
    "Retracted: Evil Genius? How Dishonesty Can Lead to Greater Creativity",
    "Equivalence testing for psychological research",
]


def _refs(path: Path) -> list[CitedReference]:
    results = list(iter_references([path], max_bytes=MB))
    assert all(isinstance(r, CitedReference) for r in results), results
    return [r for r in results if isinstance(r, CitedReference)]


@pytest.mark.parametrize("name", ["paper.txt", "paper.html"])
def test_a_paper_gives_only_its_reference_list(name: str) -> None:
    refs = _refs(DOCS / name)
    assert [r.title for r in refs] == [*EXPECTED_TITLES, "Attention is all you need"]
    assert [r.authors[0].family for r in refs] == ["Gino", "Lakens", "Vaswani"]
    assert refs[0].doi == "10.1177/0956797614520714"
    assert refs[1].doi == "10.1177/2515245918770963"  # from the link's target in the HTML
    assert not any("<" in (r.raw or "") for r in refs)


@pytest.mark.parametrize("name", ["paper_jats.xml", "paper_tei.xml"])
def test_xml_reference_lists(name: str) -> None:
    refs = _refs(DOCS / name)
    assert [r.title for r in refs] == EXPECTED_TITLES
    assert [r.authors[0].family for r in refs] == ["Gino", "Lakens"]
    assert [r.year for r in refs] == [2014, 2018]
    assert refs[0].doi == "10.1177/0956797614520714"


def test_html_and_xml_are_detected() -> None:
    assert detect_format((DOCS / "paper.html").read_text(), "paper.html") is InputFormat.HTML
    assert detect_format((DOCS / "blog.html").read_text(), None) is InputFormat.HTML
    assert detect_format((DOCS / "paper_jats.xml").read_text(), "a.xml") is InputFormat.XML
    assert detect_format((DOCS / "paper_tei.xml").read_text(), None) is InputFormat.XML


@pytest.mark.parametrize("name", ["blog.html", "prose.txt"])
def test_a_document_without_references_says_so(name: str) -> None:
    with pytest.raises(InputError, match=rf"^no references found in .*{name}"):
        list(iter_references([DOCS / name], max_bytes=MB))


def test_empty_inputs_say_so(tmp_path: Path) -> None:
    empty, blank, folder = tmp_path / "empty.txt", tmp_path / "blank.bib", tmp_path / "folder"
    empty.write_text("")
    blank.write_text("  \n\n\t\n")
    folder.mkdir()
    for path in (empty, blank, folder):
        with pytest.raises(InputError, match=rf"^no references found in {path}$"):
            list(iter_references([path], max_bytes=MB))


def test_a_folder_with_one_bibliography_is_read(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Nothing to cite here; just notes about the weather.\n")
    (tmp_path / "refs.bib").write_text("@article{k, title={A Title}, author={Doe, Jane}, year={2020}}\n")
    refs = _refs(tmp_path)
    assert [r.key for r in refs] == ["k"]
