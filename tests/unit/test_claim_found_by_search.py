"""Issue 29, rules 1.3.0: a paper the search found, not one the user named, is cited only on an
excerpt naming every word of the claim's subject and predicate (`claim_found_by_search`).

Each case is modelled on one read in the dev split's search (words, genes and figures changed), not
copied from the data set.
"""

from __future__ import annotations

import asyncio

from aletheia.bench.claims_search_bench import CorpusIndex, Document, SearchClaim, SearchTally, search_claim
from aletheia.core.claim_found_by_search import search_gaps
from aletheia.core.claim_terms import claim_terms_absent, same_word
from aletheia.pipeline.audit.claim_events import CLAIM_JUDGEMENT, replay_claim_events
from aletheia.pipeline.claims.judge import RuleJudge
from aletheia.pipeline.claims.reasoner import LexicalReasoner


def test_another_measure_of_the_same_subject_is_not_enough() -> None:
    # "Statins decrease blood cholesterol" quoted with a sentence on hepatic cholesterol synthesis.
    gaps = search_gaps(
        "Fibrates decrease blood triglycerides",
        ["Fibrates decrease hepatic triglycerides synthesis and may lower the risk of gallstones."],
    )
    assert gaps == ("search_terms_not_stated: blood",)


def test_another_organ_of_the_same_risk_is_not_enough() -> None:
    # "... risk of prostate cancer" quoted with a sentence on bladder cancer.
    gaps = search_gaps(
        "Rosiglitazone use is not associated with an increased risk of kidney cancer",
        ["Rosiglitazone use was not associated with an increased risk of bladder cancer."],
    )
    assert gaps == ("search_terms_not_stated: kidney",)


def test_the_verb_may_be_put_in_other_words() -> None:
    # "Egr2 regulates the homeostasis of B and T cells" / "... is required for the homeostasis".
    claim = "Egr4 regulates the homeostasis of B and T cells"
    assert search_gaps(claim, ["Egr4 is required for the homeostasis of B and T cells."]) == ()
    # ... but not what the claim says of the subject.
    assert search_gaps(claim, ["Egr4 is required for the survival of B and T cells."]) != ()


def test_a_word_with_another_ending_is_the_same_word() -> None:
    assert same_word("headach", {"headache"}) and same_word("randomiz", {"randomis"})
    assert same_word("reduc", {"reduct"})
    assert not same_word("cardiovascular", {"cardiac"}) and not same_word("rate", {"rated"})
    claim = "Nortriptyline is an effective treatment for chronic tension-type headaches"
    excerpt = "Nortriptyline was an effective treatment of chronic tension-type headache in this trial."
    assert search_gaps(claim, [excerpt]) == ()
    # The paper "uses" the claim's word in another ending: it is not absent from the paper.
    assert claim_terms_absent(
        "Antiretroviral therapy reduces rates of infection", "a reduction in rates of infection"
    ) == (
        "antiretroviral",
        "therapy",
    )


def test_an_abbreviation_the_paper_defines_names_its_long_form() -> None:
    claim = "Pyrimethamine induces checkpoint activation"
    excerpt = "PYR induced checkpoint activation in every line tested."
    assert search_gaps(claim, [excerpt]) != ()
    assert search_gaps(claim, [excerpt], known={"pyr": "pyrimethamine"}) == ()


def test_a_sentence_is_read_under_its_papers_title() -> None:
    claim = "Radioiodine treatment of multinodular goitre reduces thyroid volume"
    excerpt = "The treatment of multinodular goitre reduced thyroid volume by 40% at one year."
    assert search_gaps(claim, [excerpt]) == ("search_terms_not_stated: radioiodine",)
    assert search_gaps(claim, [excerpt], title="Radioiodine for non-toxic goitre") == ()


def test_a_claim_whose_subject_cannot_be_read_needs_every_word() -> None:
    # No verb the rules know: every content word of the claim, the verb included.
    claim = "Transformers dispense with recurrence entirely"
    readme = (
        "We propose a new simple network architecture, the Transformer, based solely on attention"
        " mechanisms, dispensing with recurrence and convolutions entirely."
    )
    assert search_gaps(claim, [readme]) == ()
    assert search_gaps(claim, ["Transformers dispense with convolutions entirely."]) == (
        "search_terms_not_stated: recurrence",
    )


def test_the_words_saying_a_finding_is_known_are_not_the_claims() -> None:
    # Rules 1.4.1: "has been shown to", "is known to", "it is well established that" say that a
    # finding is established; the paper states the finding itself (the README-style `aletheia
    # claims` case: a sentence the claim finder flags for "has been shown").
    excerpt = (
        "The trimmed median aggregation tolerates up to one third of Byzantine sensor nodes while"
        " keeping the fused estimate within twice the honest variance."
    )
    for frame in ("has been shown to tolerate", "is known to tolerate", "was found to tolerate"):
        claim = f"Trimmed median aggregation {frame} up to one third of Byzantine sensor nodes."
        assert search_gaps(claim, [excerpt]) == (), claim
    claim = "It is well established that trimmed median aggregation tolerates Byzantine sensor nodes."
    assert search_gaps(claim, [excerpt]) == ()
    # A word the claim adds to the finding is still needed, and a participle without its "to" or
    # "that" is the finding's own word ("found in" the liver).
    claim = "Trimmed median aggregation has been shown to tolerate Byzantine sensor nodes optimally."
    assert search_gaps(claim, [excerpt]) == ("search_terms_not_stated: optimal",)  # its stem
    assert search_gaps("Statins were found in the liver.", ["Statins lower cholesterol in the liver."]) != ()


def test_numbers_are_left_to_the_number_rules() -> None:
    # The model's quote in the pipeline's own test: "a single node" states "one ... node".
    claim = "Plain averaging fails with one unbounded node"
    excerpt = "By contrast, plain averaging fails as soon as a single node reports an unbounded value."
    assert search_gaps(claim, [excerpt]) == ()


def test_the_search_bench_withholds_a_support_that_misses_a_word() -> None:
    docs = {
        1: Document(1, "Fibrates and the liver", ("Fibrates decrease hepatic triglycerides in adults.",)),
        2: Document(2, "Fibrates and the blood", ("Fibrates decrease blood triglycerides in adults.",)),
    }
    tally = SearchTally()
    item = SearchClaim(1, "Fibrates decrease blood triglycerides in adults", {2: "SUPPORT"}, {})
    asyncio.run(search_claim(item, CorpusIndex(docs), LexicalReasoner(), RuleJudge(), tally))
    assert tally.cited == tally.cited_right == 1 and tally.wrong == []
    tally = SearchTally()
    only_liver = {1: docs[1]}
    asyncio.run(search_claim(item, CorpusIndex(only_liver), LexicalReasoner(), RuleJudge(), tally))
    assert tally.cited == 0 and tally.withheld == 1 and tally.withheld_labelled_supporting == 0


def test_a_replay_checks_the_search_gaps_again() -> None:
    claim = "Fibrates decrease blood triglycerides in adults"
    excerpt = "Fibrates decrease hepatic triglycerides in adults."
    body = {
        "item": "c1",
        "judge": "rules:1.4.1",
        "claim": claim,
        "judgements": [{"excerpt": excerpt, "label": "supports"}],
        "supported": True,
        "search_gaps": ["search_terms_not_stated: blood"],
        "title": "",
    }
    replay = replay_claim_events([(CLAIM_JUDGEMENT, body)])
    assert not replay.differences and replay.decisions_checked == 1
    replay = replay_claim_events([(CLAIM_JUDGEMENT, {**body, "search_gaps": []})])
    assert [d.excerpt for d in replay.differences] == ["(found by search)"]


def test_the_negation_is_read_in_the_clause_that_states_the_claim() -> None:
    # Rules 1.3.0: "no association with 8 of the 10 cancers; use was associated with increased risk
    # of prostate cancer" states an association with prostate cancer, whatever the first clause denies.
    from aletheia.core.claim_judge import judge_excerpt

    claim = "Metformin use is not associated with an increased risk of kidney cancer."
    excerpt = (
        "In adjusted analyses, there was no association with 6 of the 9 other cancers; ever use of"
        " metformin was associated with increased risk of kidney cancer (HR, 1.21)."
    )
    assert judge_excerpt(claim, excerpt).label == "contradicts"
    negated = (
        "Metformin use was not associated with an increased risk of kidney cancer;"
        " 12 patients left the study."
    )
    assert judge_excerpt(claim, negated).label == "supports"


def test_two_null_effects_in_other_words_agree() -> None:
    # Rules 1.3.0: "shows no benefit" and "had little effect" both say there is no effect; the
    # negation inside "no benefit" is not one more flip. A stated effect is still against it.
    from aletheia.core.claim_judge import judge_excerpt

    claim = "Gastric lavage shows no benefit for acute methanol poisoning."
    null = "Gastric lavage had little effect on outcomes in patients with acute methanol poisoning."
    assert judge_excerpt(claim, null).label == "supports"
    effect = "Gastric lavage improved outcomes in patients with acute methanol poisoning."
    assert judge_excerpt(claim, effect).label != "supports"


def test_a_name_the_claim_glosses_in_brackets_is_one_name() -> None:
    # Rules 1.3.0: "zidovudine (AZT)": the letters are not the initials, the claim still says the
    # two are one drug, and an excerpt naming the drug names the claim's key term.
    from aletheia.core.claim_judge import judge_excerpt
    from aletheia.core.claim_terms import claim_abbreviations

    assert claim_abbreviations("Q151M mutations cause resistance to stavudine (d4T).") == {"d4t": "stavudine"}
    claim = "Q151M mutations cause resistance to stavudine (d4T)."
    excerpt = (
        "Recombinant enzymes carrying Q151M showed the mutations cause resistance to stavudine in every"
        " assay."
    )
    label = judge_excerpt(claim, excerpt)
    assert label.label == "supports", label.reasons


def test_a_document_of_the_labelled_paper_is_that_paper() -> None:
    # Citation-Integrity: documents 31017 and 31042 are two sentence sets of paper 31.
    item = SearchClaim(
        19, "Patients with cirrhosis are at increased risk", {31017: "SUPPORT", 40052: "REFUTE"}, {}, 1000
    )
    assert item.paper_label(31042) == "SUPPORT" and item.paper_label(40001) == "REFUTE"
    assert item.paper_label(52000) == "unlinked"
    assert SearchClaim(1, "x", {31017: "SUPPORT"}, {}).paper_label(31042) == "unlinked"
