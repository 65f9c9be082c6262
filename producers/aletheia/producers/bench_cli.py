"""`aletheia bench {sources,hallmark,hallmark-limits,realbib,signals,speed,claims,formats,pdfrefs,
refstrings}`: run a benchmark and print its figures (docs/benchmarks.md has the commands, the
figures and the machine they were measured on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import click


def _emit(figures: dict[str, Any], report: str, json_path: Path | None) -> None:
    from aletheia.bench.common import dump

    click.echo(report)
    click.echo(f"machine: {figures['machine']}")
    if json_path is not None:
        json_path.write_text(dump(figures) + "\n", encoding="utf-8")


_JSON = click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the figures here.",
)


@click.group()
def bench() -> None:
    """Benchmarks against the loopback simulator (slow: minutes, not part of `make test`)."""
    import importlib.util

    # The benchmarks live in the checkout's bench/ folder and are not in the wheel.
    if importlib.util.find_spec("aletheia.bench") is None:
        raise click.ClickException(
            "the benchmarks are part of the source checkout (bench/aletheia/bench), not of the "
            "installed package: clone the repository and `pip install -e .` to run them"
        )


@bench.command()
@click.option("--references", type=click.IntRange(10), default=2000, show_default=True)
@click.option("--concurrency", type=click.IntRange(1), default=2000, show_default=True)
@click.option("--seed", type=int, default=3, show_default=True)
@click.option(
    "--sliding-window/--token-buckets",
    default=False,
    show_default=True,
    help="The simulator counts each documented 'N per second' over a sliding window (issue 11).",
)
@click.option(
    "--jitter-ms",
    type=click.FloatRange(0),
    default=0.0,
    show_default=True,
    help="Network jitter: each request reaches the simulator up to this much later.",
)
@_JSON
def sources(
    references: int,
    concurrency: int,
    seed: int,
    sliding_window: bool,
    jitter_ms: float,
    json_path: Path | None,
) -> None:
    """Issue 3: the documented limits, 70% DOI / 20% arXiv / 10% title-only references."""
    from aletheia.bench import sources_bench

    figures = sources_bench.run(
        references=references,
        concurrency=concurrency,
        seed=seed,
        sliding_window=sliding_window,
        jitter_ms=jitter_ms,
    )
    _emit(figures, sources_bench.format_report(figures), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N entries.")
@click.option(
    "--misses",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write misses and false positives (JSONL).",
)
@_JSON
def hallmark(limit: int | None, misses: Path | None, json_path: Path | None) -> None:
    """Issue 4: HALLMARK dev split accuracy (needs ../shared/data/benchmarks/hallmark-dev)."""
    from aletheia.bench import hallmark_bench

    figures = hallmark_bench.run(limit=limit, report_misses=misses)
    _emit(figures, hallmark_bench.format_report(figures), json_path)


@bench.command("mirror")
@click.option("--works", type=click.IntRange(100), default=20_000, show_default=True)
@_JSON
def mirror_load(works: int, json_path: Path | None) -> None:
    """Issue 32: the mirror's load speed and size on disk for each dump format, with projections."""
    from aletheia.bench import mirror_bench as bench_module

    figures = bench_module.run(works=works)
    _emit(figures, bench_module.format_report(figures), json_path)


@bench.command("hallmark-limits")
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N entries.")
@click.option(
    "--sliding-window/--unlimited",
    default=False,
    show_default=True,
    help="The simulator counts each documented rate over a sliding window; clients keep their limits.",
)
@click.option("--jitter-ms", type=click.FloatRange(0), default=0.0, show_default=True)
@click.option(
    "--concurrency",
    type=click.IntRange(1),
    default=128,
    show_default=True,
    help="References in flight (the engine's default).",
)
@click.option(
    "--verdicts",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write every entry's verdict (JSONL), to compare two runs reference by reference.",
)
@click.option(
    "--mirror-fraction",
    type=click.FloatRange(0, 1),
    default=None,
    help="Issue 32: load the DBLP, OpenAlex and Crossref dumps of the day by which this share of "
    "the universe's works had been recorded into a local mirror (complete as of that day; the "
    "works recorded since only in the APIs) and ask it before the APIs.",
)
@click.option(
    "--mirror-sample",
    is_flag=True,
    help="With --mirror-fraction: keep that share of the works chosen by a hash instead, dated the "
    "day before, not complete (it then never answers absence).",
)
@click.option(
    "--s2-corpus",
    type=click.IntRange(0),
    default=20000,
    show_default=True,
    help="Issue 32: papers Semantic Scholar holds beyond the universe (generated in the field's "
    "phrases), matched by its bulk search over titles and abstracts; 0: the universe alone.",
)
@_JSON
def hallmark_limits(
    limit: int | None,
    sliding_window: bool,
    jitter_ms: float,
    concurrency: int,
    verdicts: Path | None,
    mirror_fraction: float | None,
    mirror_sample: bool,
    s2_corpus: int,
    json_path: Path | None,
) -> None:
    """Issue 23: HALLMARK dev, every verdict written, optionally under the documented limits."""
    from aletheia.bench import hallmark_limits as bench_module

    figures = bench_module.run(
        limit=limit,
        sliding_window=sliding_window,
        jitter_ms=jitter_ms,
        concurrency=concurrency,
        verdicts_path=verdicts,
        mirror_fraction=mirror_fraction,
        mirror_sample=mirror_sample,
        s2_corpus=s2_corpus,
    )
    _emit(figures, bench_module.format_report(figures), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N entries of each file.")
@click.option(
    "--flagged", type=click.Path(dir_okay=False, path_type=Path), help="Write the flagged references (TSV)."
)
@click.option("--iclr", is_flag=True, help="The ICLR 2026 references (issue 10) instead of the BibTeX files.")
@click.option(
    "--llm-extracted",
    type=click.Choice(["sonnet46", "haiku45", "gemini31"]),
    default=None,
    help="With --iclr: the bibliographies as this LLM extracted them (same universe).",
)
@click.option("--noise/--no-noise", default=True, show_default=True, help="Apply the measured source noise.")
@click.option("--seed", type=int, default=10, show_default=True)
@_JSON
def realbib(
    limit: int | None,
    flagged: Path | None,
    iclr: bool,
    llm_extracted: str | None,
    noise: bool,
    seed: int,
    json_path: Path | None,
) -> None:
    """Issues 4 and 10: false alarms on real bibliographies (needs ../shared/data)."""
    if iclr or llm_extracted:
        from aletheia.bench import iclr_bench
        from aletheia.bench.common import DataMissing

        try:
            figures = iclr_bench.run(model_name=llm_extracted, limit=limit, seed=seed, report=flagged)
        except DataMissing as error:
            raise click.ClickException(str(error)) from None
        _emit(figures, iclr_bench.format_report(figures), json_path)
        return
    from aletheia.bench import realbib_bench

    try:
        figures = realbib_bench.run(limit=limit, report=flagged, noise=noise, seed=seed)
    except FileNotFoundError as error:
        raise click.ClickException(str(error)) from None
    _emit(figures, realbib_bench.format_report(figures), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N references.")
@click.option(
    "--flagged", type=click.Path(dir_okay=False, path_type=Path), help="Write the flagged references (TSV)."
)
@click.option(
    "--arxiv-copies",
    is_flag=True,
    help="Serve arXiv from the works' fields (a one-version history the recording does not hold).",
)
@_JSON
def realrecords(limit: int | None, flagged: Path | None, arxiv_copies: bool, json_path: Path | None) -> None:
    """Issue 28: precision on real source records, served verbatim (needs ../shared/data)."""
    from aletheia.bench import realrecords_bench
    from aletheia.bench.common import DataMissing

    try:
        figures = realrecords_bench.run(limit=limit, report=flagged, arxiv_copies=arxiv_copies)
    except DataMissing as error:
        raise click.ClickException(str(error)) from None
    _emit(figures, realrecords_bench.format_report(figures), json_path)


@bench.command()
@click.option("--iclr", is_flag=True, help="Also verify the ICLR 2026 references and count every signal.")
@_JSON
def signals(iclr: bool, json_path: Path | None) -> None:
    """Issue 13: how often `ai_generated_suspect` fires on real papers and records (needs ../shared)."""
    from aletheia.bench import signals_bench

    try:
        figures = signals_bench.run(iclr=iclr)
    except FileNotFoundError as error:
        raise click.ClickException(str(error)) from None
    _emit(figures, signals_bench.format_report(figures), json_path)


@bench.command()
@click.option(
    "--sizes", default="10000,100000", show_default=True, help="Comma-separated numbers of entries."
)
@click.option(
    "--cpu",
    type=int,
    default=0,
    show_default=True,
    help="Pin `aletheia verify` to this core (-1: no pinning).",
)
@_JSON
def speed(sizes: str, cpu: int, json_path: Path | None) -> None:
    """Issue 4: references per second on one core and peak memory, unthrottled simulator."""
    from aletheia.bench import speed_bench

    figures = speed_bench.run(
        sizes=tuple(int(s) for s in sizes.split(",") if s.strip()), cpu=None if cpu < 0 else cpu
    )
    _emit(figures, speed_bench.format_report(figures), json_path)


def _require_claim_data(figures: dict[str, Any]) -> None:
    if all("skipped" in value for value in figures["sets"].values()):
        raise click.ClickException("no claim data set found under ../shared/data/benchmarks")


@bench.command()
@click.option(
    "--split",
    type=click.Choice(["held_out", "dev"]),
    default="held_out",
    show_default=True,
    help="held_out: each set's test file (no longer blind: docs/benchmarks.md says how it was read);"
    " dev: train + dev.",
)
@click.option(
    "--mode",
    type=click.Choice(["both", "named", "search"]),
    default="both",
    show_default=True,
    help="named: each (claim, paper) pair judged as `cite --paper` does; search: the claim alone, the"
    " set's corpus searched as `cite` searches the sources (issue 29); both: one after the other.",
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    default=None,
    help="Only the first N pairs (claims, searching) of each set.",
)
@click.option(
    "--misses",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the contradicted pairs that were cited (JSONL; named mode).",
)
@click.option(
    "--cases",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write every wrong citation and every contradiction refusal of the search mode (JSONL).",
)
@_JSON
def claims(
    split: str, mode: str, limit: int | None, misses: Path | None, cases: Path | None, json_path: Path | None
) -> None:
    """Issues 19 and 29: contradicted and supported pairs cited by the offline judge with the paper
    named, and the citations written when searching (SciFact, Citation-Integrity; needs
    ../shared/data/benchmarks)."""
    import json

    from aletheia.bench import claims_bench, claims_search_bench
    from aletheia.bench.common import machine

    chosen: Literal["dev", "held_out"] = "dev" if split == "dev" else "held_out"
    figures: dict[str, Any] = {}
    reports: list[str] = []
    if mode in ("both", "named"):
        named = claims_bench.run(split=chosen, limit=limit)
        _require_claim_data(named)
        if misses is not None:
            lines = [json.dumps(row, ensure_ascii=False) for row in named["contradicted_cited"]]
            misses.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        figures["named"] = named
        reports.append(claims_bench.format_report(named))
    if mode in ("both", "search"):
        searched = claims_search_bench.run_search(split=chosen, limit=limit)
        _require_claim_data(searched)
        if cases is not None:
            claims_search_bench.write_cases(searched, cases)
        figures["search"] = searched
        reports.append(claims_search_bench.format_search_report(searched))
    figures["machine"] = machine()
    _emit(figures, "\n\n".join(reports), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N entries of each set.")
@click.option(
    "--sets", default="iclr,hallmark", show_default=True, help="Comma-separated: iclr (ICLR 2026), hallmark."
)
@click.option(
    "--formats",
    default="bib,bbl-plain,bbl-ieeetr,pandoc-txt,pandoc-md,pdf-plainnat,ris,endnote-xml,zotero-rdf,docx",
    show_default=True,
    help="Comma-separated; bib (the baseline) always runs.",
)
@click.option(
    "--csl",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A CSL style for pandoc (default: pandoc's built-in Chicago author-date).",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the rendered files (.bib, .bbl, .txt, .md, .pdf) in this folder, one subfolder per set.",
)
@click.option(
    "--diffs",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write every entry whose verdict class differs from the .bib run (JSONL).",
)
@_JSON
def formats(
    limit: int | None,
    sets: str,
    formats: str,
    csl: Path | None,
    keep: Path | None,
    diffs: Path | None,
    json_path: Path | None,
) -> None:
    """Issue 20: the same references as .bib, .bbl (bibtex plain, ieeetr), a pandoc --citeproc
    list and a plainnat PDF (issue 28) get the same verdicts (needs bibtex, pandoc, pdflatex and
    ../shared/data/benchmarks). Issue 30: and as RIS, EndNote XML, Zotero RDF (written from
    pandoc's CSL-JSON) and a Word .docx."""
    from aletheia.bench import formats_bench, formats_render, formats_score
    from aletheia.bench.common import DataMissing

    try:
        figures = formats_bench.run(
            sets=[s.strip() for s in sets.split(",") if s.strip()],
            formats=[f.strip() for f in formats.split(",") if f.strip()],
            limit=limit,
            csl=csl,
            keep=keep,
            diffs_path=diffs,
        )
    except (DataMissing, formats_render.ToolMissing, ValueError) as error:
        raise click.ClickException(str(error)) from None
    _emit(figures, formats_score.format_report(figures), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N unarXive papers.")
@_JSON
def pdfrefs(limit: int | None, json_path: Path | None) -> None:
    """Issue 20: references read from real PDFs, per paper: the arXiv/ACL PDFs against the lists
    they print, and the unarXive papers printed by Chromium against their own reference lists
    (needs ../shared/data/documents; the unarXive part needs chromium)."""
    from aletheia.bench import pdfrefs_bench

    figures = pdfrefs_bench.run(limit=limit)
    _emit(figures, pdfrefs_bench.format_report(figures), json_path)


@bench.command()
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N works.")
@_JSON
def refstrings(limit: int | None, json_path: Path | None) -> None:
    """Issue 20: authors, year and title read from one reference string, in 8 citation styles
    (Crossref's reference-matching data in ../shared/data/benchmarks)."""
    from aletheia.bench import refstrings_bench

    figures = refstrings_bench.run(limit=limit)
    _emit(figures, refstrings_bench.format_report(figures), json_path)
