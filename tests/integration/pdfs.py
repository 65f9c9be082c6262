"""Minimal PDFs built by hand for tests: text pages, and the hostile shapes of test_hostile_pdfs."""

from __future__ import annotations

import zlib


def make_pdf(contents: list[bytes], filters: str = "", *, repeat_first_page: int = 1) -> bytes:
    """A PDF with one page per content stream (or the first page listed `repeat_first_page` times)."""
    pages = len(contents)
    first_page = 3
    font = first_page + 2 * pages
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    if repeat_first_page > 1:
        kids, count = " ".join([f"{first_page} 0 R"] * repeat_first_page), repeat_first_page
    else:
        kids, count = " ".join(f"{first_page + 2 * i} 0 R" for i in range(pages)), pages
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    for i, content in enumerate(contents):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (first_page + 2 * i + 1, font)
        )
        header = b"<< /Length %d%s >>\nstream\n" % (
            len(content),
            f" /Filter {filters}".encode() if filters else b"",
        )
        objects.append(header + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1", "replace")


def text_pdf(lines: list[str], *, per_page: int = 45) -> bytes:
    """Pages of text, one line per `lines` entry, 10 pt Helvetica from the top of the page."""
    contents = []
    for start in range(0, max(len(lines), 1), per_page):
        ops = [b"BT /F1 10 Tf 12 TL 56 740 Td"]
        for line in lines[start : start + per_page]:
            ops.append(b"(" + _escape(line) + b") Tj T*")
        ops.append(b"ET")
        contents.append(b"\n".join(ops))
    return make_pdf(contents)


def deflate_repeated(chunk: bytes, times: int) -> bytes:
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(chunk) for _ in range(times)]
    return b"".join([*parts, compressor.flush()])
