"""The tolerant verbatim-excerpt check, sentence splitting and lexical ranking (core.excerpts)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.artifacts import excerpt_verifies
from aletheia.core.excerpts import (
    PaperText,
    TextBlock,
    locate_excerpt,
    match_key,
    split_sentences,
    strip_quote_marks,
)
from aletheia.core.lexical_ranking import content_terms, coverage, polarity_conflict, rank_sentences, stem


def paper(*blocks: TextBlock) -> PaperText:
    return PaperText(blocks=blocks, origin="pdf_text")


PDF_PAGE = TextBlock(
    text="The coefﬁcient of the ﬂow is esti-\nmated from “ﬁeld” data — see the\n"
    "appendix for state-of-the-\nart baselines.",
    section="2 Method",
    page=3,
)


def test_whitespace_rule_of_the_seed() -> None:
    text = paper(
        TextBlock(
            text="We   evaluate 15 attacks\nand 17 defenses in a unified benchmark.", section="Abstract"
        )
    )
    found = locate_excerpt("We evaluate 15 attacks and 17 defenses", text)
    assert found is not None
    assert found.text == "We evaluate 15 attacks and 17 defenses"
    assert found.location == "Abstract"


def test_ligatures_hyphenation_quotes_and_dashes() -> None:
    found = locate_excerpt(
        'The coefficient of the flow is estimated from "field" data - see the appendix', paper(PDF_PAGE)
    )
    assert found is not None
    assert found.page == 3
    assert found.location == "Section 2 Method, p. 3"
    # The stored quote is the paper's own text, which passes the seed's strict rule against it.
    assert excerpt_verifies(found.text, PDF_PAGE.text)


def test_compound_broken_at_a_line_end() -> None:
    assert locate_excerpt("appendix for state-of-the-art baselines", paper(PDF_PAGE)) is not None


def test_a_changed_word_fails_and_is_not_repaired() -> None:
    assert locate_excerpt("The coefficient of the flow is measured from field data", paper(PDF_PAGE)) is None


def test_case_and_punctuation_are_not_tolerated() -> None:
    assert locate_excerpt("the coefficient of the flow is estimated", paper(PDF_PAGE)) is None
    assert locate_excerpt("The coefficient of the flow, is estimated", paper(PDF_PAGE)) is None


def test_too_short_quotes_prove_nothing() -> None:
    assert locate_excerpt("the flow", paper(PDF_PAGE)) is None
    assert locate_excerpt("   ", paper(PDF_PAGE)) is None


def test_surrounding_quote_marks_are_not_part_of_the_quote() -> None:
    assert strip_quote_marks("“ “quoted text” ”") == "quoted text"
    assert locate_excerpt('"The coefficient of the flow"', paper(PDF_PAGE)) is not None


def test_a_quote_running_onto_the_next_page() -> None:
    text = paper(
        TextBlock(text="Our results hold for every", section="4 Results", page=4),
        TextBlock(text="network we tested, large or small.", section="4 Results", page=5),
    )
    found = locate_excerpt("Our results hold for every network we tested", text)
    assert found is not None
    assert (found.page, found.end_page) == (4, 5)
    assert found.location == "Section 4 Results, pp. 4-5"


def test_paragraph_locations_for_html() -> None:
    text = PaperText(
        blocks=(
            TextBlock(text="First paragraph of the abstract.", section="Abstract", paragraph=1),
            TextBlock(text="Second paragraph says something specific.", section="Abstract", paragraph=2),
        ),
        origin="arxiv_html",
    )
    found = locate_excerpt("Second paragraph says something specific.", text)
    assert found is not None and found.location == "Abstract, paragraph 2"


def test_match_key_folds_only_extraction_artefacts() -> None:
    assert match_key("ﬁne  “quote”\u00ad here") == 'fine "quote" here'
    assert match_key("exam-\n  ple") == match_key("example") == "example"
    assert match_key("a - b") == "a - b"  # a spaced dash is punctuation, not a hyphenation


_WORDS = st.text(alphabet="abcdefghijKLMNOPqrstuvwxyzéßﬁ0123456789", min_size=1, max_size=8)
_SEPARATORS = st.sampled_from([" ", "\n", "  ", " \n ", "-\n", "\t"])


@given(
    words=st.lists(_WORDS, min_size=4, max_size=40),
    separators=st.lists(_SEPARATORS, min_size=40, max_size=40),
    data=st.data(),
)
def test_every_verbatim_run_of_words_is_found(
    words: list[str], separators: list[str], data: st.DataObject
) -> None:
    text = words[0] + "".join(sep + word for sep, word in zip(separators, words[1:], strict=False))
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    quote = words[start] + "".join(
        sep + word for sep, word in zip(separators[start:], words[start + 1 : end], strict=False)
    )
    found = locate_excerpt(quote, paper(TextBlock(text=text)))
    if len(match_key(quote)) >= 12:
        assert found is not None
        assert excerpt_verifies(found.text, text)
    else:
        assert found is None


@given(words=st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=3, max_size=30))
def test_a_word_absent_from_the_text_never_matches(words: list[str]) -> None:
    text = " ".join(words)
    assert locate_excerpt(" ".join([*words[:2], "omega", *words[2:3]]), paper(TextBlock(text=text))) is None


def test_sentences() -> None:
    text = "Baruch et al. show that ALIE works. Fig. 3 reports 3.5 points (p < 0.05). J. Smith agrees! Done"
    assert split_sentences(text) == [
        "Baruch et al. show that ALIE works.",
        "Fig. 3 reports 3.5 points (p < 0.05).",
        "J. Smith agrees!",
        "Done",
    ]
    assert split_sentences("  ") == []


def test_terms_and_stemming() -> None:
    assert stem("increases") == stem("increased") == stem("increasing") == "increas"
    assert stem("analysis") == "analysis"
    assert content_terms("The ALIE attack perturbs honest updates") == [
        "alie",
        "attack",
        "perturb",
        "honest",
        "updat",
    ]
    assert coverage(content_terms("honest updates"), "Updates were honest.") == 1.0
    assert coverage([], "anything") == 0.0


def test_bm25_ranks_the_matching_sentence_first() -> None:
    ranked = rank_sentences(
        "the ALIE attack perturbs honest updates",
        [
            "Nothing relevant is here.",
            "Updates can be honest.",
            "The ALIE attack perturbs the honest updates.",
        ],
    )
    assert [r.index for r in ranked] == [2, 1]
    assert ranked[0].coverage == 1.0
    assert rank_sentences("", ["a sentence"]) == []


def test_polarity() -> None:
    assert polarity_conflict("Vitamin D reduces fractures", "Vitamin D did not reduce fractures")
    assert not polarity_conflict("Vitamin D does not reduce fractures", "No reduction in fractures was seen")
    assert not polarity_conflict("Vitamin D reduces fractures", "Fractures were reduced by vitamin D")


@pytest.mark.parametrize(
    ("claim", "sentence", "conflict"),
    [
        ("Aspirin increases bleeding risk", "Aspirin decreased the bleeding risk in trials", True),
        ("Aspirin increases bleeding risk", "Aspirin increased the bleeding risk", False),
        ("More sleep improves memory", "Less sleep worsens memory", False),  # two flips cancel
        ("Statins lower LDL cholesterol", "Statins did not lower LDL cholesterol", True),
        ("Statins lower LDL cholesterol", "Statins raised LDL cholesterol", True),
        ("The drug promotes tumour growth", "The drug inhibits tumour growth", True),
        ("The drug promotes tumour growth", "Tumour growth was measured", False),
    ],
)
def test_polarity_conflict_counts_flips(claim: str, sentence: str, conflict: bool) -> None:
    assert polarity_conflict(claim, sentence) is conflict
