"""Reading inputs: files, directories, stdin, size limits, encodings, binary refusal, and PDFs
(a small PDF written here by hand, with a hanging-indent reference list)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from aletheia.core.bibliography import InputError, InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.documents.pdf_reading import pdf_text
from aletheia.pipeline.documents.pdf_references import extract_pdf_references

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"
MB = 1024 * 1024


def _refs(results: list[CitedReference | InputProblem]) -> list[CitedReference]:
    return [r for r in results if isinstance(r, CitedReference)]


# --- a PDF written by hand -------------------------------------------------------------------------


def _pdf(pages: list[list[tuple[float, float, str]]]) -> bytes:
    """A minimal PDF: each page a list of (x, y, text) lines in 10 pt Helvetica."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * index for index in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for index, lines in enumerate(pages):
        content = b"".join(
            b"BT /F1 10 Tf %.1f %.1f Td (" % (x, y)
            + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
            + b") Tj ET\n"
            for x, y, text in lines
        )
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_ids[index] + 1} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _paper() -> bytes:
    body: list[tuple[float, float, str]] = [
        (72, 740, "1 Introduction"),
        (72, 726, "Tides force coastal aquifers (Novak and van den Berg, 2020)."),
        (72, 712, "Ranking citations is studied by Ito (2018) and others."),
        (300, 40, "1"),
    ]
    references: list[tuple[float, float, str]] = [
        (72, 740, "References"),
        (72, 720, "Chidi Okafor and Astrid Lindqvist. 2019. Sparse attention for long"),
        (84, 708, "documents. In Proceedings of the Workshop on Efficient Models,"),
        (84, 696, "pages 12-20."),
        (72, 680, "Petra Novak and Lars van den Berg. 2020. Tidal forcing of coastal"),
        (84, 668, "aquifers. Journal of Hydrology Letters, 12:1-9."),
        (72, 652, "Kenji Ito. 2018. Learning to rank citations. arXiv:1805.01234."),
        (300, 40, "2"),
    ]
    appendix: list[tuple[float, float, str]] = [
        (72, 740, "Kenji Ito. 2017. Ranking with a continuation that crosses the"),
        (84, 728, "page break. Ranking Letters, 3:4-5."),
        (72, 700, "A Additional Experiments"),
        (72, 686, "Nothing here is a reference, even Smith, J. (2020). Not one. Venue."),
        (300, 40, "3"),
    ]
    return _pdf([body, references, appendix])


def test_pdf_text_marks_continuation_lines_and_pages() -> None:
    text = pdf_text(_paper(), max_pages=10)
    lines = text.split("\n")
    assert "References" in lines
    assert "    documents. In Proceedings of the Workshop on Efficient Models," in lines
    assert "Chidi Okafor and Astrid Lindqvist. 2019. Sparse attention for long" in lines
    assert text.count("\f") == 2
    assert "1" not in lines and "2" not in lines  # page numbers are dropped


def test_pdf_references_are_split_by_hanging_indent() -> None:
    results = extract_pdf_references(_paper(), origin="paper.pdf", max_pages=10, timeout=30)
    refs = _refs(results)
    assert [r.title for r in refs] == [
        "Sparse attention for long documents",
        "Tidal forcing of coastal aquifers",
        "Learning to rank citations",
        "Ranking with a continuation that crosses the page break",
    ]
    assert [r.origin for r in refs] == ["paper.pdf:page 2"] * 3 + ["paper.pdf:page 3"]
    assert [a.family for a in refs[0].authors] == ["Okafor", "Lindqvist"]
    assert refs[2].arxiv_id == "1805.01234"
    assert all("year" in r.heuristic_fields for r in refs)


def test_pdf_limits_and_broken_pdfs_are_input_errors() -> None:
    with pytest.raises(InputError, match=r"^paper\.pdf: 3 pages, over the limit of 2"):
        extract_pdf_references(_paper(), origin="paper.pdf", max_pages=2)
    with pytest.raises(InputError, match=r"^junk\.pdf: not a readable PDF"):
        extract_pdf_references(b"%PDF-1.4\nthis is not a PDF at all", origin="junk.pdf", max_pages=10)
    no_heading = _pdf([[(72, 700, "Just a page of prose without a bibliography.")]])
    (problem,) = extract_pdf_references(no_heading, origin="prose.pdf", max_pages=10)
    assert isinstance(problem, InputProblem) and "no References" in problem.message


# --- files, directories, stdin ------------------------------------------------------------------------


def test_a_directory_is_read_recursively_skipping_hidden_and_foreign_files(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text("@article{a, title={A}}\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text(
        "## References\n\n- Doe, J. (2001). Bee. Venue.\n", encoding="utf-8"
    )
    (tmp_path / "sub" / "paper.pdf").write_bytes(_paper())
    (tmp_path / "notes.odt").write_bytes(b"PK\x03\x04 not read")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.bib").write_text("@article{hidden, title={H}}\n", encoding="utf-8")
    (tmp_path / ".d.bib").write_text("@article{hidden2, title={H}}\n", encoding="utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.bib"
    outside.write_text("@article{outside, title={O}}\n", encoding="utf-8")
    (tmp_path / "link.bib").symlink_to(outside)
    (tmp_path / "sub" / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    results = list(iter_references([tmp_path], max_bytes=MB, max_pdf_pages=10))
    refs = _refs(results)
    assert [r.key for r in refs] == ["a", "1", "1", "2", "3", "4"]
    assert refs[0].origin == f"{tmp_path / 'a.bib'}:1"
    # A broken file in a directory is a problem for that file only; named, it is an error.
    (problem,) = [r for r in results if isinstance(r, InputProblem)]
    assert problem.origin == str(tmp_path / "sub" / "broken.pdf")
    assert problem.message.startswith("not read: not a readable PDF")
    with pytest.raises(InputError, match=r"broken\.pdf: not a readable PDF"):
        list(iter_references([tmp_path / "sub" / "broken.pdf"], max_bytes=MB))


def test_content_decides_the_format_not_the_name(tmp_path: Path) -> None:
    path = tmp_path / "refs.txt"
    path.write_text("@article{k, title={Named txt}}\n", encoding="utf-8")
    (ref,) = _refs(list(iter_references([path], max_bytes=MB)))
    assert ref.key == "k" and ref.title == "Named txt"


def test_strings_carry_over_between_bib_files(tmp_path: Path) -> None:
    (tmp_path / "strings.bib").write_text('@string{jhl = "Journal of Hydrology Letters"}\n', encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@article{k, journal = jhl}\n", encoding="utf-8")
    paths = [tmp_path / "strings.bib", tmp_path / "refs.bib"]
    (ref,) = _refs(list(iter_references(paths, max_bytes=MB)))
    assert ref.venue == "Journal of Hydrology Letters"


def test_stdin(tmp_path: Path) -> None:
    bib = io.StringIO("@article{s1, title={From stdin}}\n" * 1 + "@article{s2, title={Two}}\n")
    assert [r.key for r in _refs(list(iter_references(["-"], stdin=bib, max_bytes=MB)))] == ["s1", "s2"]
    plain = io.StringIO("[1] A. Author, “A title,” Venue, 2001.\n[2] B. Author, “Another,” Venue, 2002.\n")
    refs = _refs(list(iter_references(["-"], stdin=plain, max_bytes=MB)))
    assert [(r.key, r.origin) for r in refs] == [("1", "<stdin>:1"), ("2", "<stdin>:2")]
    with pytest.raises(InputError, match=r"^<stdin>: \d+ bytes, over the input limit of 10 bytes"):
        list(iter_references(["-"], stdin=io.StringIO("@article{k, title={Too long}}"), max_bytes=10))


def test_size_limit_binary_and_encoding(tmp_path: Path) -> None:
    big = tmp_path / "big.bib"
    big.write_text("@misc{k, title={" + "x" * 200 + "}}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"big\.bib: \d+ bytes, over the input limit of 100 bytes"):
        list(iter_references([big], max_bytes=100))

    binary = tmp_path / "refs.md"
    binary.write_bytes(b"## References\n\x00\x01\x02")
    with pytest.raises(InputError, match=r"refs\.md \(byte 14\): binary data"):
        list(iter_references([binary], max_bytes=MB))

    # Issue 30: a .txt that is not UTF-8 is read as Windows-1252, as a .bib is, with a problem.
    bad_utf8 = tmp_path / "refs.txt"
    bad_utf8.write_bytes(
        "[1] A. Author, “T,” V, 2001.\n".encode() + b"[2] B. Caf\xe9, \x93Au lait,\x94 Venue, 2002.\n"
    )
    results = list(iter_references([bad_utf8], max_bytes=MB))
    assert "B. Café, “Au lait,” Venue, 2002." in [r.raw for r in _refs(results)]
    assert any("Windows-1252" in r.message for r in results if isinstance(r, InputProblem))

    latin1 = tmp_path / "old.bib"
    latin1.write_bytes(
        "@article{k, author = {M\u00fcller, J\u00f6rg}, title = {Caf\u00e9}}\n".encode("latin-1")
    )
    results = list(iter_references([latin1], max_bytes=MB))
    (ref,) = _refs(results)
    assert ref.authors[0].family == "Müller" and ref.title == "Café"
    problem = next(r for r in results if isinstance(r, InputProblem))
    assert "offset 23" in problem.message and "Latin-1" in problem.message

    bom = tmp_path / "bom.bib"
    bom.write_bytes(b"\xef\xbb\xbf@article{k, title={BOM}}\n")
    (ref,) = _refs(list(iter_references([bom], max_bytes=MB)))
    assert ref.title == "BOM"


def test_unknown_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        list(iter_references([tmp_path / "absent.bib"], max_bytes=MB))
    png = tmp_path / "figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError, match=r"figure\.png \(byte 8\): binary data"):
        list(iter_references([png], max_bytes=MB))


def test_every_fixture_reads_through_the_pipeline() -> None:
    results = list(iter_references([FIXTURES], max_bytes=MB))
    # 34 in the citation-style fixtures, 8 in books_and_classics.bib (Tier 1 and 3 cases).
    assert len(_refs(results)) == 42


def test_a_utf16_bib_is_read_not_called_binary(tmp_path):
    """Issue 20: a .bib saved as UTF-16 (with its byte-order mark) was refused as binary."""
    from aletheia.core.records import CitedReference
    from aletheia.pipeline.documents.inputs import iter_references

    text = "@article{smith2020, title={Ünïcode Tïtle}, author={Smith, Ann}, year={2020}}\n"
    for encoding in ("utf-16", "utf-16-be"):
        path = tmp_path / f"{encoding}.bib"
        data = text.encode(encoding)
        path.write_bytes(data if encoding == "utf-16" else b"\xfe\xff" + data)
        [ref] = [
            r for r in iter_references([str(path)], max_bytes=1_000_000) if isinstance(r, CitedReference)
        ]
        assert (ref.key, ref.title) == ("smith2020", "Ünïcode Tïtle")
