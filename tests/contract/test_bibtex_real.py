"""Real bibliographies (../shared/data): every .bib under documents/bibtex-real and the fields of the
HALLMARK dev entries parse with zero crashes; the only problems are genuinely malformed entries."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia.core.bibliography import InputProblem, iter_bibtex
from aletheia.core.records import CitedReference

pytestmark = pytest.mark.shared


def _chunks(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as handle:
        while chunk := handle.read(64 * 1024):
            yield chunk


def test_every_real_bib_file(shared_data: Path) -> None:
    files = sorted((shared_data / "documents" / "bibtex-real").rglob("*.bib"))
    if not files:
        pytest.skip("no .bib files under documents/bibtex-real")
    total = 0
    problems: list[InputProblem] = []
    for path in files:
        for result in iter_bibtex(_chunks(path), origin=path.name):
            if isinstance(result, InputProblem):
                problems.append(result)
            else:
                total += 1
                assert result.key and result.entry_type
    print(f"\n{len(files)} files, {total} references, {len(problems)} problems")
    for problem in problems:
        print(" ", problem)
    assert total > 15_000
    # The lab's unchecked dirty.bib repeats keys; nothing is malformed.
    assert {p.origin for p in problems} <= {"dirty.bib"}
    assert all("duplicate" in p.message for p in problems)


def test_official_proceedings_entries_are_read_completely(shared_data: Path) -> None:
    path = shared_data / "documents" / "bibtex-real" / "cmlbib" / "data" / "nips" / "nips2019.bib"
    if not path.exists():
        pytest.skip("nips2019.bib is absent")
    refs = [r for r in iter_bibtex(_chunks(path), origin=path.name) if isinstance(r, CitedReference)]
    assert len(refs) > 1000
    assert all(r.title and r.year == 2019 for r in refs)
    # One official entry has `author = {}`; every other has its authors read.
    assert all(r.authors for r in refs if r.fields.get("author", "").strip())
    assert all(r.venue == "Advances in Neural Information Processing Systems" for r in refs)


def _entry(row: dict[str, object]) -> str:
    fields = row["fields"]
    assert isinstance(fields, dict)
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    return f"@{row['bibtex_type']}{{{row['bibtex_key']},\n{body}\n}}\n"


def test_hallmark_dev_fields(shared_data: Path) -> None:
    path = shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"
    if not path.exists():
        pytest.skip("hallmark-dev is absent")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    results = list(iter_bibtex((_entry(row) for row in rows), origin="hallmark"))
    refs = [r for r in results if isinstance(r, CitedReference)]
    problems = [r for r in results if isinstance(r, InputProblem)]
    print(f"\n{len(rows)} entries, {len(refs)} references, {len(problems)} problems")
    for problem in problems:
        print(" ", problem)
    # A few entries carry a field with an unbalanced brace ("Man{\\'e"): genuinely malformed.
    unbalanced = sum(
        1 for row in rows if any(str(v).count("{") != str(v).count("}") for v in dict(row["fields"]).values())
    )
    assert len(problems) == unbalanced
    assert len(refs) == len(rows) - unbalanced
    assert all(r.title for r in refs)
