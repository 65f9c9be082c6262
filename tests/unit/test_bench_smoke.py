"""The benchmark harness itself, on a few dozen references (the full runs are `aletheia bench`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.bench import hallmark_bench, realbib_bench, sources_bench
from aletheia.bench.synthetic import citation_bibtex, generate
from aletheia.producers.cli import main

pytestmark = pytest.mark.slow


def test_the_synthetic_generator_is_seeded_and_parses() -> None:
    a = generate(30, doi_share=0.7, arxiv_share=0.2, seed=9, distractors=5)
    b = generate(30, doi_share=0.7, arxiv_share=0.2, seed=9, distractors=5)
    assert [w.record for w in a] == [w.record for w in b]
    assert sorted({w.cite for w in a}) == ["arxiv", "doi", "none", "title"]
    refs = sources_bench.parse_bibtex("".join(citation_bibtex(w, f"k{i}") for i, w in enumerate(a)), "t.bib")
    assert len(refs) == 35
    assert all(r.arxiv_id for r, w in zip(refs, a, strict=True) if w.cite == "arxiv")


def test_the_bound_is_the_slowest_bucket() -> None:
    buckets = {("openalex", "all"): (10.0, 10), ("arxiv_api", "all"): (1 / 3, 1)}
    seconds = sources_bench.bucket_seconds({("openalex", "all"): 110, ("arxiv_api", "all"): 4}, buckets)
    assert seconds == {"openalex:all": 10.0, "arxiv_api:all": 9.0}


def test_sources_benchmark_on_50_references() -> None:
    figures = sources_bench.run(references=50, concurrency=50)
    assert figures["references"] == 50
    assert sum(figures["verdicts"].values()) == 50
    assert figures["verdicts"].get("verified") == 50
    assert figures["requests_total"] > 0
    assert figures["bound_seconds_minimal_requests"] >= 0
    assert figures["wall_seconds"] > 0


def test_hallmark_benchmark_on_40_entries(shared_data: Path) -> None:
    figures = hallmark_bench.run(
        limit=40, dataset=shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"
    )
    assert figures["entries"] == 40
    assert figures["valid"] + figures["hallucinated"] == 40
    assert 0.0 <= figures["detected"]["detection_rate"] <= 1.0
    # Issue 12: every verdict counted once by tier and once by verification status.
    decided = 40 - figures["input_problems"]
    assert (
        sum(r["total"] for r in figures["by_tier"])
        == sum(figures["by_verification_status"].values())
        == decided
    )


def test_realbib_benchmark_on_a_few_entries(shared_data: Path) -> None:
    assert (shared_data / "documents" / "bibtex-real").is_dir()
    figures = realbib_bench.run(sets=(("d2l", ("d2l/d2l.bib",)),), limit=15)
    assert figures["references"] == 15
    assert sum(figures["statuses"].values()) == 15


def test_the_bench_command_is_registered() -> None:
    result = CliRunner().invoke(main, ["bench", "--help"])
    assert result.exit_code == 0
    for name in ("sources", "hallmark", "realbib", "speed"):
        assert name in result.output


def test_iclr_benchmark_on_20_references(shared_data: Path, tmp_path: Path) -> None:
    from aletheia.bench import iclr_bench

    base = shared_data / "benchmarks" / "iclr2026-real-bibliographies"
    if not base.is_dir():
        pytest.skip("the ICLR 2026 bibliographies are absent")
    tsv = tmp_path / "flagged.tsv"
    figures = iclr_bench.run(limit=20, report=tsv, base=base)
    assert figures["references"] == 20
    assert sum(figures["statuses"].values()) == 20
    assert figures["logic_version"]
    assert figures["non_scholarly_not_found"] == 0
    assert len(tsv.read_text(encoding="utf-8").splitlines()) == 1 + figures["flagged"]
    # Issue 12: counts by tier and verification status, and the non-scholarly ones by group.
    assert (
        sum(r["total"] for r in figures["by_tier"]) == sum(figures["by_verification_status"].values()) == 20
    )
    groups = figures["not_known_to_scholarly_apis"]
    assert sum(g["references"] for g in groups.values()) >= sum(figures["non_scholarly_statuses"].values())
    assert "all references by tier" in iclr_bench.format_report(figures)
    # Issue 21: the flagged share by where the records come from, adding up to the whole.
    origins = figures["flagged_by_record_origin"]
    assert sum(g["references"] for g in origins.values()) == 20
    assert sum(g["flagged"] for g in origins.values()) == figures["flagged"]
    assert "real record" in iclr_bench.format_report(figures)


def test_the_iclr_bench_says_when_its_data_is_absent(tmp_path: Path) -> None:
    from aletheia.bench import iclr_bench
    from aletheia.bench.common import DataMissing

    with pytest.raises(DataMissing):
        iclr_bench.run(limit=1, base=tmp_path / "nowhere")
