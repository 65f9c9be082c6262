"""The offline claim judge (core.claim_judge): one case per rule row, and properties.

Each case is a claim and an excerpt; most are the news claims of issue 19 against what a paper
says, or SciFact-style claims written for this test (no data set is copied here).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core import claim_direction_rules as direction_rules
from aletheia.core import claim_judge_rules as rules
from aletheia.core.claim_judge import (
    JUDGE_NAME,
    ClaimJudgement,
    ExcerptJudgement,
    excerpts_to_judge,
    judge_claim,
    judge_excerpt,
)
from aletheia.core.claim_terms import claim_terms_absent
from aletheia.core.excerpts import PaperText, TextBlock


def label(claim: str, excerpt: str) -> str:
    return judge_excerpt(claim, excerpt).label


def reasons(claim: str, excerpt: str) -> str:
    return " ".join(judge_excerpt(claim, excerpt).reasons)


# --- support ---------------------------------------------------------------------------------------------


def test_an_excerpt_that_states_the_claim_supports_it() -> None:
    claim = "Surgical masks reduce the transmission of influenza in households"
    excerpt = "Surgical masks reduced the transmission of influenza in households by 30%."
    judged = judge_excerpt(claim, excerpt, location="Abstract")
    assert judged.label == "supports"
    assert judged.location == "Abstract" and judged.judge == JUDGE_NAME


def test_an_unrelated_sentence_neither_supports_nor_contradicts() -> None:
    claim = "Surgical masks reduce the transmission of influenza in households"
    assert label(claim, "We recruited 400 participants from three clinics.") == "not_enough"
    assert "low_coverage" in reasons(claim, "We recruited 400 participants from three clinics.")


def test_a_claim_too_short_to_judge_is_not_enough() -> None:
    assert "claim_too_short" in reasons("Notably, in .", "Notably, in this cohort masks helped.")


# --- polarity: negation, its scope, and direction ---------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "excerpt", "code"),
    [
        # issue 19's contradicted claims, against what their papers say
        (
            "Wearing face masks can increase the risk of novel coronavirus infection",
            "Wearing face masks reduced the risk of coronavirus infection in healthcare workers.",
            "direction_flip",
        ),
        (
            "No direct neurological complications of COVID-19 exist",
            "Neurological complications of COVID-19 were observed in 36% of patients.",
            "negation_flip",
        ),
        (
            "The majority of adult COVID-19 patients did not have at least one symptom reported",
            "The majority of adult COVID-19 patients had at least one symptom reported at admission.",
            "negation_flip",
        ),
        (
            "Cloth masks are just as effective at preventing infection as medical masks",
            "Rates of infection were significantly higher in the cloth masks arm than with medical masks.",
            "equivalence_vs_difference",
        ),
        (
            "Ambulatory blood pressure monitoring is inaccurate at diagnosing hypertension",
            "Ambulatory blood pressure monitoring is accurate at diagnosing hypertension in adults.",
            "negation_flip",
        ),
        (
            "Ca2+ cycling is a UCP1-dependent thermogenic mechanism in beige fat",
            "We report a UCP1-independent thermogenic mechanism in beige fat that involves Ca2+ cycling.",
            "negation_flip",
        ),
        (
            "Patients in stable partnerships have a faster progression from HIV to AIDS",
            "A stable partnership is associated with a slower progression from HIV to AIDS in patients.",
            "direction_flip",
        ),
    ],
)
def test_the_opposite_statement_contradicts(claim: str, excerpt: str, code: str) -> None:
    judged = judge_excerpt(claim, excerpt)
    assert judged.label == "contradicts", judged
    assert code in judged.reasons


def test_a_negation_outside_the_shared_terms_does_not_flip() -> None:
    # "no" negates "patients lost", which the claim does not speak of.
    claim = "Vitamin D supplementation reduces fractures in older women"
    excerpt = (
        "Vitamin D supplementation reduced fractures in older women; no patients were lost to follow-up."
    )
    assert label(claim, excerpt) == "supports"


def test_two_flips_cancel() -> None:
    claim = "More sleep improves memory consolidation in adolescents"
    excerpt = "Less sleep worsens memory consolidation in adolescents."
    judged = judge_excerpt(claim, excerpt)
    assert "negation_flip" not in judged.reasons and "direction_flip" not in judged.reasons


def test_the_effect_must_be_stated_one_way() -> None:
    claim = "Dexamethasone decreases the risk of postoperative bleeding in children"
    mixed = (
        "Dexamethasone decreased the risk of vomiting but was associated with an increased risk of"
        " postoperative bleeding in children."
    )
    # The direction that counts is the one on the claim's measure (rules 1.1.0): the risk of
    # bleeding increased, whatever happened to vomiting.
    assert "direction_flip" in reasons(claim, mixed)
    assert label(claim, mixed) != "supports"
    silent = "The risk of postoperative bleeding in children given dexamethasone was 2.7 (95% CI 1.0 to 8.0)."
    assert "direction_not_stated" in reasons(claim, silent)


def test_not_only_does_not_negate() -> None:
    claim = "Exercise improves mood and sleep quality in adults"
    excerpt = "Exercise not only improves mood but also sleep quality in adults."
    assert label(claim, excerpt) == "supports"


# --- numbers and ranges -----------------------------------------------------------------------------------


def test_a_number_in_the_same_unit_that_does_not_fit_contradicts() -> None:
    claim = "Under 30% of infected children develop symptoms after exposure"
    excerpt = "About 80% of infected children develop symptoms after exposure."
    assert "number_mismatch" in reasons(claim, excerpt)
    assert label(claim, excerpt) == "contradicts"


def test_a_bound_is_met_by_a_value_inside_it() -> None:
    claim = "Under 30% of infected children develop symptoms after exposure"
    assert label(claim, "Only 21% of infected children develop symptoms after exposure.") == "supports"


def test_a_range_is_shown_by_a_value_inside_it_not_by_an_overlapping_interval() -> None:
    claim = "Estimates of the basic reproduction number R0 of the virus hover between 3 and 4"
    inside = "Estimates of the basic reproduction number R0 of the virus were 3.3 in the cohort."
    assert label(claim, inside) == "supports"
    overlapping = "Estimates of the basic reproduction number R0 of the virus: 2.2 (95% CI 1.4 to 3.9)."
    assert label(claim, overlapping) != "supports"


def test_a_number_the_excerpt_does_not_state_is_not_enough() -> None:
    claim = "Screening reduced breast cancer mortality by 20% in women over 50"
    excerpt = "Screening reduced breast cancer mortality in women over 50."
    assert "number_not_stated" in reasons(claim, excerpt)


def test_number_words_are_numbers() -> None:
    claim = "One in two surgical randomised controlled trials are discontinued early"
    excerpt = "One in five surgical randomised controlled trials are discontinued early."
    assert label(claim, excerpt) == "contradicts"


def test_identifiers_with_digits_are_not_quantities() -> None:
    claim = "COVID-19 patients with IL-6 elevation have worse outcomes in intensive care"
    excerpt = "COVID-19 patients with IL-6 elevation had worse outcomes in intensive care."
    assert label(claim, excerpt) == "supports"


# --- quantifiers, population, hedges, assertions ----------------------------------------------------------


def test_all_is_not_shown_by_most() -> None:
    claim = "All patients with the mutation develop cardiomyopathy by age forty"
    excerpt = "Most patients with the mutation develop cardiomyopathy by age forty."
    assert "quantifier: all vs most" in reasons(claim, excerpt)
    assert label(claim, excerpt) == "not_enough"


def test_most_against_few_contradicts() -> None:
    claim = "Most smokers with the variant develop lung cancer"
    excerpt = "Few smokers with the variant develop lung cancer."
    assert label(claim, excerpt) == "contradicts"


def test_another_population_does_not_support() -> None:
    claim = "Statins reduce cardiovascular mortality in women"
    excerpt = "Statins reduced cardiovascular mortality in men."
    assert label(claim, excerpt) == "not_enough"
    assert "population_sex" in reasons(claim, excerpt)
    cells = "The compound kills tumour cells in patients with glioma"
    assert "population_setting" in reasons(
        cells, "The compound kills tumour cells in vitro (cell lines of glioma)."
    )


def test_a_reversed_comparison_between_groups_is_not_support() -> None:
    claim = "The risk of self-harm in male prisoners is ten times that of female prisoners"
    excerpt = "The risk of self-harm was ten times higher in female prisoners than in male prisoners."
    assert label(claim, excerpt) != "supports"


def test_a_hedge_does_not_support_a_claim_of_cause() -> None:
    claim = "Vitamin C cures the common cold in adults"
    excerpt = "Vitamin C may help the common cold in adults."
    assert "hedged_excerpt_for_strong_claim" in reasons(claim, excerpt)
    assert label(claim, excerpt) == "not_enough"


def test_an_aim_is_not_a_finding() -> None:
    claim = "Cognitive behavioural therapy improves chronic insomnia in older adults"
    excerpt = (
        "OBJECTIVE To examine whether cognitive behavioural therapy improves chronic insomnia"
        " in older adults."
    )
    assert "not_an_assertion" in reasons(claim, excerpt)


def test_a_comparative_claim_needs_a_comparison() -> None:
    claim = "General exercise therapy is more effective than specific exercises for shoulder pain"
    excerpt = "Specific exercises are effective for shoulder pain and general exercise therapy."
    assert "comparison_not_stated" in reasons(claim, excerpt)


# --- the claim's judgement --------------------------------------------------------------------------------


def test_a_claim_is_supported_only_when_one_supports_and_none_contradicts() -> None:
    claim = "Surgical masks reduce the transmission of influenza in households"
    support = "Surgical masks reduced the transmission of influenza in households."
    against = "Surgical masks increased the transmission of influenza in households in the second year."
    assert judge_claim(claim, [(support, None)]).supported
    both = judge_claim(claim, [(support, "p. 1"), (against, "p. 2")])
    assert not both.supported
    assert [j.location for j in both.contradicting] == ["p. 2"]


def test_duplicates_are_judged_once() -> None:
    claim = "Surgical masks reduce the transmission of influenza in households"
    text = "Surgical masks reduced the transmission of influenza in households."
    assert len(judge_claim(claim, [(text, None), (text, "again")]).judgements) == 1


def test_excerpts_to_judge_include_the_contradicting_sentence() -> None:
    claim = "Wearing face masks increases the risk of coronavirus infection"
    paper = PaperText(
        blocks=(
            TextBlock(
                text="We studied 2,000 healthcare workers. Wearing face masks reduced the risk of"
                " coronavirus infection. Funding came from the ministry.",
                section="Abstract",
            ),
        ),
        origin="abstract",
    )
    chosen = excerpts_to_judge(claim, paper)
    assert chosen == ["Wearing face masks reduced the risk of coronavirus infection."]


def test_every_rule_row_is_well_formed() -> None:
    for cue in rules.NEGATION_CUES:
        assert cue.words and cue.scope > 0
    for up, down in direction_rules.DIRECTION_PAIRS:
        assert up and down and not set(up) & set(down)
    for (wanted, stated), relation in rules.QUANTIFIER_RELATIONS.items():
        names = {q.name for q in rules.QUANTIFIERS}
        assert wanted in names and stated in names and relation in ("contradicts", "not_enough", "compatible")
    assert 0 < rules.CONTRADICT_MIN_COVERAGE < rules.SUPPORT_MIN_COVERAGE <= 1


# --- properties ---------------------------------------------------------------------------------------------

_VOCABULARY = (
    "masks reduce increase risk infection patients women men children no not all most few may cures 30% 3"
    " between and to than more less effective similar vitamin trials 2020 five in"
)
_words = st.sampled_from(_VOCABULARY.split())
_sentences = st.lists(_words, min_size=1, max_size=16).map(" ".join)


@given(claim=_sentences, excerpt=_sentences)
@settings(max_examples=300, deadline=None)
def test_the_judge_is_total_and_deterministic(claim: str, excerpt: str) -> None:
    first, second = judge_excerpt(claim, excerpt), judge_excerpt(claim, excerpt)
    assert first == second
    assert first.label in ("supports", "contradicts", "not_enough")
    assert isinstance(first, ExcerptJudgement) and first.reasons


@given(claim=_sentences, excerpt=_sentences)
@settings(max_examples=300, deadline=None)
def test_support_needs_most_of_the_claims_terms(claim: str, excerpt: str) -> None:
    judged = judge_excerpt(claim, excerpt)
    if judged.label == "supports":
        shared, total = next(r for r in judged.reasons if r.startswith("coverage ")).split()[1].split("/")
        assert int(total) >= rules.MIN_CLAIM_TERMS
        assert int(shared) / int(total) >= rules.SUPPORT_MIN_COVERAGE


@given(excerpts=st.lists(st.tuples(_sentences, st.none()), max_size=5), claim=_sentences)
@settings(max_examples=200, deadline=None)
def test_supported_means_a_support_and_no_contradiction(
    claim: str, excerpts: list[tuple[str, str | None]]
) -> None:
    judged: ClaimJudgement = judge_claim(claim, excerpts)
    labels = [j.label for j in judged.judgements]
    assert judged.supported == ("supports" in labels and "contradicts" not in labels)


def test_a_claim_naming_what_the_paper_never_mentions_is_not_supported() -> None:
    claim = "An Italian study found that intakes of potato chips and red meat increased during the lockdown"
    excerpt = "Intakes of potato chips and red meat increased during the lockdown."
    paper = f"We surveyed 3,000 adults online. {excerpt} Physical activity fell."
    absent = claim_terms_absent(claim, paper)
    assert absent == ("found", "italian", "study")
    judged = judge_excerpt(claim, excerpt, absent_terms=absent)
    assert judged.label == "not_enough" and any(
        r.startswith("claim_terms_absent_from_paper") for r in judged.reasons
    )
    # Two paraphrased terms are allowed.
    assert judge_excerpt(claim, excerpt, absent_terms=absent[:2]).label == "supports"
    whole = judge_claim(claim, [(excerpt, "Abstract")], absent_terms=absent)
    assert whole.absent_terms == absent and not whole.supported


def test_a_number_about_something_else_is_no_accusation() -> None:
    """The mirror rule: a sentence stating another quantity of another measure does not contradict."""
    claim = "Spectral warm starts halve the memory footprint of multilevel partitioners on mesh graphs"
    other = "Spectral warm starts reduce the edge cut of multilevel partitioners by 12%."
    judged = judge_excerpt(claim, other)
    # Named as a number about something else: the measure differs ("number_differs"), or the
    # sentence does not state the claim's predicate, so nothing in it counts against the claim.
    assert judged.label == "not_enough" and any(
        r.startswith(("number_differs", "not_against: number_mismatch")) for r in judged.reasons
    )
    same = (
        "Spectral warm starts reduce the memory footprint of multilevel partitioners on mesh graphs by 12%."
    )
    assert judge_excerpt(claim, same).label == "contradicts"
