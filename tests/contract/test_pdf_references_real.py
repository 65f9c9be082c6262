"""Reference extraction from real PDFs (../shared/data/documents): counts per paper, checked
against the numbered lists they print."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.pdf_references import extract_pdf_references

pytestmark = pytest.mark.shared

# Numbered lists: exactly the last [n] the PDF prints. Author-year lists: a range around the number
# of "YYYY. " year markers in the section's raw text (one per entry, give or take a title that
# holds a year), since no list number says where an entry starts.
EXPECTED: dict[str, int | tuple[int, int]] = {
    "2203.00130v1.pdf": 111,
    "2302.07302v1.pdf": 65,
    "2304.02623v1.pdf": 35,
    "2206.10883v3.pdf": 64,
    "2020.acl-main.447.pdf": (54, 58),
    "2023.eacl-main.121.pdf": (64, 68),
    "papermage.pdf": (51, 55),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_counts(shared_data: Path, name: str) -> None:
    path = shared_data / "documents" / "arxiv-pdfs" / "tests" / "fixtures" / name
    if not path.exists():
        pytest.skip(f"{name} is absent")
    results = extract_pdf_references(path.read_bytes(), origin=name, max_pages=500, timeout=60)
    refs = [r for r in results if isinstance(r, CitedReference)]
    print(f"\n{name}: {len(refs)} references")
    expected = EXPECTED[name]
    if isinstance(expected, int):
        assert len(refs) == expected
    else:
        assert expected[0] <= len(refs) <= expected[1]
    assert not [r for r in results if isinstance(r, InputProblem)]
    with_year = sum(1 for r in refs if r.year)
    assert with_year >= 0.9 * len(refs)
