"""Titles: the decisive similarity rule, subtitles, placeholders."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.text import normalize_title
from aletheia.core.titles import (
    TITLE_THRESHOLD,
    is_placeholder_title,
    split_subtitle,
    title_similarity,
    titles_identical,
    titles_match,
)


def test_threshold_is_the_seed_value() -> None:
    assert TITLE_THRESHOLD == 0.92


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (
            "BERT: Pre-training of Deep Bidirectional Transformers",
            ("BERT", "Pre-training of Deep Bidirectional Transformers"),
        ),
        ("Dropout - A Simple Way to Prevent Overfitting", ("Dropout", "A Simple Way to Prevent Overfitting")),
        ("Dropout -- A Simple Way", ("Dropout", "A Simple Way")),
        ("Dropout --- A Simple Way", ("Dropout", "A Simple Way")),
        ("Dropout — A Simple Way", ("Dropout", "A Simple Way")),
        ("Dropout—A Simple Way", ("Dropout", "A Simple Way")),
        ("Dropout – A Simple Way", ("Dropout", "A Simple Way")),
        ("Is Attention Explanation? An Analysis", ("Is Attention Explanation?", "An Analysis")),
        ("A: B: C", ("A", "B: C")),
        (
            "Self-Supervised Learning of Pretext-Invariant Representations",
            ("Self-Supervised Learning of Pretext-Invariant Representations", None),
        ),
        ("Mixing 2:1 ratios in batches", ("Mixing 2:1 ratios in batches", None)),
        ("Trailing colon:", ("Trailing colon:", None)),
        (": leading colon", (": leading colon", None)),
        ("  spaced   out : title  ", ("spaced out", "title")),
        ("", ("", None)),
    ],
)
def test_split_subtitle(title: str, expected: tuple[str, str | None]) -> None:
    assert split_subtitle(title) == expected


@pytest.mark.parametrize(
    ("a", "b", "matches"),
    [
        ("Attention Is All You Need", "Attention is all you need.", True),
        ("{L}earning {T}ransferable {V}isual {M}odels", "Learning transferable visual models", True),
        ("Heged{\\H u}s graphs revisited", "Hegedűs Graphs Revisited", True),
        ("Reinforcement Learning: An Introduction", "Reinforcement Learning", True),
        (
            "Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks",
            "Sentence Embeddings using Siamese BERT-Networks",
            True,
        ),
        ("Dropout: A Simple Way to Prevent Neural Networks from Overfitting", "Dropout", False),
        # Both with subtitles: the subtitles are compared, not skipped.
        (
            "PLOT: Prompt Learning with Optimal Transport",
            "PLOT: Adversarial Pruning of Large Transformers",
            False,
        ),
        ("Learning to Summarize with Human Feedback", "Learning to Summarize from Human Feedback", False),
        ("Attention Is All You Need", "Attention Is Not All You Need", True),  # known limit of the ratio
        ("", "Attention Is All You Need", False),
        ("???", "???", False),
    ],
)
def test_titles_match(a: str, b: str, matches: bool) -> None:
    assert titles_match(a, b) is matches
    assert titles_match(b, a) is matches


def test_the_threshold_is_inclusive() -> None:
    # 46 equal characters out of 50: ratio 0.92 exactly.
    a = "a" * 46 + "bcde"
    b = "a" * 46 + "wxyz"
    assert title_similarity(a, b) == pytest.approx(0.92)
    assert titles_match(a, b)


def test_titles_identical_tolerates_only_normalisation() -> None:
    assert titles_identical(
        "{GraPPa}: Grammar-Augmented Pre-Training", "GraPPa: grammar-augmented pre-training."
    )
    assert not titles_identical(
        "Characterizing risk of fairwashing", "Characterizing the risk of fairwashing"
    )
    assert not titles_identical("", "")


@pytest.mark.parametrize(
    "title",
    [
        "Title",
        "[Title]",
        "Untitled",
        "Paper title",
        "Title of the paper",
        "TBD",
        "TODO",
        "N/A",
        "Insert title here",
        "Lorem ipsum dolor sit amet",
        "Title 2",
        "...",
        "",
        "Attention is all you...",
        "A Survey of Large Language Models for Code …",
        "Deep Learning for [...]",
    ],
)
def test_placeholder_titles(title: str) -> None:
    assert is_placeholder_title(title)


@pytest.mark.parametrize(
    "title",
    [
        "Attention Is All You Need",
        "Title: A Study of Headings in Scientific Articles",
        "Untitled Goose Game: Emergent Play",
        "TBD: Tensor-Based Decomposition",
        "On the Dangers of Stochastic Parrots: Can Language Models Be Too Big?",
        "Why Should I Trust You?",
        "Wait... What? Reading Between the Lines",
    ],
)
def test_real_titles_are_not_placeholders(title: str) -> None:
    assert not is_placeholder_title(title)


def test_none_is_a_placeholder() -> None:
    assert is_placeholder_title(None)


# --- properties -------------------------------------------------------------------------------

_TITLE_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=80) | st.lists(
    st.sampled_from(["Deep", "learning", "{BERT}", ":", "—", 'Schr{\\"o}dinger', "of", "the", "Graph", "?"]),
    max_size=12,
).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(_TITLE_TEXT, _TITLE_TEXT)
@example("Dropout: A Simple Way", "Dropout")
@example("a: b c", "b c")
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    forward = title_similarity(a, b)
    assert 0.0 <= forward <= 1.0
    assert forward == title_similarity(b, a)


@settings(max_examples=150, deadline=None)
@given(_TITLE_TEXT)
def test_a_title_matches_itself(title: str) -> None:
    if normalize_title(title):
        assert title_similarity(title, title) == 1.0
        assert titles_match(title, title)
        assert titles_identical(title, title)
    else:
        assert title_similarity(title, title) == 0.0


@settings(max_examples=150, deadline=None)
@given(_TITLE_TEXT)
def test_split_subtitle_keeps_the_words(title: str) -> None:
    main, subtitle = split_subtitle(title)
    assert bool(main) is bool(title.strip())
    if subtitle is not None:
        words = normalize_title(main).split() + normalize_title(subtitle).split()
        assert words == normalize_title(title).split()
    elif title.strip():
        assert main == " ".join(title.split())
