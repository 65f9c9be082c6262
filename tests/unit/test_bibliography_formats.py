"""Format detection: content first, the file name for ties."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.core.bibliography import InputFormat, detect_format, detect_format_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bibliographies"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("refs.bib", InputFormat.BIBTEX),
        ("natbib.bbl", InputFormat.BBL),
        ("biblatex.bbl", InputFormat.BBL),
        ("thesis.tex", InputFormat.LATEX),
        ("paper.md", InputFormat.MARKDOWN),
        ("ieee.txt", InputFormat.PLAIN),
        ("apa_numbered.txt", InputFormat.PLAIN),
        ("vancouver_paren.txt", InputFormat.PLAIN),
        ("refs.json", InputFormat.CSL_JSON),
    ],
)
def test_fixtures_are_detected_by_content_alone(name: str, expected: InputFormat) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert detect_format(text, None) == expected
    assert detect_format(text, name) == expected


@pytest.mark.parametrize(
    ("head", "filename", "expected"),
    [
        ("@article{k, title={T}}", "refs.txt", InputFormat.BIBTEX),  # content beats the extension
        ("  \n@InProceedings {k,\n", None, InputFormat.BIBTEX),
        ("% comments only\n", "empty.bib", InputFormat.BIBTEX),
        ("", "empty.bib", InputFormat.BIBTEX),
        ("", None, InputFormat.PLAIN),
        ("\\bibitem{a} A. Author. Title.", None, InputFormat.BBL),
        ("\\documentclass{article}\\bibliography{refs}", None, InputFormat.LATEX),
        ('[{"title": "T", "type": "book"}]', "x.txt", InputFormat.CSL_JSON),
        ('{"items": [{"author": [{"family": "A"}]}]}', None, InputFormat.CSL_JSON),
        ("[]", None, InputFormat.CSL_JSON),
        ('{"name": "package", "version": "1.0"}', "package.json", InputFormat.CSL_JSON),
        ('{"name": "package", "version": "1.0"}', None, InputFormat.UNKNOWN),
        ("## References\n- A. Title.", None, InputFormat.MARKDOWN),
        ("[^1]: A footnote.", None, InputFormat.MARKDOWN),
        ("See [the paper](https://doi.org/10.1/x).", None, InputFormat.MARKDOWN),
        ("1. Smith, J. (2020). Title. Venue.", None, InputFormat.PLAIN),
        ("1. Smith, J. (2020). Title. Venue.", "refs.md", InputFormat.MARKDOWN),
        ("```\n@article{k, title={T}}\n```\n## References\n", "notes.md", InputFormat.MARKDOWN),
        ("%PDF-1.7\n", None, InputFormat.PDF),
        ("binary\x00data", None, InputFormat.UNKNOWN),
        ("\ufeff@article{k,}", None, InputFormat.BIBTEX),
    ],
)
def test_detect_format(head: str, filename: str | None, expected: InputFormat) -> None:
    assert detect_format(head, filename) == expected


def test_detect_format_bytes() -> None:
    assert detect_format_bytes(b"%PDF-1.4\n%\xe2\xe3", "paper.pdf") == InputFormat.PDF
    assert detect_format_bytes(b"junk before the header %PDF-1.4", None) == InputFormat.PDF
    assert detect_format_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "refs.bib") == InputFormat.UNKNOWN
    assert detect_format_bytes("@book{k, title={Ö}}".encode(), None) == InputFormat.BIBTEX
    # Invalid UTF-8 does not stop detection: decoding is the reader's question.
    assert detect_format_bytes(b"@book{k, title={\xd6}}", None) == InputFormat.BIBTEX
