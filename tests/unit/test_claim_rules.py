"""The claim rule table, the citation markers and the sentence finder (aletheia.core.claim_text)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.core.claim_rules import CITATION_MARKERS, CLAIM_MAKING_STYLES, CLAIM_RULES
from aletheia.core.claim_text import find_citations, find_claims, find_unsupported_claims, judged_sentence
from aletheia.core.research_prose import iter_sentences, prose_mask, text_format

# One sentence each rule must catch, and one it must not.
RULE_CASES = {
    "complexity_bound": ("Merge sort needs O(n log n) comparisons.", "The O-ring failed."),
    "hardness": ("Graph colouring is NP-hard.", "The rock is hard."),
    "proven": ("This bound was proven tight.", "We read the proof."),
    "optimal": ("The estimator is minimax optimal.", "Find the optimal times to apply them."),
    "state_of_the_art": ("Transformers are state-of-the-art in translation.", "The art of the state."),
    "outperforms": ("Boosting outperforms bagging on tabular data.", "Boosting performs well."),
    "first_to": ("Turing was the first to formalise computation.", "The first one holds five projects."),
    "percentage": ("Accuracy reached 94.5% on ImageNet.", "Version 94 was released."),
    "quantity_with_unit": ("Inference takes 12 ms per image.", "There are 12 images."),
    "speedup": ("The kernel is 3x faster than cuBLAS.", "The kernel is faster."),
    "consensus": ("Studies have shown that sleep improves memory.", "Sleep improves memory."),
}


def test_every_rule_has_a_case() -> None:
    assert {r.name for r in CLAIM_RULES} == set(RULE_CASES)


@pytest.mark.parametrize("rule", CLAIM_RULES, ids=lambda r: r.name)
def test_rule_row_catches_its_case_and_not_the_other(rule) -> None:  # type: ignore[no-untyped-def]
    positive, negative = RULE_CASES[rule.name]
    assert rule.compiled.search(positive), positive
    assert not rule.compiled.search(negative), negative
    hits = {t.rule for f in find_claims(positive) for t in f.triggers}
    assert rule.name in hits


MARKER_CASES = {
    "latex_cite": (r"as shown~\citep[p.~3]{knuth97, cormen}", ("knuth97", "cormen")),
    "pandoc_brackets": ("as shown [see @knuth97, p. 3; -@cormen]", ("knuth97", "cormen")),
    "pandoc_in_text": ("as @knuth97 shows", ("knuth97",)),
    "markdown_footnote": ("as shown[^alie].", ("alie",)),
    "numeric_brackets": ("as shown [1, 3-5]", ("1", "3", "4", "5")),
    "author_year_parenthetical": (
        "as shown (Vaswani et al., 2017; Devlin et al., 2019a, 2020)",
        ("Vaswani 2017", "Devlin 2019", "Devlin 2020"),
    ),
    "author_year_narrative": ("Smith and Jones (2019) showed it", ("Smith 2019",)),
}


def test_every_marker_has_a_case() -> None:
    assert {m.name for m in CITATION_MARKERS} == set(MARKER_CASES)


@pytest.mark.parametrize("name", sorted(MARKER_CASES))
def test_marker_row_reads_its_keys(name: str) -> None:
    text, keys = MARKER_CASES[name]
    found = find_citations(text)
    assert [(c.marker, c.keys) for c in found] == [(name, keys)]


def test_not_citations() -> None:
    assert find_citations("mail me at a@b.org, see [the docs](https://x.org/[1]) and $x[2](y)$") == []
    assert find_citations("a link [text](https://example.org)") == []
    # Quarto and pandoc-crossref cross-references: labels in the document, not references.
    assert find_citations("The data in @tbl-summary and [@fig:plot; @sec-methods] are public.") == []
    assert [c.keys for c in find_citations("As [@fig-1; @smith2020] show.")] == [("smith2020",)]


def test_latex_document() -> None:
    text = (
        "\\documentclass{article}\n% O(n^2) in a comment is not a claim\n\\begin{document}\n"
        "\\section{Introduction}\n"
        "Sorting takes $O(n \\log n)$ comparisons~\\cite{knuth}. "
        "Our method outperforms all baselines by 12\\%.\n"
        "It is well known that the problem is NP-hard. See e.g. Fig. 3 for details.\n"
        "\\begin{equation} T(n) = O(n) \\end{equation}\n"
        "\\begin{thebibliography}{1}\\bibitem{knuth} D. Knuth. 99\\% of sorting. 1998."
        "\\end{thebibliography}\n"
        "\\end{document}\n"
    )
    found = find_claims(text, fmt="latex")
    assert [f.line for f in found] == [5, 5, 6]
    cited, own, unsupported = found
    assert cited.citations[0].keys == ("knuth",) and not cited.unsupported
    assert own.own_work and not own.unsupported
    assert unsupported.unsupported and {t.rule for t in unsupported.triggers} == {"proven", "hardness"}
    assert [f.sentence for f in find_unsupported_claims(text, fmt="latex")] == [unsupported.sentence]


def test_markdown_document() -> None:
    text = (
        "---\ntitle: x\nbibliography: refs.bib\n---\n# Introduction 99%\n\n"
        "Quicksort runs in O(n log n) expected time [@hoare1962]. It beats heapsort in 90% of cases.\n\n"
        "```\nx = 50% of O(n)\n```\n\n"
        "A footnoted claim outperforms others[^alie].\n\n[^alie]: It is 3x faster than Foo.\n\n"
        "## References\n\n1. Somebody (2020). 99% of everything.\n"
    )
    found = find_claims(text, fmt="markdown")
    assert [(f.line, f.unsupported) for f in found] == [(7, False), (7, True), (13, False)]
    assert found[0].citations[0].keys == ("hoare1962",)


def test_plain_text_stops_at_the_references() -> None:
    text = (
        "Gradient boosting outperforms random forests [1].\nThe fastest solver runs in 3 s.\n\n"
        "References\n[1] X. Y. 50% faster than anything else. 2020.\n"
    )
    found = find_claims(text)
    assert [(f.line, bool(f.citations)) for f in found] == [(1, True), (2, False)]


def test_abbreviations_do_not_end_sentences() -> None:
    prose = "Smith et al. showed it. See Fig. 2 and J. Doe, i.e. the others. Next one."
    assert [prose[a:b] for a, b in iter_sentences(prose)] == [
        "Smith et al. showed it.",
        "See Fig. 2 and J. Doe, i.e. the others.",
        "Next one.",
    ]


def test_text_format() -> None:
    assert text_format("x", "a.tex") == "latex"
    assert text_format("# T\n\nbody", "a.txt") == "plain"
    assert text_format("\\section{A} body") == "latex"
    assert text_format("see [@key] here") == "markdown"
    assert text_format("just words") == "plain"


@given(st.text(max_size=400), st.sampled_from(["latex", "markdown", "plain"]))
@example("\\begin{document}\n$$x$$ % c\n\\bibliography{r}", "latex")
@example("---\na: b\n---\n```\ncode", "markdown")
@example("Plain words with no trigger [@key] here.", "markdown")
def test_mask_keeps_offsets_and_lines(text: str, fmt: str) -> None:
    masked = prose_mask(text, fmt)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    for finding in find_claims(text, fmt=fmt):
        assert 0 <= finding.start < finding.end <= len(text)
        assert finding.line == text.count("\n", 0, finding.start) + 1
        # A claim is a sentence a rule caught, or one that cites (issue 19).
        assert finding.triggers or any(c.style in CLAIM_MAKING_STYLES for c in finding.citations)


def test_author_year_as_pdf_text_spaces_it() -> None:
    found = find_citations("new SOTA on ACL ARC (Cohan et al. , 2019), and SciERC (Luan et al. , 2018 ).")
    assert [c.keys for c in found] == [("Cohan 2019",), ("Luan 2018",)]


def test_numbers_under_a_non_literature_heading_are_the_documents_own() -> None:
    text = (
        "# Introduction\n\nPrior detectors reach 91% accuracy on this benchmark.\n\n"
        "# Setup\n\nEach epoch took about 13 hours on one GPU.\n"
        "Boosting outperforms bagging on these tables.\n\n"
        "# Results\n\nBoosting outperforms bagging by 4%.\n"
    )
    found = {f.line: (f.own_work, f.section) for f in find_claims(text, fmt="markdown")}
    assert found == {
        3: (False, "Introduction"),  # a number about the literature needs its source
        7: (True, "Setup"),
        8: (False, "Setup"),  # a comparison outside a results section still needs one
        12: (True, "Results"),
    }


# --- issue 19: a sentence that cites a paper is a claim ---------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "sentence", "keys"),
    [
        ("latex", "Spectral warm starts shrink the edge cut~\\cite{virtanen2022}.", ("virtanen2022",)),
        ("markdown", "Spectral warm starts shrink the edge cut [@virtanen2022].", ("virtanen2022",)),
        ("plain", "Spectral warm starts shrink the edge cut [4].", ("4",)),
        ("plain", "Spectral warm starts shrink the edge cut (Virtanen et al., 2022).", ("Virtanen 2022",)),
        (
            "plain",
            "Virtanen and Mensah (2022) shrink the edge cut with spectral warm starts.",
            ("Virtanen 2022",),
        ),
    ],
)
def test_a_sentence_with_a_citation_marker_is_a_claim(fmt: str, sentence: str, keys: tuple[str, ...]) -> None:
    text = f"\\begin{{document}}\n{sentence}\n\\end{{document}}\n" if fmt == "latex" else sentence + "\n"
    (finding,) = find_claims(text, fmt=fmt)
    assert finding.triggers == ()  # no rule catches it: the marker alone makes it a claim
    assert [c.keys for c in finding.citations] == [keys]
    assert finding.needs_citation and not finding.own_work and not finding.unsupported
    assert find_unsupported_claims(text, fmt=fmt) == []


def test_own_work_that_cites_is_a_claim_and_own_work_that_does_not_is_not() -> None:
    text = (
        "# Method\n\nWe follow the trimming protocol of Halvorsen et al. [2].\n"
        "Our method outperforms every baseline by 12%.\n"
        "We use the same protocol for all runs.\n"
    )
    found = {f.line: f for f in find_claims(text, fmt="markdown")}
    assert sorted(found) == [3, 4]  # line 5: no trigger, no marker: not a claim
    assert not found[3].own_work and found[3].needs_citation  # it says what [2] should bear out
    assert found[4].own_work and not found[4].citations  # unchanged: the document's own result


def test_markers_that_do_not_make_a_claim() -> None:
    text = (
        "The shown value holds a footnote only[^note].\n\n"
        "The array `a[3]` holds the third value.\n\n"
        "The entry $a[3]$ holds the third value.\n\n"
        "[^note]: A remark, not a reference.\n"
    )
    assert find_claims(text, fmt="markdown") == []
    # The footnote still counts as the citation of a sentence a rule caught.
    (caught,) = find_claims("Boosting outperforms bagging on these tables[^note].\n", fmt="markdown")
    assert [c.style for c in caught.citations] == ["footnote"] and not caught.unsupported


@pytest.mark.parametrize(
    ("fmt", "text", "judged"),
    [
        (
            "latex",
            "\\begin{document}\nSpectral warm starts \\emph{shrink} the cut by 12\\%~\\cite{a,b} "
            "(see Section~\\ref{sec:x}).\n\\end{document}\n",
            "Spectral warm starts shrink the cut by 12% (see Section).",
        ),
        ("latex", "\\begin{document}\nSorting takes $O(n \\log n)$ time (\\cite{knuth}).\n\\end{document}",
         "Sorting takes O(n log n) time."),
        ("markdown", "Warm starts [help](https://x.org) on road networks [@a; @b].\n",
         "Warm starts help on road networks."),
        ("plain", "Warm starts shrink the cut (Virtanen et al., 2022) on road networks [4, 5].\n",
         "Warm starts shrink the cut on road networks."),
    ],
)  # fmt: skip
def test_judged_sentence_cuts_the_markers_and_the_markup(fmt: str, text: str, judged: str) -> None:
    (finding,) = find_claims(text, fmt=fmt)
    assert judged_sentence(text, finding) == judged
