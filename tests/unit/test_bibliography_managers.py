"""Issue 30: the reference managers' exports (RIS, EndNote XML, Zotero RDF) are first-class inputs,
read as the BibTeX entry of the same reference. Before: "no references found in refs.ris"."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.bibliography import InputError, InputFormat, InputProblem, detect_format, parse_text
from aletheia.core.bibliography.manager_fields import bibtex_name
from aletheia.core.bibtex_value import bibtex_escape
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.inputs import iter_references

MB = 1024 * 1024

# The same three references in every format: a conference paper with an arXiv URL, a journal
# article with a DOI and a special character in its title, a book with an ISBN.
BIB = r"""
@inproceedings{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2017},
  url = {https://arxiv.org/abs/1706.03762},
}
@article{he2016,
  title = {Deep Residual Learning: 50\% Fewer Errors},
  author = {He, Kaiming and Zhang, Xiangyu},
  journal = {Journal of Examples},
  year = {2016},
  doi = {10.1109/CVPR.2016.90},
}
@book{goodfellow2016,
  title = {Deep Learning},
  author = {Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron},
  publisher = {MIT Press},
  year = {2016},
  isbn = {9780262035613},
}
"""

# As Zotero writes RIS (no ID), with a wrapped title, a `Y1`-style date and a Windows line end.
RIS = (
    "TY  - CONF\r\n"
    "TI  - Attention Is All You Need\r\n"
    "AU  - Vaswani, Ashish\r\n"
    "AU  - Shazeer, Noam\r\n"
    "AU  - Parmar, Niki\r\n"
    "T2  - Advances in Neural Information Processing Systems\r\n"
    "PY  - 2017\r\n"
    "UR  - https://arxiv.org/abs/1706.03762\r\n"
    "ER  - \r\n"
    "\r\n"
    "TY  - JOUR\r\n"
    "TI  - Deep Residual Learning: 50% Fewer\r\n"
    "  Errors\r\n"
    "AU  - He, Kaiming\r\n"
    "AU  - Zhang, Xiangyu\r\n"
    "T2  - Journal of Examples\r\n"
    "DA  - 2016/06/27/\r\n"
    "DO  - 10.1109/CVPR.2016.90\r\n"
    "ER  - \r\n"
    "\r\n"
    "TY  - BOOK\r\n"
    "TI  - Deep Learning\r\n"
    "AU  - Goodfellow, Ian\r\n"
    "AU  - Bengio, Yoshua\r\n"
    "AU  - Courville, Aaron\r\n"
    "PB  - MIT Press\r\n"
    "PY  - 2016\r\n"
    "SN  - 978-0-262-03561-3\r\n"
    "ER  - \r\n"
)

ENDNOTE = """<?xml version="1.0" encoding="UTF-8"?>
<xml><records>
<record><rec-number>1</rec-number><ref-type name="Conference Paper">47</ref-type>
<contributors><authors>
<author><style face="normal" font="default" size="100%">Vaswani, Ashish</style></author>
<author>Shazeer, Noam</author><author>Parmar, Niki</author></authors></contributors>
<titles><title><style face="normal" font="default" size="100%">Attention Is </style>
<style face="italic">All You Need</style></title>
<secondary-title>Advances in Neural Information Processing Systems</secondary-title></titles>
<dates><year>2017</year></dates>
<urls><related-urls><url>https://arxiv.org/abs/1706.03762</url></related-urls></urls>
</record>
<record><rec-number>2</rec-number><ref-type name="Journal Article">17</ref-type>
<contributors><authors><author>He, Kaiming</author><author>Zhang, Xiangyu</author></authors></contributors>
<titles><title>Deep Residual Learning: 50% Fewer Errors</title>
<secondary-title>Journal of Examples</secondary-title></titles>
<periodical><full-title>Journal of Examples</full-title></periodical>
<dates><year>2016</year></dates><electronic-resource-num>10.1109/CVPR.2016.90</electronic-resource-num>
</record>
<record><rec-number>3</rec-number><ref-type name="Book">6</ref-type>
<contributors><authors><author>Goodfellow, Ian</author><author>Bengio, Yoshua</author>
<author>Courville, Aaron</author></authors></contributors>
<titles><title>Deep Learning</title></titles><dates><year>2016</year></dates>
<publisher>MIT Press</publisher><isbn>9780262035613</isbn>
</record>
</records></xml>
"""

ZOTERO_RDF = """<rdf:RDF
 xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
 xmlns:z="http://www.zotero.org/namespaces/export#"
 xmlns:dcterms="http://purl.org/dc/terms/"
 xmlns:bib="http://purl.org/net/biblio#"
 xmlns:foaf="http://xmlns.com/foaf/0.1/"
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:prism="http://prismstandard.org/namespaces/1.2/basic/">
    <rdf:Description rdf:about="#item_1">
        <z:itemType>conferencePaper</z:itemType>
        <dcterms:isPartOf><bib:Proceedings>
            <dc:title>Advances in Neural Information Processing Systems</dc:title>
        </bib:Proceedings></dcterms:isPartOf>
        <bib:authors><rdf:Seq>
            <rdf:li><foaf:Person><foaf:surname>Vaswani</foaf:surname><foaf:givenName>Ashish</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Shazeer</foaf:surname><foaf:givenName>Noam</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Parmar</foaf:surname><foaf:givenName>Niki</foaf:givenName></foaf:Person></rdf:li>
        </rdf:Seq></bib:authors>
        <dc:identifier><dcterms:URI><rdf:value>https://arxiv.org/abs/1706.03762</rdf:value></dcterms:URI></dc:identifier>
        <dc:title>Attention Is All You Need</dc:title>
        <dc:date>2017</dc:date>
    </rdf:Description>
    <bib:Article rdf:about="https://doi.org/10.1109/CVPR.2016.90">
        <z:itemType>journalArticle</z:itemType>
        <dcterms:isPartOf rdf:resource="urn:issn:1234-5678"/>
        <bib:authors><rdf:Seq>
            <rdf:li><foaf:Person><foaf:surname>He</foaf:surname><foaf:givenName>Kaiming</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Zhang</foaf:surname><foaf:givenName>Xiangyu</foaf:givenName></foaf:Person></rdf:li>
        </rdf:Seq></bib:authors>
        <dc:title>Deep Residual Learning: 50% Fewer Errors</dc:title>
        <dc:date>2016-06-27</dc:date>
        <dc:identifier>DOI 10.1109/CVPR.2016.90</dc:identifier>
        <z:attachments rdf:resource="#item_9"/>
    </bib:Article>
    <bib:Journal rdf:about="urn:issn:1234-5678">
        <dc:title>Journal of Examples</dc:title>
        <dc:identifier>ISSN 1234-5678</dc:identifier>
    </bib:Journal>
    <bib:Book rdf:about="urn:isbn:9780262035613">
        <z:itemType>book</z:itemType>
        <dc:publisher><foaf:Organization><foaf:name>MIT Press</foaf:name></foaf:Organization></dc:publisher>
        <bib:authors><rdf:Seq>
            <rdf:li><foaf:Person><foaf:surname>Goodfellow</foaf:surname><foaf:givenName>Ian</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Bengio</foaf:surname><foaf:givenName>Yoshua</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Courville</foaf:surname><foaf:givenName>Aaron</foaf:givenName></foaf:Person></rdf:li>
        </rdf:Seq></bib:authors>
        <dc:identifier>ISBN 978-0-262-03561-3</dc:identifier>
        <dc:title>Deep Learning</dc:title>
        <dc:date>2016</dc:date>
    </bib:Book>
    <z:Attachment rdf:about="#item_9">
        <z:itemType>attachment</z:itemType>
        <dc:title>Full Text PDF</dc:title>
    </z:Attachment>
</rdf:RDF>
"""


def _essentials(ref: CitedReference) -> tuple[object, ...]:
    return (
        ref.entry_type,
        ref.title,
        tuple(a.display for a in ref.authors),
        ref.year,
        ref.venue,
        ref.doi,
        ref.arxiv_id,
        ref.isbn,
        ref.url,
    )


def _refs(items: list[CitedReference | InputProblem]) -> list[CitedReference]:
    return [item for item in items if isinstance(item, CitedReference)]


@pytest.mark.parametrize(
    ("text", "name", "fmt"),
    [
        (RIS, "export.ris", InputFormat.RIS),
        (ENDNOTE, "export.xml", InputFormat.ENDNOTE_XML),
        (ZOTERO_RDF, "export.rdf", InputFormat.ZOTERO_RDF),
    ],
)
def test_each_export_reads_as_the_bib_of_the_same_references(text: str, name: str, fmt: InputFormat) -> None:
    bib = _refs(list(parse_text(BIB, origin="refs.bib")))
    assert detect_format(text, name) is fmt
    assert detect_format(text, None) is fmt  # the content alone tells
    read = _refs(list(parse_text(text, origin=name)))
    assert [_essentials(r) for r in read] == [_essentials(r) for r in bib]
    assert read[0].arxiv_id == "1706.03762" and read[1].title == "Deep Residual Learning: 50% Fewer Errors"


def test_a_ris_file_is_read_where_it_was_not_found_before(tmp_path: Path) -> None:
    """Before: `aletheia verify refs.ris` said "no references found in refs.ris"."""
    path = tmp_path / "refs.ris"
    path.write_bytes(RIS.encode("utf-8"))
    refs = _refs(list(iter_references([path], max_bytes=MB)))
    assert [r.key for r in refs] == ["1", "2", "3"]
    assert [r.origin for r in refs] == [f"{path}:1", f"{path}:11", f"{path}:21"]
    # A folder of exports picks them up too.
    (tmp_path / "more.rdf").write_text(ZOTERO_RDF, encoding="utf-8")
    assert len(_refs(list(iter_references([tmp_path], max_bytes=MB)))) == 6


def test_ris_as_exporters_vary_it() -> None:
    """Mendeley's ID as the key, one space before the dash, a record without ER, stray text."""
    text = (
        "Exported from a database on 2026-01-01\n"
        "TY - JOUR\nID - smith2020\nAU - Smith, Ann\nTI - A Title\nJO - A Journal\nPY - 2020\nER -\n"
        "TY  - RPRT\nAU  - World Health Organization\nTI  - A Report\nPB  - WHO\nPY  - 2019\n"
        "TY  - GEN\nTI  - \nER  - \n"
    )
    items = list(parse_text(text, origin="x.ris", fmt=InputFormat.RIS))
    refs = _refs(items)
    assert [(r.key, r.entry_type, r.title, r.venue) for r in refs] == [
        ("smith2020", "article", "A Title", "A Journal"),
        ("2", "techreport", "A Report", None),
    ]
    assert refs[1].authors[0].literal == "World Health Organization"
    messages = [(p.line, p.message) for p in items if isinstance(p, InputProblem)]
    assert (1, "text outside a RIS record; skipped") in messages
    assert any(line == 9 and "without an ER line" in message for line, message in messages)
    assert any(line == 14 and "neither a title nor an identifier" in message for line, message in messages)


def test_arxiv_and_pubmed_accessions_in_ris() -> None:
    text = (
        "TY  - GEN\nTI  - A Preprint\nAU  - Doe, J.\nPY  - 2021\nAN  - arXiv:2101.00001v2\nER  - \n"
        "TY  - JOUR\nTI  - A Trial\nAU  - Roe, R.\nPY  - 2020\nAN  - 31234567\nDB  - PubMed\nER  - \n"
    )
    preprint, trial = _refs(list(parse_text(text, origin="x.ris")))
    assert (preprint.arxiv_id, preprint.arxiv_version) == ("2101.00001", 2)
    assert trial.pmid == "31234567"


@pytest.mark.parametrize("text", [ENDNOTE, ZOTERO_RDF])
def test_xml_exports_with_entities_or_a_dtd_are_refused(text: str) -> None:
    hostile = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]>\n' + (
        text.split("?>", 1)[1] if text.startswith("<?xml") else text
    )
    with pytest.raises(InputError, match=r"^x\.xml: .*(DTD|entity)"):
        list(parse_text(hostile, origin="x.xml", fmt=detect_format(text)))


def test_malformed_endnote_xml_names_the_file() -> None:
    with pytest.raises(InputError, match=r"^broken\.xml: not well-formed XML"):
        list(parse_text(ENDNOTE[:400], origin="broken.xml"))


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="$`^"),
        min_size=1,
        max_size=60,
    )
)
def test_a_value_escaped_for_bibtex_decodes_to_itself(value: str) -> None:
    """What a manager's record says is text: `%`, `~`, `{`, `--` survive the BibTeX field reader.
    (TeX math `$...^...$` and backquote ligatures are outside this promise.)"""
    value = " ".join(value.split())
    if value:
        assert latex_to_unicode(bibtex_escape(value)) == value


@given(st.text(alphabet="{}ab -", min_size=1, max_size=30))
def test_a_value_with_unpaired_braces_stays_a_balanced_bibtex_value(value: str) -> None:
    """BibTeX counts every brace, escaped or not: an unpaired one in a manager's title must not
    leave the field open (it swallowed the next entry of the corrected .bib export)."""
    escaped = bibtex_escape(value)
    assert escaped.count("{") == escaped.count("}")
    assert latex_to_unicode(escaped) == " ".join(value.split())


def test_people_as_bibtex_names() -> None:
    assert bibtex_name("  Vaswani,  Ashish ") == "Vaswani, Ashish"
    assert bibtex_name("Food and Drug Administration") == "{Food and Drug Administration}"
    assert bibtex_name("et al.") == "others"
    assert bibtex_name(" ") is None
