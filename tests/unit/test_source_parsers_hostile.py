"""Hostile answers for every parser of the issue-12 sources: garbage, near-misses of the documented
shapes, and pathological inputs give a typed `SourceParseError` or a typed (possibly empty) result,
never another exception and never a hang.

Hypothesis builds JSON from the sources' own keys placed in their envelopes (so inputs get past the
first check), well-formed XML from the sources' own element names, HTML and BibTeX from their
pieces, and arbitrary text. The targets and the failure rule are shared with the atheris harness
(tests/fuzz/source_targets.py, run by tests/fuzz/fuzz_parsers.py). Each `@example` is an input
that once crashed a parser here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.fuzz.source_targets import JSON_TARGETS, TEXT_TARGETS, check

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = [
    # DBLP
    "result", "hits", "hit", "@total", "info", "title", "authors", "author", "text", "@pid", "venue",
    "year", "type", "key", "doi", "ee", "url",
    # Open Library, Google Books
    "docs", "numFound", "subtitle", "author_name", "first_publish_year", "publisher", "publishers",
    "publish_date", "isbn", "isbn_10", "isbn_13", "edition_name", "items", "totalItems", "id",
    "volumeInfo", "searchInfo", "textSnippet", "industryIdentifiers", "identifier", "publishedDate",
    "printType", "infoLink", "canonicalVolumeLink",
    # Europe PMC
    "hitCount", "resultList", "source", "pmid", "pmcid", "pubYear", "journalTitle", "isOpenAccess",
    "inEPMC",
    # Tavily, Brave
    "results", "web", "content", "score", "description",
]  # fmt: skip
VALUES = [
    "2016", "2016-11-18", "Nov 18, 2016", "9780262035613", "0-262-03561-8", "ISBN_13", "ISBN_10", "BOOK",
    "10.18653/v1/2023.acl-long.123", "https://doi.org/10.1/x", "conf/acl/X23", "Y", "N", "MED", "PMC123",
    "<b>machines</b> that &quot;think&quot;", "https://example.org", "", " ", "null", "0", "-1", "1e309",
]  # fmt: skip
ENVELOPES: list[tuple[str, ...]] = [
    (), ("result", "hits", "hit"), ("result", "hits"), ("items",), ("docs",), ("resultList", "result"),
    ("results",), ("web", "results"),
]  # fmt: skip

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(VALUES)
)
json_values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=5)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), kids, max_size=6)
    ),
    max_leaves=30,
)


def _wrap(path: tuple[str, ...], leaf: Any) -> Any:
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


payloads = st.builds(_wrap, st.sampled_from(ENVELOPES), json_values)

XML_TAGS = [
    "dblp", "article", "inproceedings", "title", "author", "editor", "booktitle", "journal", "year", "ee",
    "url", "GetPassage", "reply", "urn", "passage", "TEI", "text", "body", "div", "p", "l", "CTSError",
    "code", "front", "article-meta", "article-id", "title-group", "article-title", "abstract", "sec",
    "mml:math", "tex-math", "back", "ref-list", "xref", "sup", "italic",
]  # fmt: skip
XML_ATTRS = [
    "", ' key="conf/acl/X23"', ' pub-id-type="pmid"', ' pub-id-type="doi"', ' pub-id-type="pmcid"',
    ' abstract-type="graphical"', ' xmlns="http://chs.harvard.edu/xmlns/cts"', ' n="1"',
]  # fmt: skip
xml_text = st.text(st.characters(blacklist_characters="<>&", blacklist_categories=("Cs", "Cc")), max_size=30)


def _element(tag: str, attrs: str, text: str, children: list[str]) -> str:
    return f"<{tag}{attrs}>{text}{''.join(children)}</{tag}>"


xml_documents = st.recursive(
    xml_text,
    lambda kids: st.builds(
        _element, st.sampled_from(XML_TAGS), st.sampled_from(XML_ATTRS), xml_text, st.lists(kids, max_size=4)
    ),
    max_leaves=25,
).map(lambda body: body if body.startswith("<") else f"<dblp>{body}</dblp>")

MARKUP_PIECES = [
    "<", ">", "</", "/>", "<!DOCTYPE html>", "<!DOCTYPE x [", "<!ENTITY a 'b'>", "<![CDATA[", "]]>", "<!--",
    "-->", "<html>", "<head>", "<title>", "</title>", '<meta property="og:title" content="', '">',
    "<h1>", "</h1>", "<body>", "</body>", "<script>", "</script>", "<style>", "<nav>", "</nav>", "&amp;",
    "&#x27;", "&#0;", "&#xD800;", "&nosuch;", "<b>", "</b>", "<br>", "text", " | ", " - ", "\n", " ", "é",
    "𝔘", "\u202e", "CTSError", "<GetPassage>", "<passage>", "<dblp>", '<article key="a/b">',
]  # fmt: skip
BIBTEX_PIECES = [
    "@inproceedings{", "@article(", "@string{", "@comment{", "}", ")", "{", '"', " = ", ",", " # ", "\\",
    "%", "\n", "title", "author", " and ", "url", "https://aclanthology.org/2023.acl-long.123/",
    "doi = {10.18653/v1/2023.acl-long.123}", "year = 2023", "booktitle = {ACL}", "{\\'e}", "@", "k",
]  # fmt: skip


def _pieces(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces) | st.text(max_size=8), max_size=40).map("".join)


texts = st.text(max_size=300) | _pieces(MARKUP_PIECES) | _pieces(BIBTEX_PIECES) | xml_documents


@pytest.mark.parametrize("name", sorted(JSON_TARGETS))
@FUZZ
@given(payload=payloads | json_values)
@example(payload={"result": {"hits": {"hit": {"info": {"title": None, "authors": {"author": 3}}}}}})
@example(
    payload={"items": [{"volumeInfo": {"title": "T"}, "searchInfo": {"textSnippet": 7}}], "totalItems": 1}
)
@example(payload={"resultList": {"result": [None]}})
@example(payload={"web": {"results": [{"title": ["x"], "url": {"a": 1}}]}})
def test_json_parsers_give_a_typed_result_or_a_typed_error(name: str, payload: Any) -> None:
    check(JSON_TARGETS[name], payload)


@pytest.mark.parametrize("name", sorted(TEXT_TARGETS))
@FUZZ
@given(text=texts)
@example(text="idna\n<html><title>A page</title></html>")  # a codec that refuses errors="replace"
@example(text="undefined\n<title>x</title>")
@example(text="punycode\n\u00ff<title>x</title>")
@example(text='<dblp><article key="a/b"><title></title></article></dblp>')
@example(text="<GetPassage><passage></passage></GetPassage>")
def test_text_parsers_give_a_typed_result_or_a_typed_error(name: str, text: str) -> None:
    check(TEXT_TARGETS[name], text)


# Inputs shaped to make a regex or a recursive walk quadratic, exponential or deep. Bounded by the
# timeout (a hang fails the test); no timing is asserted.
PATHOLOGICAL = {
    "unclosed script tags": "<body>" + "<script" * 20_000,
    "unclosed titles": "<title>" * 20_000,
    "open tags": "<" * 100_000,
    "deep XML": "<dblp>" + "<sec><p>" * 3_000 + "x" + "</p></sec>" * 3_000 + "</dblp>",
    "deep JATS": (
        "<article><front><article-meta><title-group><article-title>T</article-title></title-group>"
        "</article-meta></front><body>" + "<sec>" * 5_000 + "<p>deep</p>" + "</sec>" * 5_000
        + "</body></article>"
    ),
    "deep inline markup": (
        "<article><body><p>" + "<italic>" * 5_000 + "x" + "</italic>" * 5_000 + "</p></body></article>"
    ),
    "many entities": "<dblp>" + "&amp;" * 50_000 + "</dblp>",
    "long BibTeX": "@inproceedings{k, title = {" + "{" * 5_000 + "x" + "}" * 5_000 + "}}",
}  # fmt: skip


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", sorted(PATHOLOGICAL))
def test_pathological_answers_end_with_a_typed_result(case: str) -> None:
    for target in TEXT_TARGETS.values():
        check(target, PATHOLOGICAL[case])


@pytest.mark.timeout(60)
def test_deeply_nested_json_is_no_crash() -> None:
    deep: Any = "x"
    for _ in range(5_000):
        deep = [deep]
    for target in JSON_TARGETS.values():
        check(target, deep)
        check(target, {"result": {"hits": {"hit": deep}}, "items": deep, "docs": deep, "results": deep})
