"""Issue 20: references read from real PDFs (`aletheia bench pdfrefs`), paper by paper.

Two sets, both from ../shared/data/documents:

- `arxiv-pdfs/`: real arXiv and ACL PDFs (LaTeX-made). What each prints is known only as a count
  (the last number of a numbered list; for author-year lists a range around the number of entries,
  counted by hand), so recall is the share of that count read, and the fields are counted as
  read (a title, a year, a first author) and as clean (no doubled glyphs, no page furniture).
- `unarxive-sample/`: 49 arXiv papers with their reference lists as the authors' LaTeX rendered
  them (`bib_entry_raw`). Each paper is laid out as a page (title, its first paragraphs, a
  References heading and the numbered list) and printed to PDF by Chromium, the way a user prints
  a web page, then read back by `extract_pdf_references`. Recall: the share of the paper's
  references found again (a read reference whose text is the original's, 90% alike); field
  accuracy: each found reference's title, year and first author against the same fields read
  from the original string, so what is measured is what the PDF path loses. Without Chromium
  this set is skipped (and the report says so).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from rapidfuzz import fuzz

from aletheia.bench.common import SHARED_DATA, machine
from aletheia.bench.common import percent as _pct
from aletheia.core.bibliography import InputError, InputProblem
from aletheia.core.bibliography.plain import parse_reference_string
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import fold_name, normalize_title
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.pipeline.documents.pdf_references import extract_pdf_references

ARXIV_PDFS: Final = SHARED_DATA / "documents" / "arxiv-pdfs" / "tests" / "fixtures"
UNARXIVE: Final = SHARED_DATA / "documents" / "unarxive-sample"
# What each arXiv PDF prints: the last [n] of a numbered list, or (low, high) for an author-year
# list (tests/contract/test_pdf_references_real.py checks the same figures).
PRINTED: Final[dict[str, int | tuple[int, int]]] = {
    "2203.00130v1.pdf": 111,
    "2302.07302v1.pdf": 65,
    "2304.02623v1.pdf": 35,
    "2206.10883v3.pdf": 64,
    "2020.acl-main.447.pdf": (54, 58),
    "2023.eacl-main.121.pdf": (64, 68),
    "papermage.pdf": (51, 55),
}
MATCH_RATIO: Final = 90.0
# A doubled glyph run ("VaVaswani", "NeNeural", "A A A method") or a printer's page furniture
# (a date and time, a file URL, "1/1") in a reference: what the PDF path must never produce.
_DOUBLED = re.compile(r"\b([A-Z][a-z])\1[a-z]|\b([A-Z]) \2 \2\b")
_FURNITURE = re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}, \d{1,2}:\d{2} [AP]M\b|file:///|\s\d{1,3}/\d{1,3}$")
_FORMULA = re.compile(r"\{\{(?:formula|cite|figure|table):[^}]*\}\}")

Extractor = Callable[[bytes, str], list[CitedReference | InputProblem]]


def _extract(data: bytes, origin: str) -> list[CitedReference | InputProblem]:
    return extract_pdf_references(data, origin=origin, max_pages=500, timeout=120)


def _clean(refs: list[CitedReference]) -> int:
    return sum(1 for r in refs if not (_DOUBLED.search(r.raw or "") or _FURNITURE.search(r.raw or "")))


def arxiv_pdfs(extract: Extractor = _extract) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name, printed in PRINTED.items():
        path = ARXIV_PDFS / name
        if not path.exists():
            continue
        refs = [r for r in extract(path.read_bytes(), name) if isinstance(r, CitedReference)]
        low, high = (printed, printed) if isinstance(printed, int) else printed
        within = low <= len(refs) <= high
        expected = len(refs) if within else (low if len(refs) < low else high)
        n = max(len(refs), 1)
        rows.append(
            {
                "paper": name,
                "printed": printed,
                "read": len(refs),
                "recall": round(min(len(refs), expected) / expected, 4) if expected else None,
                "with_title": round(sum(1 for r in refs if r.title) / n, 4),
                "with_year": round(sum(1 for r in refs if r.year) / n, 4),
                "with_authors": round(sum(1 for r in refs if r.authors) / n, 4),
                "clean": round(_clean(refs) / n, 4),
            }
        )
    return rows


def _page(paper: dict[str, Any], references: list[str]) -> str:
    title = html.escape(" ".join(str(paper["metadata"].get("title") or paper["paper_id"]).split()))
    paragraphs = [
        html.escape(" ".join(_FORMULA.sub("", p.get("text", "")).split()))
        for p in paper.get("body_text", [])[:4]
    ]
    body = "".join(f"<p>{p}</p>" for p in paragraphs if p)
    items = "".join(f"<li>{html.escape(ref)}</li>" for ref in references)
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>'
        f"{title}</title><style>body{{font-family:serif;font-size:11pt}}</style></head><body>"
        f"<h1>{title}</h1>{body}<h2>References</h2><ol>{items}</ol></body></html>"
    )


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def print_to_pdf(page: str, browser: str, folder: Path) -> bytes | None:
    source, target = folder / "paper.html", folder / "paper.pdf"
    source.write_text(page, encoding="utf-8")
    target.unlink(missing_ok=True)
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--print-to-pdf={target}", source.as_uri()],
        capture_output=True,
        timeout=120,
        check=False,
    )
    return target.read_bytes() if target.exists() else None


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", normalize_title(text))


def _surname(ref: CitedReference, authors: tuple[Author, ...]) -> tuple[str, str]:
    """The first author's surname as read from the PDF, and as read from the original string."""
    cited = (ref.authors[0].family or ref.authors[0].literal or "") if ref.authors else ""
    expected = (authors[0].family or authors[0].literal or "") if authors else ""
    return fold_name(cited), fold_name(expected)


def _score_paper(references: list[str], refs: list[CitedReference]) -> dict[str, Any]:
    keys = [_key(r.raw or "") for r in refs]
    found = title_ok = title_n = year_ok = year_n = author_ok = author_n = 0
    for original in references:
        target = _key(original)
        best = max(range(len(refs)), key=lambda j: fuzz.ratio(target, keys[j]), default=None)
        if best is None or fuzz.ratio(target, keys[best]) < MATCH_RATIO:
            continue
        found += 1
        ref, expected = refs[best], parse_reference_string(original)
        if title := expected.get("title"):
            title_n += 1
            title_ok += int(title_similarity(ref.title or "", title) >= TITLE_THRESHOLD)
        if year := expected.get("year"):
            year_n += 1
            year_ok += int(ref.year == year)
        got, want = _surname(ref, expected.get("authors", ()))
        if want:
            author_n += 1
            author_ok += int(got == want)
    return {
        "references": len(references),
        "read": len(refs),
        "found": found,
        "title": (title_ok, title_n),
        "year": (year_ok, year_n),
        "first_author": (author_ok, author_n),
        "clean": _clean(refs),
    }


def unarxive(*, limit: int | None = None, extract: Extractor = _extract) -> list[dict[str, Any]] | None:
    browser = chromium()
    source = UNARXIVE / "arXiv_src_2212_086.jsonl"
    if browser is None or not source.exists():
        return None
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="aletheia-pdfrefs-") as tmp:
        for line in source.read_text(encoding="utf-8").splitlines()[:limit]:
            paper = json.loads(line)
            references = [
                " ".join(str(entry.get("bib_entry_raw") or "").split())
                for entry in paper.get("bib_entries", {}).values()
            ]
            references = [r for r in references if len(r) >= 20]
            if not references:
                continue
            data = print_to_pdf(_page(paper, references), browser, Path(tmp))
            if data is None:
                continue
            try:
                results = extract(data, paper["paper_id"])
            except InputError:
                results = []
            refs = [r for r in results if isinstance(r, CitedReference)]
            rows.append({"paper": paper["paper_id"], **_score_paper(references, refs)})
    return rows


def _share(pair: tuple[int, int]) -> float | None:
    return round(pair[0] / pair[1], 4) if pair[1] else None


def run(*, limit: int | None = None, extract: Extractor = _extract) -> dict[str, Any]:
    figures: dict[str, Any] = {"machine": machine(), "arxiv_pdfs": arxiv_pdfs(extract)}
    rows = unarxive(limit=limit, extract=extract)
    figures["unarxive"] = rows
    if rows:
        total = {k: sum(r[k] for r in rows) for k in ("references", "read", "found", "clean")}
        fields = {
            k: (sum(r[k][0] for r in rows), sum(r[k][1] for r in rows))
            for k in ("title", "year", "first_author")
        }
        figures["unarxive_total"] = {
            **total,
            "recall": _share((total["found"], total["references"])),
            "clean": _share((total["clean"], total["read"])),
            **{k: _share(v) for k, v in fields.items()},
        }
    return figures


def format_report(figures: dict[str, Any]) -> str:
    lines = [
        "arXiv/ACL PDFs (LaTeX): references read against those printed",
        "| paper | printed | read | recall | with title | with year | with authors | clean |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in figures["arxiv_pdfs"]:
        printed = r["printed"] if isinstance(r["printed"], int) else "{}–{}".format(*r["printed"])
        lines.append(
            f"| {r['paper']} | {printed} | {r['read']} | {_pct(r['recall'])} | {_pct(r['with_title'])} | "
            f"{_pct(r['with_year'])} | {_pct(r['with_authors'])} | {_pct(r['clean'])} |"
        )
    rows = figures.get("unarxive")
    if rows is None:
        lines.append("unarXive papers printed by Chromium: skipped (no chromium, or no ../shared data)")
        return "\n".join(lines)
    lines += [
        "",
        "unarXive papers printed to PDF by Chromium: references found again, fields against the original",
        "| paper | references | read | recall | title | year | first author | clean |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['paper']} | {r['references']} | {r['read']} | "
            f"{_pct(_share((r['found'], r['references'])))} | "
            f"{_pct(_share(r['title']))} | {_pct(_share(r['year']))} | {_pct(_share(r['first_author']))} | "
            f"{_pct(_share((r['clean'], max(r['read'], 1))))} |"
        )
    t = figures["unarxive_total"]
    lines.append(
        f"| **all {len(rows)}** | {t['references']} | {t['read']} | {_pct(t['recall'])} | "
        f"{_pct(t['title'])} | {_pct(t['year'])} | {_pct(t['first_author'])} | {_pct(t['clean'])} |"
    )
    return "\n".join(lines)
