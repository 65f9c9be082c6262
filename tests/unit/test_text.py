"""aletheia.core.latex and .text: LaTeX to Unicode and the folded comparison forms of titles and names."""

from __future__ import annotations

import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core import latex as latex_module
from aletheia.core.latex import latex_to_unicode
from aletheia.core.text import fold, fold_name, normalize_title, normalize_whitespace, strip_accents

# (LaTeX as BibTeX files write it, the Unicode a reader sees)
LATEX_CASES = [
    (r"Heged{\H u}s", "Hegedűs"),
    (r"Heged{\H{u}}s", "Hegedűs"),
    (r"Erd{\H{o}}s", "Erdős"),
    (r"Sch{\"o}lkopf", "Schölkopf"),
    (r"Sch\"{o}lkopf", "Schölkopf"),
    (r"Sch\"olkopf", "Schölkopf"),
    (r"L{\'e}on Bottou", "Léon Bottou"),
    (r"L\'{e}on", "Léon"),
    (r"{\'{E}}cole", "École"),
    (r"Fran\c{c}ois", "François"),
    (r"Fran\c cois", "François"),
    (r"Stra\ss{}e", "Straße"),
    (r"{\o}ksendal", "øksendal"),
    (r"Bj{\o}rn", "Bjørn"),
    (r"{\L}ukasz Kaiser", "Łukasz Kaiser"),
    (r"Micha{\l}", "Michał"),
    (r"\v{S}koda and \v{C}ech", "Škoda and Čech"),
    (r"Ne\v{c}as", "Nečas"),
    (r"Mu{\~n}oz", "Muñoz"),
    (r"Ca{\~{n}}ete", "Cañete"),
    (r"G{\"u}nnemann", "Günnemann"),
    (r"{\aa}ngstr{\"o}m", "ångström"),
    (r"na{\"\i}ve", "naïve"),
    (r"Kr\k{e}towski", "Krętowski"),
    (r"Data Mining \& Knowledge Discovery", "Data Mining & Knowledge Discovery"),
    (r"Top 1\% accuracy", "Top 1% accuracy"),
    (r"pages 1--10", "pages 1–10"),
    (r"Deep learning---a survey", "Deep learning—a survey"),
    (r"Fig.~3 of A.~Turing", "Fig. 3 of A. Turing"),
    (
        r"{BERT}: Pre-training of Deep Bidirectional Transformers",
        "BERT: Pre-training of Deep Bidirectional Transformers",
    ),
    (r"{{ImageNet}} Classification", "ImageNet Classification"),
    (r"The \textit{in vivo} case", "The in vivo case"),
    (r"An \emph{efficient} method", "An efficient method"),
    (r"\textbf{Bold} and \textsc{Small Caps}", "Bold and Small Caps"),
    (r"$\alpha$-divergence", "α-divergence"),
    (r"$\beta$-{VAE}", "β-VAE"),
    (r"$\Lambda$CDM cosmology", "ΛCDM cosmology"),
    (r"\mbox{GPT-3}", "GPT-3"),
    (r"``Why should I trust you?''", "“Why should I trust you?”"),
    ("Plain title, no markup", "Plain title, no markup"),
    # Literal specials in titles from APIs are text, not LaTeX comments or alignment tabs.
    ("100% accuracy with C# & F#", "100% accuracy with C# & F#"),
    ("Top 5% {of} models", "Top 5% of models"),
    ("  extra   spaces\n inside ", "extra spaces inside"),
]


@pytest.mark.parametrize(("latex", "expected"), LATEX_CASES)
def test_latex_to_unicode(latex: str, expected: str) -> None:
    assert latex_to_unicode(latex) == expected


# The regex fallback must render the common escapes the same way as pylatexenc.
FALLBACK_CASES = [
    (r"Heged{\H u}s", "Hegedűs"),
    (r"Sch{\"o}lkopf", "Schölkopf"),
    (r"{\'{E}}cole", "École"),
    (r"Fran\c{c}ois", "François"),
    (r"\L{}ukasz and Micha{\l}", "Łukasz and Michał"),
    (r"Stra\ss{}e", "Straße"),
    (r"na{\"\i}ve", "naïve"),
    (r"\v S", "Š"),
    (r"Data \& Knowledge, 1\%", "Data & Knowledge, 1%"),
    (r"a--b---c", "a–b—c"),
    (r"A.~Turing", "A. Turing"),
    (r"{BERT} \textit{in vivo} \emph{x}", "BERT in vivo x"),
    (r"$\alpha$-divergence", "α-divergence"),
    (r"\{braces\} kept", "{braces} kept"),
    (r"$O(n \log n)$", "O(n log n)"),
]


@pytest.mark.parametrize(("latex", "expected"), FALLBACK_CASES)
def test_latex_fallback_agrees_on_common_escapes(latex: str, expected: str) -> None:
    assert normalize_whitespace(latex_module._latex_fallback(latex)) == expected


@pytest.mark.parametrize(
    "hostile",
    [
        "{" * 5000 + "x",  # pylatexenc recursion depth
        "}" * 5000,
        "\\" * 20000,
        "$" * 20001,
        "\\begin{x}" * 2000,
        r"\"" * 10000,
        r"\textit{" * 3000,
        "{" * 30 + "deep" + "}" * 30,  # just over the nesting pylatexenc is given
        r"Heged{\H u}s " * 2000,  # longer than pylatexenc is given
        "x" * 200_000 + "{",
    ],
)
def test_latex_to_unicode_survives_hostile_input_quickly(hostile: str) -> None:
    started = time.perf_counter()
    result = latex_to_unicode(hostile)
    assert isinstance(result, str)
    assert time.perf_counter() - started < 2.0


def test_long_input_uses_the_fallback_and_still_converts() -> None:
    assert latex_to_unicode(r"Heged{\H u}s " * 2000).startswith("Hegedűs Hegedűs")
    assert latex_to_unicode("{" * 40 + r"\'e" + "}" * 40) == "é"
    assert latex_to_unicode("H$_2$O " * 1000).startswith("H2O H2O")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hegedűs", "Hegedus"),
        ("García Pérez", "Garcia Perez"),
        ("Ångström", "Angstrom"),
        ("Łukasz Michał", "Lukasz Michal"),
        ("Øksendal Bjørn", "Oksendal Bjorn"),
        ("Đorđević", "Dordevic"),
        ("Straße", "Strasse"),
        ("Æsir encyclopædia", "AEsir encyclopaedia"),
        ("Œuvre cœur", "OEuvre coeur"),
        ("Yıldız", "Yildiz"),
        ("Nguyễn Việt", "Nguyen Viet"),
        ("ﬁnite", "finite"),  # ligature from PDF text
        ("がっこう", "がっこう"),  # kana voicing marks are letters, not accents
        ("한국어", "한국어"),  # Hangul comes back composed
        ("हिन्दी", "हिन्दी"),  # Indic vowel signs are kept
        ("李小龙", "李小龙"),
    ],
)
def test_strip_accents(raw: str, expected: str) -> None:
    assert strip_accents(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a \t b\n\nc  ", "a b c"),
        ("a\u00a0b\u2003c\u3000d", "a b c d"),
        ("", ""),
        ("\n\t ", ""),
    ],
)
def test_normalize_whitespace(raw: str, expected: str) -> None:
    assert normalize_whitespace(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Attention Is All You Need", "attention is all you need"),
        (
            r"{BERT}: Pre-training of Deep Bidirectional Transformers",
            "bert pre training of deep bidirectional transformers",
        ),
        ("Hegedűs, G.", "hegedus g"),
        (r"Heged{\H u}s, G.", "hegedus g"),
        ("Ünïcödé   Tïtlé!", "unicode title"),
        ("İstanbul", "istanbul"),
        ("Hege\u00addus", "hegedus"),  # soft hyphen from PDF extraction
        ("zero\u200bwidth", "zerowidth"),
        ("x² + y₂", "x2 y2"),  # NFKD flattens super/subscripts; + is a symbol
    ],
)
def test_fold(raw: str, expected: str) -> None:
    assert fold(raw) == expected


TITLE_VARIANTS = [
    # Every title in a group must normalise to the same string.
    [
        "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        r"{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding.",
        "BERT – Pre‐training of deep bidirectional transformers for language understanding",
        "bert:  pre-training of deep bidirectional transformers\nfor language understanding",
    ],
    [
        "“Why Should I Trust You?”: Explaining the Predictions of Any Classifier",
        r"``Why Should {I} Trust You?'': Explaining the Predictions of Any Classifier",
        '"Why should I trust you?" Explaining the predictions of any classifier.',
    ],
    [
        "<i>In vivo</i> imaging of neurons &amp; glia",
        "In vivo imaging of neurons & glia",
        r"\textit{In vivo} imaging of neurons \& glia",
    ],
    [
        "Observation of <mml:math><mml:mi>B</mml:mi><mml:mn>0</mml:mn></mml:math> decays",
        "Observation of B0 decays",
    ],
    ["H<sub>2</sub>O splitting", "H2O splitting", "H$_2$O splitting"],
    [
        "Gödel, Escher, Bach",
        r"G{\"o}del, Escher, Bach",
        r"G\"odel, Escher, Bach",
        "Godel, Escher, Bach",
    ],
]


@pytest.mark.parametrize("variants", TITLE_VARIANTS)
def test_normalize_title_equates_variants(variants: list[str]) -> None:
    normalised = {normalize_title(variant) for variant in variants}
    assert len(normalised) == 1, normalised


def test_normalize_title_keeps_distinct_titles_distinct() -> None:
    assert normalize_title("Deep Residual Learning") != normalize_title("Deep Recurrent Learning")
    assert normalize_title("a < b and c > d") != ""


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (
            ["García-Pérez", "García Pérez", "Garcia-Perez", "garciaperez", r"Garc{\'\i}a-P{\'e}rez"],
            "garciaperez",
        ),
        (["O'Brien", "O’Brien", "OBrien", "o brien"], "obrien"),
        (["Hegedűs", r"Heged{\H u}s", "Hegedus", "HEGEDŰS"], "hegedus"),
        (["Schölkopf", r"Sch{\"o}lkopf", "Scholkopf"], "scholkopf"),
        (["Smith Jr.", "Smith, Jr.", "Smith", "Smith III"], "smith"),
        (["van der Maaten", "Van Der Maaten", "vanderMaaten"], "vandermaaten"),
        (["Łukasiewicz", r"{\L}ukasiewicz"], "lukasiewicz"),
        (["张", "张"], "张"),
        (["山田", " 山田 "], "山田"),
    ],
)
def test_fold_name(names: list[str], expected: str) -> None:
    assert {fold_name(name) for name in names} == {expected}


def test_fold_name_keeps_a_surname_that_is_only_a_suffix_word() -> None:
    assert fold_name("Jr") == "jr"


def test_fold_name_keeps_distinct_surnames_distinct() -> None:
    assert fold_name("Liu") != fold_name("Zhang")
    assert fold_name("Müller") != fold_name("Miller")


TEXT = st.text(max_size=200)
LATEXISH = st.text(alphabet=st.sampled_from(list("ab é{}\\\"'`^~$%&#_-.,:ouvHcLl")), max_size=80)


@settings(max_examples=300)
@given(st.one_of(TEXT, LATEXISH))
@example("İ")  # casefold yields i + combining dot above
@example("ǰ")
@example("\u0345")  # casefolds to a Greek iota
@example("ﬃ ß ẞ")
@example(r"\"{}")
@example("ꭰ")  # Cherokee: casefold maps lower to upper
@example("ᾈ")
@example("--~")
def test_fold_is_idempotent(s: str) -> None:
    once = fold(s)
    assert fold(once) == once


@settings(max_examples=300)
@given(st.one_of(TEXT, LATEXISH))
@example("{" * 100)
@example("\\")
@example("\\begin{")
@example("$\\")
@example("%\\")
def test_text_functions_never_raise(s: str) -> None:
    for function in (latex_to_unicode, strip_accents, normalize_whitespace, fold, normalize_title, fold_name):
        assert isinstance(function(s), str)


@given(TEXT)
def test_folded_forms_hold_no_punctuation_or_doubled_spaces(s: str) -> None:
    folded = fold(s)
    assert folded == folded.strip()
    assert "  " not in folded
    assert not any(char in folded for char in ".,;:!?'\"()[]{}-–—/\\")
    assert " " not in fold_name(s)


@given(TEXT)
def test_normalize_title_and_fold_name_are_idempotent(s: str) -> None:
    assert normalize_title(normalize_title(s)) == normalize_title(s)
    assert fold_name(fold_name(s)) == fold_name(s)


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_strip_accents_leaves_ascii_as_it_is(s: str) -> None:
    """The ASCII shortcut gives what the full path gives (NFKD, marks dropped, NFC)."""
    import unicodedata

    from aletheia.core.text import _UNDECOMPOSED_LETTERS, _is_diacritic

    full = unicodedata.normalize(
        "NFC",
        "".join(c for c in unicodedata.normalize("NFKD", s) if not _is_diacritic(c)).translate(
            _UNDECOMPOSED_LETTERS
        ),
    )
    assert strip_accents(s) == full == s
