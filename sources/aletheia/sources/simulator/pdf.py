"""A minimal, valid PDF of a work (title, authors, abstract), for `/arxiv/pdf/{id}`.

Hand-written PDF 1.4: one Helvetica font, text lines wrapped by width, pages as needed, a correct
cross-reference table, so PDF text extractors (pypdfium2, pdfminer) read it as they read arXiv's.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

PAGE_WIDTH = 612
PAGE_HEIGHT = 792
MARGIN = 72
LINE_HEIGHT = 14
WRAP = 90


def _escape(text: str) -> str:
    # The standard fonts speak WinAnsi; anything outside Latin-1 becomes "?".
    latin = text.encode("latin-1", "replace").decode("latin-1")
    return latin.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _lines(
    title: str, authors: Sequence[str], header: str, body: Sequence[tuple[str | None, str]]
) -> list[tuple[int, str]]:
    """(font size, text) lines: the title large, then the rest wrapped."""
    lines: list[tuple[int, str]] = [(16, part) for part in textwrap.wrap(title, 60)]
    lines.append((11, ""))
    lines.extend((11, part) for part in textwrap.wrap(", ".join(authors), WRAP))
    lines.append((9, header))
    for heading, paragraph in body:
        lines.append((11, ""))
        if heading:
            lines.append((12, heading))
        lines.extend((11, part) for part in textwrap.wrap(paragraph, WRAP))
    return lines


def render_pdf(
    title: str, authors: Sequence[str], header: str, body: Sequence[tuple[str | None, str]]
) -> bytes:
    lines = _lines(title, authors, header, body)
    per_page = (PAGE_HEIGHT - 2 * MARGIN) // LINE_HEIGHT
    pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)] or [[]]

    objects: list[bytes] = []  # object n is objects[n - 1]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # the page tree, filled in once the page objects are numbered
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    page_numbers: list[int] = []
    for page in pages:
        commands = ["BT"]
        y = PAGE_HEIGHT - MARGIN
        for size, text in page:
            commands.append(f"/F1 {size} Tf 1 0 0 1 {MARGIN} {y} Tm ({_escape(text)}) Tj")
            y -= LINE_HEIGHT if size <= 12 else LINE_HEIGHT + 6
        commands.append("ET")
        stream = "\n".join(commands).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_number = len(objects)
        objects.append(
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_WIDTH} {PAGE_HEIGHT}] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content_number} 0 R >>"
            ).encode("ascii")
        )
        page_numbers.append(len(objects))
    kids = " ".join(f"{n} 0 R" for n in page_numbers)
    objects[1] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_numbers)} >>".encode("ascii")

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body_bytes in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body_bytes + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n" % (len(objects) + 1)
    out += b"0000000000 65535 f \n"
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
