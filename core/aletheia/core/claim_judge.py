"""The offline claim judge: does this excerpt support the claim, contradict it, or neither? (pure)

`verify_and_cite` cites a paper for a claim only when one of the paper's own sentences, located
verbatim, *supports* the claim and none *contradicts* it. Locating a quote proves the paper says
it; it does not prove that what the paper says is what the claim says. This module decides that,
deterministically and conservatively, from the rule tables in `claim_judge_rules` (data); what the
excerpt states beside the claim is read by `claim_statement`:

- relevance: the excerpt must hold most of the claim's content terms to support it, and a fair
  share of them for a contradiction found in it to count;
- polarity: a negation whose scope covers a term both share, and every effect stated in the
  opposite direction ("increases" / "reduced"), flip the statement; an odd number of flips is a
  contradiction (two cancel: "less sleep worsens memory" says what "more sleep improves memory" says);
- null effects and equivalence: "no difference", "comparable", "as effective as" against a claim of an
  effect or a difference, and the reverse;
- numbers and ranges: each number of the claim must be found, in the same unit, in the excerpt
  (bounds such as "under 30%" and ranges such as "between 3 and 4" included); a number in the same
  unit that does not fit is a contradiction;
- quantifiers: "all" / "most" / "few" / "some" (and "the majority" against a share under half);
- population: men/women, adults/children, in vitro/patients, animals/humans;
- hedges: a claim of cause or cure is not supported by an excerpt that only suggests or associates.

When a rule cannot tell, the answer is `not_enough`, which refuses (default-deny). The judge never
reads anything but the two strings: it is the same in every process and in a replay.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from aletheia.core import claim_judge_rules as rules
from aletheia.core.claim_directions import direction_family, direction_index, direction_words
from aletheia.core.claim_reading import tokens_of
from aletheia.core.claim_statement import Findings, statement_findings
from aletheia.core.claim_terms import (
    abbreviations,
    claim_abbreviations,
    expanded,
    key_terms,
    missing_key_terms,
    same_word,
    subject_and_predicate,
    without_citation_mentions,
    without_reporting_frame,
)
from aletheia.core.excerpts import PaperText, sentences_of
from aletheia.core.lexical_ranking import content_terms, rank_sentences, stem

__all__ = [
    "JUDGE_NAME",
    "ClaimJudgement",
    "ExcerptJudgement",
    "JudgementLabel",
    "excerpts_to_judge",
    "judge_claim",
    "judge_excerpt",
    "paper_abbreviations",
]

JudgementLabel = Literal["supports", "contradicts", "not_enough"]
JUDGE_NAME: Final = f"rules:{rules.JUDGE_RULES_VERSION}"
_HYPHENATED: Final = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


class ExcerptJudgement(BaseModel):
    """One excerpt judged against one claim: the label, the rules that decided it, and why."""

    model_config = ConfigDict(frozen=True)

    excerpt: str
    label: JudgementLabel
    reasons: tuple[str, ...] = ()  # rule codes: coverage, negation_flip, number_mismatch, ...
    explanation: str = ""
    location: str | None = None
    judge: str = JUDGE_NAME


class ClaimJudgement(BaseModel):
    """Every candidate excerpt's judgement. The claim is supported only when one excerpt supports it
    and none contradicts it."""

    model_config = ConfigDict(frozen=True)

    claim: str
    judgements: tuple[ExcerptJudgement, ...]
    judge: str = JUDGE_NAME
    # The claim's content terms the paper's whole text never uses (the rules judge's evidence).
    absent_terms: tuple[str, ...] = ()
    # The abbreviations the paper defines, (abbreviation key, long form): "CR" is "caloric restriction".
    abbreviations: tuple[tuple[str, str], ...] = ()

    @property
    def supporting(self) -> tuple[ExcerptJudgement, ...]:
        return tuple(j for j in self.judgements if j.label == "supports")

    @property
    def contradicting(self) -> tuple[ExcerptJudgement, ...]:
        return tuple(j for j in self.judgements if j.label == "contradicts")

    @property
    def supported(self) -> bool:
        return bool(self.supporting) and not self.contradicting


# --- the judgement ----------------------------------------------------------------------------------------


def _relevance(claim: str, excerpt: str, known: Mapping[str, str]) -> tuple[float, set[str], set[str]]:
    """Share of the claim's content terms in the excerpt; an abbreviation counts as its long form
    and the long form as the abbreviation ("CR" in the excerpt holds "caloric restriction")."""
    wanted = set(content_terms(claim))
    present = set(content_terms(expanded(excerpt, known)))
    # A compound is one word written whole or hyphenated ("birth-weight" / "birthweight").
    for compound in _HYPHENATED.findall(claim):
        if stem(compound.replace("-", "").casefold()) in present:
            present |= set(content_terms(compound))
    present |= {key for key, long_form in known.items() if set(content_terms(long_form)) <= present}
    # A light word ("occurs", "is involved in", "plays a role", "has the capacity to") carries no
    # content of its own: an excerpt stating the rest of the claim need not repeat it (1.4.0).
    present |= wanted & rules.LIGHT_TERMS
    shared = wanted & present
    # The same word with another ending or spelling ("hypoglycemia" / "hypoglycaemia"): both forms
    # are shared, so that a negation reaching the excerpt's form reaches the claim's (1.4.0).
    for term in wanted - shared:
        variants = {other for other in present if same_word(term, {other})}
        if variants:
            shared |= {term, *variants}
    # A direction said in another word of the same side ("increases" / "higher", "reduces" /
    # "lowered") is said: the direction rules read which way it goes (1.5.0). Both words are
    # shared, as two endings of one word are.
    shared |= _same_direction_terms(claim, excerpt, wanted - shared)
    return (len(shared & wanted) / len(wanted) if wanted else 0.0), shared, wanted


def _same_direction_terms(claim: str, excerpt: str, unshared: set[str]) -> set[str]:
    """The claim's direction words (stemmed) among `unshared` whose family and side the excerpt
    states in a word of its own (`claim_directions.direction_index`; ratio values are not read
    here), with the excerpt's words that state them."""
    index = direction_index()

    def sides(tokens: list[str]) -> dict[str, set[tuple[int, int]]]:
        return {
            token: {(direction_family(pair), side) for pair, side in index[token]}
            for token in tokens
            if token in index
        }

    theirs = sides(tokens_of(excerpt))
    found: set[str] = set()
    for token, said in sides(tokens_of(claim)).items():
        terms = set(content_terms(token)) & unshared
        stating = [other for other, their_sides in theirs.items() if said & their_sides]
        if terms and stating:
            found |= terms | {term for other in stating for term in content_terms(other)}
    return found


_EXPLAIN: Final = {
    "negation_flip": "the excerpt negates what the claim asserts (or asserts what it negates)",
    "direction_flip": "the excerpt states the effect in the opposite direction",
    "equivalence_vs_difference": "the claim says the two are alike; the excerpt finds a difference",
    "difference_vs_equivalence": "the claim says there is a difference; the excerpt finds them alike",
    "null_effect_mismatch": "one says there is no effect, the other does not",
    "hedged_excerpt_for_strong_claim": "the claim asserts cause or certainty; the excerpt only suggests it",
    "majority_vs_share_under_half": "the claim says a majority; the excerpt's shares are all under half",
    "claim_terms_absent_from_paper": "the claim names things the paper never mentions",
    "not_an_assertion": "the excerpt states an aim, a question, a hypothesis or a method, not a finding",
    "negation_count_differs": "one side negates more than the other: the negations may not cancel",
    "negation_and_direction": "a negation and a reversed direction: 'does not increase' is not 'decreases'",
    "comparison_not_stated": "the claim compares; the excerpt does not",
}


def _explain(codes: Sequence[str]) -> str:
    return "; ".join(_EXPLAIN.get(code, code) for code in codes)


def _not_about_the_claim(
    claim: str, excerpt: str, shared: set[str], known: Mapping[str, str], absent_terms: Sequence[str]
) -> list[str]:
    """Reason codes for what the excerpt (or the paper) does not say of what the claim is about:
    its key terms, at least half of its subject's words and of its predicate's (the head among
    them, as a rule: "Activated Cdk5" is named by "Cdk5 ..., activated by", "Myelin sheaths" is not
    by "trophic role"), and the subject's head somewhere in the paper."""
    codes: list[str] = []
    subject, predicate = subject_and_predicate(claim, direction_words())
    # A paper that never says "semaglutide" is not about it, whatever its sentence on adverse
    # cardiovascular events shares. The head is the subject's last word ("adult tissue-resident
    # macrophages"); an abbreviation counts as its long form; a subject named by a code ("PRDM1
    # gene") is held to the key-term rule instead.
    head = subject[-1:]
    if any(term in subject for key in key_terms(claim) for term in content_terms(key)):
        head = ()
    defined = {term for key in known for term in content_terms(key)}
    absent_subject = [term for term in head if term in absent_terms and term not in defined]
    if absent_subject:
        codes.append(f"subject_absent_from_paper: {', '.join(absent_subject)}")
    if missing := missing_key_terms(claim, excerpt, known):
        codes.append(f"key_term_absent: {', '.join(missing)}")
    for part, words in (("subject", subject), ("predicate", predicate)):
        unstated = [term for term in words if term not in shared]
        if 2 * len(unstated) > len(words):
            codes.append(f"{part}_not_stated: {', '.join(unstated)}")
    return codes


def _numbers_of_something_else(findings: Findings) -> None:
    """A number belongs to its sentence: one that states another quantity of something else ("the
    edge cut fell by 12%" against "halves the memory footprint") is not evidence against the claim
    unless the sentence is about what the claim is about."""
    numeric = [code for code in findings.contradicts if code.startswith("number_mismatch")]
    findings.contradicts = [code for code in findings.contradicts if code not in numeric]
    findings.not_enough.extend(code.replace("number_mismatch", "number_differs") for code in numeric)


def judge_excerpt(
    claim: str,
    excerpt: str,
    *,
    location: str | None = None,
    absent_terms: Sequence[str] = (),
    known_abbreviations: Mapping[str, str] | Sequence[tuple[str, str]] = (),
) -> ExcerptJudgement:
    """Judge one excerpt (the paper's own words) against the claim: supports / contradicts /
    not_enough, with the rule codes that decided it. `absent_terms` are the claim's content terms
    that the paper's whole text never uses (`claim_terms_absent`): past
    `MAX_CLAIM_TERMS_ABSENT_FROM_PAPER` of them, the claim says more than the paper does.
    `known_abbreviations`: the paper's definitions (`claim_terms.abbreviations`); the claim's own
    are read here."""
    claim = without_reporting_frame(without_citation_mentions(claim))
    known = claim_abbreviations(claim)
    known.update(dict(known_abbreviations))
    share, shared, wanted = _relevance(claim, excerpt, known)
    held = len(shared & wanted)
    off_subject = _not_about_the_claim(claim, excerpt, shared, known, absent_terms)
    findings = statement_findings(claim, excerpt, shared)
    findings.not_enough.extend(off_subject)
    if any(not code.startswith("subject_absent") for code in off_subject) or (
        "not_an_assertion" in findings.not_enough
    ):
        # A contradiction needs the same subject (the claim's key terms) stated as a finding: an
        # aim, a hypothesis or a sentence about another gene says nothing against the claim.
        findings.not_enough.extend(f"not_against: {code}" for code in findings.contradicts)
        findings.contradicts = []
    coverage_code = f"coverage {held}/{len(wanted)}"

    def judgement(label: JudgementLabel, reasons: Sequence[str], explanation: str) -> ExcerptJudgement:
        return ExcerptJudgement(
            excerpt=excerpt, label=label, reasons=tuple(reasons), explanation=explanation, location=location
        )

    if len(wanted) < rules.MIN_CLAIM_TERMS:
        why = f"the claim has {len(wanted)} content term(s): too little to judge"
        return judgement("not_enough", ("claim_too_short", coverage_code), why)
    relevant = share >= rules.CONTRADICT_MIN_COVERAGE and held >= min(
        rules.CONTRADICT_MIN_SHARED, len(wanted)
    )
    enough = share >= rules.SUPPORT_MIN_COVERAGE and held >= min(rules.SUPPORT_MIN_SHARED, len(wanted))
    if not enough:
        _numbers_of_something_else(findings)
    if findings.contradicts and relevant:
        return judgement(
            "contradicts", (*findings.contradicts, coverage_code), _explain(findings.contradicts)
        )
    if not enough:
        why = f"the excerpt holds {held} of the claim's {len(wanted)} content terms"
        return judgement("not_enough", ("low_coverage", coverage_code, *findings.not_enough), why)
    blockers = [*findings.not_enough, *findings.contradicts]
    if len(absent_terms) > rules.MAX_CLAIM_TERMS_ABSENT_FROM_PAPER:
        blockers.append(f"claim_terms_absent_from_paper: {', '.join(absent_terms)}")
    if blockers:
        return judgement("not_enough", (*blockers, coverage_code), _explain(blockers))
    stated = f"states the claim: {held} of its {len(wanted)} content terms, nothing negated,"
    return judgement("supports", (coverage_code, *findings.notes), stated + " reversed, or out of range")


def judge_claim(
    claim: str,
    excerpts: Sequence[tuple[str, str | None]],
    *,
    absent_terms: Sequence[str] = (),
    known_abbreviations: Sequence[tuple[str, str]] = (),
) -> ClaimJudgement:
    """Every (excerpt, location) judged; duplicates judged once. `absent_terms`,
    `known_abbreviations`: see `judge_excerpt` (kept with the judgement, so that a replay judges
    exactly as the decision did)."""
    seen: set[str] = set()
    judgements: list[ExcerptJudgement] = []
    for text, location in excerpts:
        if text in seen:
            continue
        seen.add(text)
        judgements.append(
            judge_excerpt(
                claim,
                text,
                location=location,
                absent_terms=absent_terms,
                known_abbreviations=known_abbreviations,
            )
        )
    return ClaimJudgement(
        claim=claim,
        judgements=tuple(judgements),
        absent_terms=tuple(absent_terms),
        abbreviations=tuple(known_abbreviations),
    )


def paper_abbreviations(paper_text: str) -> tuple[tuple[str, str], ...]:
    """Every abbreviation the paper defines (`claim_terms.abbreviations`), sorted: kept with the
    judgement for replay. All of them, not those of the claim alone: one abbreviation's long form,
    added to an excerpt, can complete another's, so no smaller set is sure to judge the same."""
    return tuple(sorted(abbreviations(paper_text).items()))


def excerpts_to_judge(claim: str, paper: PaperText, *, limit: int = 5) -> list[str]:
    """The sentences of the paper that speak to the claim, best first (BM25): the ones a
    contradiction would be in as much as the ones a support would. Nothing is filtered for
    polarity here; that is the judge's work."""
    sentences = [sentence for sentence, _ in sentences_of(paper)]
    wanted = set(content_terms(claim))
    chosen: list[str] = []
    for ranked in rank_sentences(claim, sentences):
        shared = round(ranked.coverage * len(wanted))
        if ranked.coverage < rules.CONTRADICT_MIN_COVERAGE or shared < min(
            rules.CONTRADICT_MIN_SHARED, len(wanted)
        ):
            continue
        chosen.append(ranked.text)
        if len(chosen) >= limit:
            break
    return chosen
