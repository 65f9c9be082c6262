"""Issue 30: Word manuscripts. Before: a .docx or .doc was "binary data, not text (a NUL byte)".
A .docx is read from its text (its References section; its citations for `aletheia claims`); a
legacy .doc is refused with the formats that are read."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from aletheia.config import get_settings
from aletheia.core.bibliography import InputError, InputProblem
from aletheia.core.claim_text import find_claims
from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.research_document import document_text
from aletheia.pipeline.documents.docx_reading import docx_text
from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.jobs.submission import InputDocument

MB = 1024 * 1024
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _run(text: str, *, bold: bool = False) -> str:
    props = "<w:rPr><w:b/></w:rPr>" if bold else ""
    return f'<w:r>{props}<w:t xml:space="preserve">{text}</w:t></w:r>'


def _paragraph(*runs: str, style: str | None = None) -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}{''.join(runs)}</w:p>"


def build_docx(body: str, *, extra: dict[str, bytes] | None = None) -> bytes:
    """A minimal Office Open XML document, as Word writes one (parts, content types, relations)."""
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}"><w:body>'
        f"{body}<w:sectPr/></w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/'
            '2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override '
            'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.document.main+xml"/></Types>',
        )
        archive.writestr(
            "_rels/.rels",
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
            '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
            '2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        )
        archive.writestr("word/document.xml", document)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


MANUSCRIPT = "".join(
    [
        _paragraph(_run("On citations"), style="Title"),
        _paragraph(
            _run("Transformers replaced recurrence in sequence models "),
            _run("[1]", bold=True),
            _run(". Residual connections made very deep networks trainable [2]."),
        ),
        # A Zotero field: its instruction is no text, its result is.
        _paragraph(
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            '<w:r><w:instrText> ADDIN ZOTERO_ITEM CSL_CITATION {"citationID":"x"} </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r>',
            _run("A field result stays."),
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
            '<w:del w:id="1" w:author="A"><w:r><w:delText>deleted words</w:delText></w:r></w:del>',
        ),
        _paragraph(_run("References"), style="Heading1"),
        # The bibliography in a content control, as Mendeley writes it; one entry split over runs.
        "<w:sdt><w:sdtContent>"
        + _paragraph(
            _run("[1] A. Vaswani, N. Shazeer, and N. Parmar, "),
            _run("“Attention is all you need,”"),
            _run(" in Advances in Neural Information Processing Systems, 2017."),
        )
        + _paragraph(
            _run("[2] K. He, X. Zhang, S. Ren, and J. Sun, “Deep residual learning for image recognition,”"),
            "<w:r><w:tab/></w:r>",
            _run("in Proc. CVPR, 2016, doi: 10.1109/CVPR.2016.90."),
        )
        + "</w:sdtContent></w:sdt>",
    ]
)


def _refs(items: list[CitedReference | InputProblem]) -> list[CitedReference]:
    return [item for item in items if isinstance(item, CitedReference)]


def test_a_docx_reference_section_is_read(tmp_path: Path) -> None:
    path = tmp_path / "paper.docx"
    path.write_bytes(build_docx(MANUSCRIPT))
    refs = _refs(list(iter_references([path], max_bytes=MB)))
    assert [r.title for r in refs] == [
        "Attention is all you need",
        "Deep residual learning for image recognition",
    ]
    assert refs[1].doi == "10.1109/cvpr.2016.90" and refs[0].year == 2017


def test_the_text_of_a_docx() -> None:
    text = docx_text(build_docx(MANUSCRIPT), origin="paper.docx", max_bytes=MB)
    paragraphs = text.strip().split("\n\n")
    assert paragraphs[1] == (
        "Transformers replaced recurrence in sequence models [1]. Residual connections made very deep "
        "networks trainable [2]."
    )
    assert paragraphs[2] == "A field result stays."  # no field instruction, no deleted text
    assert "ZOTERO" not in text and "deleted" not in text
    assert "\t" in paragraphs[-1]


def test_claims_read_a_docx_manuscript_and_its_citations() -> None:
    doc = InputDocument(name="paper.docx", data=build_docx(MANUSCRIPT))
    text, fmt, own = document_text(doc, get_settings())
    assert fmt == "plain"
    assert [r.title for r in own if isinstance(r, CitedReference)][:2] == [
        "Attention is all you need",
        "Deep residual learning for image recognition",
    ]
    markers = [
        key for finding in find_claims(text, fmt=fmt) for mark in finding.citations for key in mark.keys
    ]
    assert {"1", "2"} <= set(markers)


def test_a_legacy_doc_is_refused_with_the_formats_read(tmp_path: Path) -> None:
    path = tmp_path / "paper.doc"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    with pytest.raises(
        InputError, match=r"legacy Word \.doc .* save it as \.docx .*RIS \(\.ris\).*Word \(\.docx\)"
    ):
        list(iter_references([path], max_bytes=MB))
    with pytest.raises(InputError, match=r"legacy Word \.doc"):
        document_text(InputDocument(name="paper.doc", data=path.read_bytes()), get_settings())


def test_other_archives_and_bombs_are_refused(tmp_path: Path) -> None:
    odt = io.BytesIO()
    with zipfile.ZipFile(odt, "w") as archive:
        archive.writestr("content.xml", "<office:document-content/>")
    path = tmp_path / "paper.docx"
    path.write_bytes(odt.getvalue())
    with pytest.raises(
        InputError, match=r"without word/document\.xml, so not a Word document; Aletheia reads"
    ):
        list(iter_references([path], max_bytes=MB))
    big = build_docx(_paragraph(_run("x" * 200_000)))  # compresses to a few hundred bytes
    assert len(big) < 10_000
    with pytest.raises(InputError, match=r"word/document\.xml uncompresses to more than 100000 bytes"):
        docx_text(big, origin="bomb.docx", max_bytes=100_000)
    deep = build_docx("<w:p>" + "<w:ins>" * 50_000 + _run("x") + "</w:ins>" * 50_000 + "</w:p>")
    with pytest.raises(InputError, match=r"^deep\.docx: word/document\.xml is nested too deeply"):
        docx_text(deep, origin="deep.docx", max_bytes=10 * MB)
    with pytest.raises(InputError, match=r"^broken\.docx: a ZIP archive that cannot be opened"):
        docx_text(b"PK\x03\x04 truncated", origin="broken.docx", max_bytes=MB)


@pytest.mark.shared
def test_a_real_docx_gives_the_references_of_the_same_paper_as_text(shared_data: Path) -> None:
    """`to_err_is_human` as Word wrote it and as plain text: the same references."""
    folder = shared_data / "documents" / "one-paper-many-formats" / "inst" / "extdata"
    docx = _refs(list(iter_references([folder / "to_err_is_human.docx"], max_bytes=10 * MB)))
    txt = _refs(list(iter_references([folder / "to_err_is_human.txt"], max_bytes=10 * MB)))
    assert len(docx) == len(txt) >= 3
    assert [(r.title, r.doi, r.year) for r in docx] == [(r.title, r.doi, r.year) for r in txt]
    with pytest.raises(InputError, match=r"legacy Word \.doc"):
        list(iter_references([folder / "to_err_is_human.doc"], max_bytes=10 * MB))


def _docx_with_part(document: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", document)
    return out.getvalue()


@pytest.mark.parametrize(
    ("declared", "codec"),
    [("UTF-8", "utf-8"), ("UTF-16", "utf-16"), ("ISO-8859-1", "latin-1"), ("windows-1252", "cp1252")],
)
def test_the_document_part_is_decoded_as_its_declaration_says(declared: str, codec: str) -> None:
    # Before: the part was decoded as UTF-8, else UTF-16, whatever its declaration named, so a
    # well-formed part declared ISO-8859-1 (written by converters, not Word) was refused.
    document = (
        f'<?xml version="1.0" encoding="{declared}"?>\n<w:document xmlns:w="{W}"><w:body>'
        f"{_paragraph(_run('Café society and the Poincaré map'))}</w:body></w:document>"
    ).encode(codec)
    assert docx_text(_docx_with_part(document), origin="d.docx", max_bytes=MB) == (
        "Café society and the Poincaré map\n"
    )


def test_a_document_part_that_is_not_in_its_encoding_is_refused() -> None:
    document = (
        (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<w:document xmlns:w="{W}"><w:body>'
            f"{_paragraph(_run('Caf'))}</w:body></w:document>"
        )
        .encode()
        .replace(b"Caf", b"Caf\xe9")
    )
    with pytest.raises(InputError, match="not well-formed XML"):
        docx_text(_docx_with_part(document), origin="d.docx", max_bytes=MB)
