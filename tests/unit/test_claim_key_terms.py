"""Issue 29: a claim is judged on its key terms, a hypothesis is not a finding, "no change" is not a
decrease, and a contradiction needs the claim's subject and measure in the opposite direction.

Each case of the issue is one test; the papers' sentences are written here, modelled on the cases
(genes, variants and figures changed), not copied from any data set.
"""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.claim_directions import direction_words
from aletheia.core.claim_judge import judge_excerpt, paper_abbreviations
from aletheia.core.claim_terms import (
    abbreviations,
    claim_terms_absent,
    key_terms,
    missing_key_terms,
    subject_and_predicate,
)
from aletheia.core.excerpts import PaperText, TextBlock
from aletheia.pipeline.claims.judge import RuleJudge, judge_evidence
from aletheia.pipeline.claims.reasoner import LexicalReasoner


def judged(claim: str, excerpt: str, paper: str | None = None) -> tuple[str, str]:
    known = paper_abbreviations(paper if paper is not None else excerpt)
    result = judge_excerpt(claim, excerpt, known_abbreviations=known)
    return result.label, " ".join(result.reasons)


# --- key terms -------------------------------------------------------------------------------------------


def test_key_terms_are_codes_and_proper_names() -> None:
    assert key_terms("ALDH1 expression is associated with better breast cancer outcomes") == ("ALDH1",)
    assert key_terms("rs647161 is associated with colorectal carcinoma") == ("rs647161",)
    assert key_terms("MDA5 has two N-terminal CARD domains") == ("MDA5", "CARD")
    assert key_terms("G-CSF increases the infiltration of MDSCs into tumours") == ("G-CSF", "MDSCs")
    # The code, not the word it is joined to; a number with its unit is not a name.
    assert key_terms("Heat is made by a UCP1-dependent route within 24h") == ("UCP1",)
    assert key_terms("Fibroblast Growth Factor signals through receptor kinases") == (
        "Fibroblast Growth Factor",
    )
    # A sentence's first word is capitalised for grammar, not as a name.
    assert key_terms("Notably Treg cells restore insulin sensitivity") == ()
    assert key_terms("Transformers dispense with recurrence entirely") == ()


def test_a_sentence_about_another_protein_does_not_support_the_claim() -> None:
    label, why = judged(
        "ALDH1 expression is associated with better breast cancer outcomes",
        "High PD-L1 expression was associated with better clinical outcomes in breast cancer.",
    )
    assert label == "not_enough" and "key_term_absent: ALDH1" in why


def test_a_variant_the_excerpt_does_not_name_is_not_supported() -> None:
    label, why = judged(
        "rs647161 is associated with colorectal carcinoma",
        "The long noncoding RNA NEAT1 is associated with colorectal carcinoma progression.",
    )
    assert label == "not_enough" and "rs647161" in why


def test_a_sentence_about_the_paralogous_receptor_does_not_support_the_claim() -> None:
    label, why = judged(
        "MDA5 has two N-terminal CARD domains", "RIG-I has two N-terminal CARD domains and a helicase domain."
    )
    assert label == "not_enough" and "key_term_absent: MDA5" in why


def test_an_abbreviation_is_read_through_the_papers_definition() -> None:
    claim = "CR is associated with higher methylation age"
    # Without caloric restriction, a sentence about methylation age is about something else.
    label, why = judged(claim, "Higher methylation age in sperm was associated with older paternal age.")
    assert label == "not_enough" and "key_term_absent: CR" in why
    paper = (
        "Caloric restriction (CR) slows several markers of ageing. In rhesus monkeys, caloric restriction"
        " was associated with higher methylation age of the liver."
    )
    excerpt = (
        "In rhesus monkeys, caloric restriction was associated with higher methylation age of the liver."
    )
    assert judged(claim, excerpt, paper)[0] == "supports"
    # ... and the other way round: the claim spells it out, the excerpt abbreviates.
    assert abbreviations(paper) == {"cr": "Caloric restriction"}
    assert (
        judged(
            "Caloric restriction is associated with higher methylation age",
            "In rhesus monkeys, CR was associated with higher methylation age.",
            paper,
        )[0]
        == "supports"
    )


@given(st.lists(st.sampled_from(["MDA5", "rs12345", "PD-L1", "CR", "G-CSF", "cells", "bind"]), min_size=1))
def test_a_claim_names_every_key_term_of_its_own(words: list[str]) -> None:
    claim = " ".join(words)
    assert missing_key_terms(claim, claim, {}) == ()


@given(st.text(alphabet=string.ascii_letters + " ()", max_size=80))
def test_abbreviations_never_fail_and_expand_to_words_of_the_text(text: str) -> None:
    for long_form in abbreviations(text).values():
        assert long_form.split()[0] in text


# --- what a sentence does ---------------------------------------------------------------------------------


def test_no_change_is_not_a_decrease() -> None:
    label, why = judged(
        "Incidence rates of cervical cancer have decreased",
        "Mortality from cervical cancer decreased, but the incidence rate of cervical cancer has remained"
        " the same.",
    )
    assert label == "not_enough" and "null_effect_mismatch" in why


def test_a_hypothesis_the_paper_reports_is_not_its_finding() -> None:
    label, why = judged(
        "All hematopoietic stem cells segregate their chromosomes randomly",
        "Stem cells are proposed to segregate chromosomes asymmetrically, retaining the older template"
        " strands.",
    )
    assert label == "not_enough" and "not_an_assertion" in why


def test_a_call_for_research_neither_supports_nor_contradicts() -> None:
    label, _ = judged(
        "Macrolides have no protective effect against pyloric stenosis in infants",
        "These results of a preliminary nature should stimulate more research on macrolides and pyloric"
        " stenosis.",
    )
    assert label == "not_enough"


def test_an_aim_does_not_contradict() -> None:
    label, why = judged(
        "Risedronate increases the risk of vertebral fractures",
        "OBJECTIVE To test whether daily risedronate reduces the risk of vertebral fractures in women.",
    )
    assert label == "not_enough" and "not_against: direction_flip" in why


def test_the_readme_example_is_supported() -> None:
    # "We propose a new architecture" states what the paper contributes; "we propose that" would be a
    # hypothesis.
    label, _ = judged(
        "Transformers dispense with recurrence entirely",
        "We propose a new simple network architecture, the Transformer, based solely on attention"
        " mechanisms, dispensing with recurrence and convolutions entirely.",
    )
    assert label == "supports"
    assert (
        judged(
            "Transformers dispense with recurrence entirely",
            "We propose that Transformers dispense with recurrence entirely.",
        )[0]
        == "not_enough"
    )


# --- populations and negations ------------------------------------------------------------------------------


def test_another_age_group_does_not_support_the_claim() -> None:
    label, why = judged(
        "Older adults with COVID-19 have a higher risk of death",
        "Young adults with COVID-19 had a higher risk of death than expected.",
    )
    assert label == "not_enough" and "population_age" in why
    # A claim about men and women is not shown by a sentence about women alone.
    assert judged(
        "Statins lower cholesterol in men and women", "Statins lowered cholesterol in postmenopausal women."
    )[0] == ("not_enough")


def test_two_negations_do_not_cancel_against_a_plain_opposite() -> None:
    label, why = judged(
        "Remdesivir does not shorten recovery and is not safe in hospitalised patients",
        "Remdesivir shortened recovery and was safe in hospitalised patients.",
    )
    assert label == "not_enough" and "negation_count_differs" in why


def test_a_negation_and_a_reversed_direction_do_not_make_a_support() -> None:
    label, why = judged(
        "Zinc does not increase the duration of colds in adults",
        "Zinc decreased the duration of colds in adults.",
    )
    assert label == "not_enough" and "negation_and_direction" in why


def test_unrelated_to_negates_its_own_clause_only() -> None:
    label, _ = judged(
        "Correcting ApoE4 to ApoE3 by gene editing rescues tau phosphorylation in human neurons",
        "ApoE4 neurons showed higher tau phosphorylation, unrelated to their increased amyloid production,"
        " and gene editing of ApoE4 to ApoE3 rescued these phenotypes in human neurons.",
    )
    assert label != "contradicts"


def test_but_not_negates_the_alternative_not_the_finding() -> None:
    label, _ = judged(
        "Amitriptyline reduces the frequency of chronic tension headache",
        "Amitriptyline reduced the frequency of chronic, but not episodic, tension headache.",
    )
    assert label == "supports"


def test_a_direction_counts_on_the_claims_measure() -> None:
    claim = "PD-1 triggering on monocytes increases IL-10 production by monocytes"
    # The dysfunction is of T cells, not of IL-10 production: no contradiction.
    assert (
        judged(
            claim,
            "Triggering of PD-1 on monocytes induced IL-10 production by monocytes and led to T cell"
            " dysfunction.",
        )[0]
        != "contradicts"
    )
    # The same measure the other way is one, in either vocabulary ("encourages" / "reduces").
    label, why = judged(
        "Pyridostatin encourages proliferation of recombination-defective cells",
        "Pyridostatin reduces proliferation of recombination-defective cells.",
    )
    assert label == "contradicts" and "direction_flip" in why


# --- the refusal's reason ---------------------------------------------------------------------------------


def _paper(*sentences: str) -> PaperText:
    return PaperText(blocks=(TextBlock(text=" ".join(sentences), section="Abstract"),), origin="abstract")


async def test_a_refusal_names_the_reason_that_holds() -> None:
    claim = "Vitamin K supplementation increases bone density in older women"
    aim_only = _paper(
        "OBJECTIVE To determine whether vitamin K supplementation reduces bone density in older women.",
        "Participants were followed for two years.",
    )
    outcome = await judge_evidence(claim, aim_only, LexicalReasoner(), RuleJudge())
    assert not outcome.judgement.contradicting and not outcome.supported  # NoSupportingExcerpts
    finding = _paper(
        "We followed 400 older women for two years.",
        "Vitamin K supplementation decreased bone density in older women.",
    )
    outcome = await judge_evidence(claim, finding, LexicalReasoner(), RuleJudge())
    assert outcome.judgement.contradicting  # ContradictedClaim, on the finding itself
    assert "decreased bone density" in outcome.judgement.contradicting[0].excerpt


async def test_the_papers_abbreviations_are_kept_with_the_judgement() -> None:
    paper = _paper(
        "Caloric restriction (CR) was started at six months.",
        "In monkeys, CR was associated with lower methylation age of blood.",
    )
    outcome = await judge_evidence(
        "Caloric restriction is associated with lower methylation age", paper, LexicalReasoner(), RuleJudge()
    )
    assert outcome.supported
    assert ("cr", "Caloric restriction") in outcome.judgement.abbreviations


def test_a_replay_reads_the_stored_abbreviations() -> None:
    from aletheia.pipeline.audit.claim_events import CLAIM_JUDGEMENT, replay_claim_events

    claim = "Caloric restriction is associated with lower methylation age"
    excerpt = "In monkeys, CR was associated with lower methylation age of blood."
    stored = judge_excerpt(claim, excerpt, known_abbreviations=(("cr", "Caloric restriction"),))
    assert stored.label == "supports"
    body = {
        "item": "claim",
        "claim": claim,
        "judge": stored.judge,
        "judgements": [{"excerpt": excerpt, "label": stored.label, "location": None}],
        "supported": True,
        "absent_terms": [],
        "abbreviations": [["cr", "Caloric restriction"]],
    }
    replay = replay_claim_events([(CLAIM_JUDGEMENT, body)])
    assert replay.same == replay.judged == 1 and not replay.differences
    # Without the paper's definition the excerpt does not name the claim's subject.
    replay = replay_claim_events([(CLAIM_JUDGEMENT, {**body, "abbreviations": []})])
    assert replay.differences


# --- the claim's subject ------------------------------------------------------------------------------------


def test_the_claims_subject_must_be_in_the_excerpt() -> None:
    # A sentence about treatments in general is no evidence about one drug...
    label, why = judged(
        "Alendronate reduces the risk of hip fractures",
        "Most osteoporosis treatments reduce the risk of hip fractures in trials.",
    )
    assert label == "not_enough" and "subject_not_stated: alendronate" in why
    # ... nor numbers and a verb shared with a sentence about something else.
    label, why = judged(
        "All four defensins are located on chromosome eight",
        "Listeners heard four target words located at eight positions around the room.",
    )
    assert label == "not_enough" and "subject_not_stated: defensin" in why


def test_a_sentence_about_another_subject_does_not_contradict() -> None:
    label, why = judged(
        "Ginkgo extract improves memory in healthy volunteers",
        "Caffeine impaired memory in healthy volunteers.",
    )
    assert label == "not_enough" and "not_against" in why


def test_a_noun_sharing_a_verbs_stem_names_no_direction() -> None:
    # "activity" is not "activates": the decline is the only direction stated.
    label, why = judged(
        "Lysosomal autophagy increases in aged animals",
        "We found that lysosomal autophagy activity declines in aged animals.",
    )
    assert label == "contradicts" and "direction_flip" in why


def test_uncorrelated_is_a_null_claim() -> None:
    label, why = judged(
        "Cellular senescence is uncorrelated with skin appearance",
        "Cellular senescence in the dermis was associated with an older skin appearance.",
    )
    assert label == "not_enough" and "null_effect_mismatch" in why


def test_a_negated_compound_contradicts_whatever_else_the_sentence_holds() -> None:
    # "ATP-dependent" elsewhere in the sentence does not undo "UCP1-independent".
    label, why = judged(
        "Calcium cycling is a UCP1-dependent thermogenic mechanism",
        "We report a UCP1-independent thermogenic mechanism in beige fat that involves ATP-dependent"
        " calcium cycling.",
    )
    assert label == "contradicts" and "negation_flip" in why


# --- rules 1.2.0: what the search mode cited wrongly on SciFact and Citation-Integrity's dev claims ----


def test_a_numbered_name_is_not_another_number() -> None:
    # "type 1 diabetes" is not "type 2 diabetes": a label's number is part of the name.
    claim = "Hypertension is frequently observed in type 1 diabetes patients."
    other = (
        "Development of diabetic retinopathy in patients with type 2 diabetes was found to be related"
        " to presence of hypertension."
    )
    judged = judge_excerpt(claim, other)
    assert judged.label == "not_enough"
    assert "labelled_number_differs: type 1 vs type 2" in judged.reasons
    same = "Hypertension was frequently observed in patients with type 1 diabetes in this cohort."
    assert judge_excerpt(claim, same).label == "supports"


def test_uncertainty_the_paper_reports_is_no_finding() -> None:
    judged = judge_excerpt(
        "Febrile seizures reduce the threshold for development of epilepsy.",
        "Despite the high incidence of febrile seizures, their contribution to the development of"
        " epilepsy later in life has remained controversial.",
    )
    assert judged.label == "not_enough"
    assert "not_an_assertion" in judged.reasons


def test_a_citation_mention_is_not_a_claim() -> None:
    # "Chen et al." names whom a sentence cites; there is nothing in it to support.
    judged = judge_excerpt(
        "Chen et al. .",
        "This is consistent with data showing elevated neutrophil levels among COVID-19 patients"
        " (Chen et al., 2020).",
    )
    assert judged.label == "not_enough"
    assert "claim_too_short" in judged.reasons
    assert judge_excerpt("A recent study by Derecki et al.", "A recent study by Derecki et al.").label == (
        "not_enough"
    )
    # The rest of a claim that cites a work is still judged.
    assert judge_excerpt(
        "Smith et al. showed that aspirin reduces stroke risk in adults.",
        "Aspirin reduced stroke risk in adults over five years of follow-up.",
    ).label == ("supports")


def test_a_paper_that_never_names_the_subject_is_not_about_it() -> None:
    claim = "The most prevalent adverse events to Semaglutide are cardiovascular."
    excerpt = (
        "Plasma levels predicted increased risks for both prevalent cardiovascular disease"
        " and adverse events."
    )
    absent = claim_terms_absent(claim, excerpt)
    assert "semaglutid" in absent or "semaglutide" in absent
    judged = judge_excerpt(claim, excerpt, absent_terms=absent)
    assert judged.label == "not_enough"
    assert any(code.startswith("subject_absent_from_paper") for code in judged.reasons)


def test_a_spelling_variant_is_not_an_absent_term() -> None:
    assert (
        claim_terms_absent(
            "One in five surgical randomized controlled trials are discontinued early.",
            "One in five surgical randomised controlled trials are discontinued early.",
        )
        == ()
    )


def test_a_base_form_verb_after_a_plural_subject_ends_the_subject() -> None:
    subject, predicate = subject_and_predicate("Statins decrease blood cholesterol.", direction_words())
    assert subject == ("statin",)
    assert "cholesterol" in predicate


def test_a_sentence_citing_other_works_for_its_statement_is_not_the_papers_finding() -> None:
    claim = "On the outer membrane, PINK2 recruits Parkin to mitochondria."
    background = (
        "On the outer membrane, PINK2 recruits Parkin to mitochondria"
        " (Gardner et al., 2011; Ito et al., 2012)."
    )
    judged = judge_excerpt(claim, background)
    assert judged.label == "not_enough"
    assert "attributed_to_other_works" in judged.reasons
    # The claim saying "reported" too does not make another work's report the paper's own.
    reported = "Omnivores were recently reported to have higher serum TMAO levels than vegetarians."
    assert judge_excerpt(reported, reported).label == "not_enough"
    finding = "Here we show that PINK2 recruits Parkin to mitochondria on the outer membrane."
    assert judge_excerpt(claim, finding).label == "supports"


def test_a_code_inside_a_prefixed_code_and_a_pair_of_codes_are_named() -> None:
    # "mtDNA" names DNA; "RANK-RANKL" is named by a sentence naming RANKL and RANK.
    assert (
        missing_key_terms(
            "Elevated mitochondrial DNA levels predict death.", "High mtDNA levels predicted death.", {}
        )
        == ()
    )
    assert (
        missing_key_terms(
            "RANK-RANKL signalling drives thymic maturation.",
            "RANKL signals promote the maturation of RANK-expressing progenitors.",
            {},
        )
        == ()
    )
    assert missing_key_terms(
        "RANK-RANKL signalling drives thymic maturation.", "RANKL signals promote it.", {}
    ) == ("RANK-RANKL",)


def test_a_compound_written_whole_or_hyphenated_is_one_word() -> None:
    label, reasons = judged(
        "Birth-weight is positively associated with prostate cancer.",
        "Increased risk of prostate cancer was noted with increased birthweight (relative risk 1.2).",
    )
    assert label == "supports", reasons
