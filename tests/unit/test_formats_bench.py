"""Issue 20's formats benchmark harness (`aletheia bench formats`): three hand-written entries
rendered by the real `bibtex` and `pandoc --citeproc`, read back as `aletheia verify` reads them
and matched to their `.bib` keys; and the whole harness on a few HALLMARK entries (../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.bench import formats_bench, formats_score
from aletheia.bench.formats_render import FORMATS, entry_of, missing_tools, render, write_bib
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_title

# Three classics whose renderings hit the defects: a given name with an initial
# ("Diederik~P." in a .bbl), a long author list (Chicago inverts only the first name), a 1948 journal
# article with a DOI (plain.bst and ieeetr.bst print no DOI).
ENTRIES = {
    "kingma2015adam": (
        "@inproceedings{kingma2015adam,\n  title = {Adam: A Method for Stochastic Optimization},\n"
        "  author = {Kingma, Diederik P. and Ba, Jimmy},\n"
        "  booktitle = {International Conference on Learning Representations},\n  year = {2015},\n}\n"
    ),
    "goodfellow2014gan": (
        "@inproceedings{goodfellow2014gan,\n  title = {Generative Adversarial Nets},\n"
        "  author = {Goodfellow, Ian J. and Pouget-Abadie, Jean and Mirza, Mehdi and Xu, Bing and "
        "Warde-Farley, David and Ozair, Sherjil and Courville, Aaron and Bengio, Yoshua},\n"
        "  booktitle = {Advances in Neural Information Processing Systems},\n  year = {2014},\n}\n"
    ),
    "shannon1948": (
        "@article{shannon1948,\n  title = {A Mathematical Theory of Communication},\n"
        "  author = {Shannon, Claude E.},\n  journal = {Bell System Technical Journal},\n"
        "  volume = {27},\n  number = {3},\n  pages = {379--423},\n  year = {1948},\n"
        "  doi = {10.1002/j.1538-7305.1948.tb01338.x},\n}\n"
    ),
}
TITLES = {
    "kingma2015adam": "Adam: A Method for Stochastic Optimization",
    "goodfellow2014gan": "Generative Adversarial Nets",
    "shannon1948": "A Mathematical Theory of Communication",
}
YEARS = {"kingma2015adam": 2015, "goodfellow2014gan": 2014, "shannon1948": 1948}
FAMILIES = {
    "kingma2015adam": ["kingma", "ba"],
    "goodfellow2014gan": [
        *("goodfellow", "pouget-abadie", "mirza", "xu", "warde-farley", "ozair", "courville", "bengio")
    ],
    "shannon1948": ["shannon"],
}


def _read_back(fmt: str, tmp_path: Path) -> dict[str, list[CitedReference]]:
    missing = missing_tools([fmt])
    if missing:
        pytest.skip(
            f"not installed: {', '.join(missing)} (apt-get install texlive-binaries texlive-base pandoc)"
        )
    bib = write_bib(list(ENTRIES.items()), tmp_path)
    rendered = render(bib, list(ENTRIES), fmt)
    assert sorted(rendered.keys) == sorted(ENTRIES)
    refs, problems = formats_bench.read_rendered(rendered.path, 10_000_000)
    assert problems == 0
    by_key: dict[str, list[CitedReference]] = {}
    for ref in refs:
        key = entry_of(ref, rendered, frozenset(ENTRIES))
        assert key is not None, f"{ref.origin} matched no entry"
        by_key.setdefault(key, []).append(ref)
    return by_key


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_rendered_entry_is_read_once_with_its_year(fmt: str, tmp_path: Path) -> None:
    by_key = _read_back(fmt, tmp_path)
    assert {key: len(refs) for key, refs in by_key.items()} == dict.fromkeys(ENTRIES, 1)
    for key, refs in by_key.items():
        assert refs[0].year == YEARS[key], (fmt, key, refs[0])


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_rendered_entry_is_read_with_its_title_and_authors(fmt: str, tmp_path: Path) -> None:
    """Issue 20: "Ian~J. Goodfellow" in a .bbl was read as author "J Ian" with the co-authors as the
    title; Chicago's inverted "Kingma, Diederik P., and Jimmy Ba" as authors "Kingma" and "Diederik
    P."."""
    by_key = _read_back(fmt, tmp_path)
    for key, refs in by_key.items():
        ref = refs[0]
        assert normalize_title(ref.title or "") == normalize_title(TITLES[key]), (fmt, key, ref)
        families = [(a.family or a.literal or "").casefold() for a in ref.authors]
        assert families == FAMILIES[key], (fmt, key, ref)


@pytest.mark.slow
def test_the_benchmark_on_a_few_hallmark_entries(shared_data: Path) -> None:
    missing = missing_tools(FORMATS)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    figures = formats_bench.run(sets=("hallmark",), limit=12)
    per_format = figures["sets"]["hallmark"]["formats"]
    assert list(per_format) == list(FORMATS)
    for fmt, f in per_format.items():
        assert f["entries"] == 12 - figures["sets"]["hallmark"]["left_out_input_problems"]
        assert f["genuine"] + f["planted"] == f["entries"]
        assert sum(f["classes"].values()) == f["entries"]
        if fmt != "bib":
            assert 0 <= f["same_class"] <= f["entries"]
    assert "same_class" not in per_format["bib"]
    assert "| bbl-ieeetr |" in formats_score.format_report(figures)


def test_the_second_figure_leaves_out_only_entries_resting_on_dropped_identifiers() -> None:
    """The main figure counts every entry; the second leaves out an entry only when the `.bib`
    reference without the identifiers the format lost gets another class (a planted invented DOI
    that `plain.bst` does not print), never merely because the format differs."""
    from aletheia.bench.formats_evidence import (
        dropped_identifiers,
        without_evidence,
        without_identifiers,
    )

    bib = CitedReference(
        key="a", title="T", doi="10.1/x", url="https://huggingface.co/m", fields={"doi": "10.1/x", "url": "u"}
    )
    read = CitedReference(key="a", title="T", url="https://huggingface.co/m")
    assert dropped_identifiers(bib, [read]) == ("doi",)
    stripped = without_identifiers(bib, ("doi",))
    assert stripped.doi is None and stripped.url == bib.url and "doi" not in stripped.fields
    keys = ["doi-evidence", "parse-error", "same"]
    base = {"doi-evidence": "flagged", "parse-error": "verified", "same": "verified"}
    classes = {"doi-evidence": "verified", "parse-error": "flagged", "same": "verified"}
    # Without its DOI, "doi-evidence" is verified in .bib too; "parse-error" lost its DOI but its
    # .bib class does not rest on it: it stays in.
    figure = without_evidence(keys, classes, base, {"doi-evidence": "verified", "parse-error": "verified"})
    assert (figure["left_out"], figure["entries"], figure["same_class"]) == (1, 2, 1)
    assert (figure["flagged"], figure["bib_flagged"]) == (1, 0)


def test_the_command_runs_every_format_by_default() -> None:
    """`aletheia bench formats` without `--formats` runs every row (the plainnat PDF one included)."""
    from aletheia.producers import bench_cli

    option = next(p for p in bench_cli.formats.params if p.name == "formats")
    assert option.default == ",".join(FORMATS)
