"""The offline claim judge: does this excerpt support the claim, contradict it, or neither? (pure)

`verify_and_cite` cites a paper for a claim only when one of the paper's own sentences, located
verbatim, *supports* the claim and none *contradicts* it. Locating a quote proves the paper says
it; it does not prove that what the paper says is what the claim says. This module decides that,
deterministically and conservatively, from the rule tables in `claim_judge_rules` (data):

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
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from aletheia.core import claim_judge_rules as rules
from aletheia.core import claim_sentence_cues as cues
from aletheia.core.claim_directions import direction_flips, direction_words, directions
from aletheia.core.claim_reading import fits, has_phrase, phrase_positions, quantities, tokens_of
from aletheia.core.claim_terms import (
    abbreviations,
    expanded,
    key_terms,
    missing_key_terms,
    numbered_names_not_stated,
    subject_and_predicate,
    without_citation_mentions,
)
from aletheia.core.excerpts import PaperText, sentences_of
from aletheia.core.lexical_ranking import content_terms, rank_sentences, stem
from aletheia.core.text import strip_accents

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


# --- polarity -------------------------------------------------------------------------------------------


def _negations(tokens: Sequence[str], shared: set[str]) -> int:
    """Negations whose scope covers a term the claim and the excerpt share."""
    count = 0
    taken: set[int] = set()
    for cue in rules.NEGATION_CUES:
        for start in phrase_positions(tokens, cue.words):
            if start in taken:
                continue
            if any(tuple(tokens[start : start + len(e)]) == e for e in rules.NEGATION_EXCEPTIONS):
                continue
            if start > 0 and tokens[start - 1] in rules.CONTRASTIVE_BEFORE_NEGATION:
                continue  # "... in chronic, but not in episodic, headache": the alternative is negated
            scope = tokens[start + len(cue.words) : start + len(cue.words) + cue.scope]
            if any(stem(token) in shared for token in scope):
                count += 1
                taken.update(range(start, start + len(cue.words)))
    return count


# --- quantifiers and populations --------------------------------------------------------------------------


def _quantifiers(tokens: Sequence[str]) -> set[str]:
    words = set(tokens)
    return {q.name for q in rules.QUANTIFIERS if words & set(q.words)}


def _groups(tokens: Sequence[str], axis: rules.PopulationAxis) -> set[str]:
    found: set[str] = set()
    for group, words in axis.groups:
        if has_phrase(tokens, (tuple(word.split()) for word in words)):
            found.add(group)
    return found


# --- the judgement ----------------------------------------------------------------------------------------


@dataclass
class _Findings:
    contradicts: list[str]
    not_enough: list[str]
    notes: list[str]


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
    shared = wanted & present
    return (len(shared) / len(wanted) if wanted else 0.0), shared, wanted


_PLAIN_WORD: Final = re.compile(r"[a-z]+")
_CLAUSE: Final = re.compile(r"[;:,]")


def _prefix_negations(claim: str, excerpt: str) -> int:
    """Words one side negates with a prefix and the other states plainly ("inaccurate"/"accurate")."""
    claim_words = set(_PLAIN_WORD.findall(strip_accents(claim).casefold()))
    excerpt_words = set(_PLAIN_WORD.findall(strip_accents(excerpt).casefold()))
    size = rules.NEGATIVE_PREFIX_MIN_ROOT

    def roots(words: set[str]) -> set[str]:
        return {word[:size] for word in words if len(word) >= size}

    def negated(words: set[str], other: set[str]) -> bool:
        other_roots, own_roots = roots(other), roots(words)
        for word in words:
            for prefix in rules.NEGATIVE_PREFIXES:
                root = word[len(prefix) :]
                if (
                    word.startswith(prefix)
                    and len(root) >= size
                    and root[:size] in other_roots
                    and word[:size] not in other_roots
                    and root[:size] not in own_roots
                ):
                    return True
        return False

    flips = int(negated(claim_words, excerpt_words)) + int(negated(excerpt_words, claim_words))
    if not flips and _compound_negated(tokens_of(claim), tokens_of(excerpt)):
        flips = 1
    return flips


def _compound_negated(claim_tokens: list[str], excerpt_tokens: list[str]) -> bool:
    """The same compound with its last part negated by a prefix ("UCP1-dependent" / "UCP1-independent"),
    whatever else either text says ("ATP-dependent" elsewhere in the sentence does not undo it)."""

    def compounds(tokens: list[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for token in tokens:
            head, dash, last = token.rpartition("-")
            if dash and head and last.isalpha():
                out.setdefault(head, set()).add(last)
        return out

    ours, theirs = compounds(claim_tokens), compounds(excerpt_tokens)
    for head, lasts in ours.items():
        for a in lasts:
            for b in theirs.get(head, ()):
                if a != b and any(
                    (a == prefix + b or b == prefix + a)
                    and len(min(a, b, key=len)) >= rules.NEGATIVE_PREFIX_MIN_ROOT
                    for prefix in rules.NEGATIVE_PREFIXES
                ):
                    return True
    return False


def _polarity(
    claim: str,
    excerpt: str,
    claim_tokens: list[str],
    excerpt_tokens: list[str],
    shared: set[str],
    out: _Findings,
) -> None:
    # A negation reaches no further than its clause ("no association with 8 cancers; use was
    # associated with prostate cancer", "higher tau, unrelated to amyloid, and editing rescued it").
    claim_negations = sum(_negations(tokens_of(part), shared) for part in _CLAUSE.split(claim))
    excerpt_negations = sum(_negations(tokens_of(part), shared) for part in _CLAUSE.split(excerpt))
    negation_flip = (claim_negations + excerpt_negations + _prefix_negations(claim, excerpt)) % 2
    reversed_directions = direction_flips(claim_tokens, excerpt_tokens, shared)
    if (negation_flip + reversed_directions) % 2 == 1:
        code = "negation_flip" if negation_flip else "direction_flip"
        out.contradicts.append(code)
    elif negation_flip and reversed_directions:
        # "does not increase" is not "decreases": a negation and a reversed direction do not
        # cancel into a support (two reversed directions do: "less sleep worsens memory").
        out.not_enough.append("negation_and_direction")
    elif claim_negations != excerpt_negations and not negation_flip:
        # Two negations on one side and none on the other do not cancel: each may negate another
        # part of the sentence ("does not reduce X and is not safe" against "reduces X and is safe").
        out.not_enough.append("negation_count_differs")
    # The effect the claim states must be stated by the excerpt, one way only. Where the excerpt
    # names no side of the claim's pair, the same side of another pair, with no opposite side
    # anywhere, states it ("enhances" / "induced"; the pairs list the positive side first).
    excerpt_dirs = directions(excerpt_tokens)
    excerpt_sides = {side for sides in excerpt_dirs.values() for side in sides}
    for pair, sides in directions(claim_tokens).items():
        stated = excerpt_dirs.get(pair)
        if len(sides) != 1:
            # The claim states both ways ("enhanced production damages control"): so must the excerpt.
            if stated != sides:
                out.not_enough.append(
                    f"direction_not_stated: {rules.DIRECTION_PAIRS[pair][0][0]} and its opposite"
                )
            continue
        if not stated and excerpt_sides == sides:
            continue
        if not stated:
            out.not_enough.append(f"direction_not_stated: {rules.DIRECTION_PAIRS[pair][min(sides)][0]}")
        elif len(stated) == 2:
            out.not_enough.append(f"direction_mixed: {rules.DIRECTION_PAIRS[pair][min(sides)][0]}")
        elif stated != sides:
            # Only the opposite, on a measure the direction rule could not tie to the claim's: not
            # a contradiction it can show, and no support either.
            out.not_enough.append(f"direction_opposite: {rules.DIRECTION_PAIRS[pair][min(sides)][0]}")


def _assertion(claim_tokens: list[str], excerpt: str, excerpt_tokens: list[str], out: _Findings) -> None:
    if excerpt.rstrip().endswith("?") or (
        has_phrase(excerpt_tokens, cues.NON_ASSERTION_CUES)
        and not has_phrase(claim_tokens, cues.NON_ASSERTION_CUES)
    ):
        out.not_enough.append("not_an_assertion")
    if has_phrase(excerpt_tokens, cues.ATTRIBUTION_CUES):
        out.not_enough.append("attributed_to_other_works")
    comparative = has_phrase(claim_tokens, rules.DIFFERENCE_CUES) or has_phrase(
        claim_tokens, rules.COMPARISON_CUES
    )
    if comparative and not (
        has_phrase(excerpt_tokens, rules.DIFFERENCE_CUES) or has_phrase(excerpt_tokens, rules.COMPARISON_CUES)
    ):
        out.not_enough.append("comparison_not_stated")


def _effects(claim_tokens: list[str], excerpt_tokens: list[str], out: _Findings) -> None:
    claim_null = has_phrase(claim_tokens, rules.NULL_EFFECT_CUES)
    excerpt_null = has_phrase(excerpt_tokens, rules.NULL_EFFECT_CUES)
    claim_equal = has_phrase(claim_tokens, rules.EQUIVALENCE_CUES)
    excerpt_equal = has_phrase(excerpt_tokens, rules.EQUIVALENCE_CUES)
    claim_differs = has_phrase(claim_tokens, rules.DIFFERENCE_CUES)
    excerpt_differs = has_phrase(excerpt_tokens, rules.DIFFERENCE_CUES)
    if claim_equal and excerpt_differs and not excerpt_equal:
        out.contradicts.append("equivalence_vs_difference")
    elif claim_differs and excerpt_equal and not excerpt_differs:
        out.contradicts.append("difference_vs_equivalence")
    elif claim_null != excerpt_null:
        # One side reports no effect; the negation rule decides when the two share its scope.
        # Otherwise the two cannot be read as the same statement.
        out.not_enough.append("null_effect_mismatch")


def _numbers(claim_tokens: list[str], excerpt_tokens: list[str], out: _Findings) -> None:
    stated = quantities(excerpt_tokens)
    for wanted in quantities(claim_tokens):
        same_unit = [q for q in stated if q.unit == wanted.unit]
        if any(fits(wanted, q) for q in same_unit):
            continue
        if same_unit and wanted.unit:
            shown = ", ".join(q.text for q in same_unit[:3])
            out.contradicts.append(f"number_mismatch: {wanted.text} vs {shown}")
        else:
            out.not_enough.append(f"number_not_stated: {wanted.text}")
    claim_quantifiers = _quantifiers(claim_tokens)
    if "most" in claim_quantifiers:
        shares = [q for q in stated if q.unit == "%" and q.relation == "eq"]
        if shares and all(q.high < rules.MAJORITY_SHARE for q in shares):
            out.not_enough.append("majority_vs_share_under_half")


def _quantifier_relation(claim_tokens: list[str], excerpt_tokens: list[str], out: _Findings) -> None:
    excerpt_quantifiers = _quantifiers(excerpt_tokens)
    for wanted in _quantifiers(claim_tokens):
        if wanted in excerpt_quantifiers:
            continue
        for stated in excerpt_quantifiers:
            relation = rules.QUANTIFIER_RELATIONS.get((wanted, stated))
            if relation == "contradicts":
                out.contradicts.append(f"quantifier: {wanted} vs {stated}")
            elif relation == "not_enough":
                out.not_enough.append(f"quantifier: {wanted} vs {stated}")


def _group_order(tokens: Sequence[str], axis: rules.PopulationAxis) -> list[str]:
    """The axis' groups in the order the text first names them."""
    first: dict[str, int] = {}
    for group, words in axis.groups:
        positions = [p for word in words for p in phrase_positions(tokens, tuple(word.split()))]
        if positions:
            first[group] = min(positions)
    return sorted(first, key=first.__getitem__)


def _population(claim_tokens: list[str], excerpt_tokens: list[str], out: _Findings) -> None:
    comparative = has_phrase(claim_tokens, rules.COMPARISON_CUES)
    for axis in rules.POPULATION_AXES:
        wanted, stated = _groups(claim_tokens, axis), _groups(excerpt_tokens, axis)
        if axis.general is not None:
            wanted = wanted - {axis.general} if len(wanted) > 1 else wanted
            stated = stated - {axis.general} if len(stated) > 1 else stated
        if wanted and stated and not wanted <= stated:
            out.not_enough.append(
                f"population_{axis.name}: {'/'.join(sorted(wanted))} vs {'/'.join(sorted(stated))}"
            )
        elif (
            comparative
            and len(wanted) > 1
            and len(stated) > 1
            and _group_order(claim_tokens, axis) != _group_order(excerpt_tokens, axis)
        ):
            # "ten times higher in men than in women" is not "... in women than in men".
            out.not_enough.append(f"comparison_order_{axis.name}")


def _hedge(claim_tokens: list[str], excerpt_tokens: list[str], out: _Findings) -> None:
    claim_hedged = has_phrase(claim_tokens, rules.HEDGE_CUES)
    strong = any(stem(t).startswith(rules.STRONG_CLAIM_STEMS) for t in claim_tokens)
    if strong and not claim_hedged and has_phrase(excerpt_tokens, rules.HEDGE_CUES):
        out.not_enough.append("hedged_excerpt_for_strong_claim")


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
    absent_subject = [term for term in head if term in set(absent_terms) and term not in defined]
    if absent_subject:
        codes.append(f"subject_absent_from_paper: {', '.join(absent_subject)}")
    if missing := missing_key_terms(claim, excerpt, known):
        codes.append(f"key_term_absent: {', '.join(missing)}")
    for part, words in (("subject", subject), ("predicate", predicate)):
        unstated = [term for term in words if term not in shared]
        if 2 * len(unstated) > len(words):
            codes.append(f"{part}_not_stated: {', '.join(unstated)}")
    return codes


def _statement(claim: str, excerpt: str, shared: set[str]) -> _Findings:
    """What the excerpt states against or beside the claim: polarity, assertion, effects, numbers,
    quantifiers, populations, hedges."""
    claim_tokens, excerpt_tokens = tokens_of(claim), tokens_of(excerpt)
    findings = _Findings([], [], [])
    _polarity(claim, excerpt, claim_tokens, excerpt_tokens, shared, findings)
    _assertion(claim_tokens, excerpt, excerpt_tokens, findings)
    _effects(claim_tokens, excerpt_tokens, findings)
    _numbers(claim_tokens, excerpt_tokens, findings)
    _quantifier_relation(claim_tokens, excerpt_tokens, findings)
    _population(claim_tokens, excerpt_tokens, findings)
    _hedge(claim_tokens, excerpt_tokens, findings)
    findings.not_enough.extend(numbered_names_not_stated(claim_tokens, excerpt_tokens))
    return findings


def _numbers_of_something_else(findings: _Findings) -> None:
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
    claim = without_citation_mentions(claim)
    known = dict(abbreviations(claim))
    known.update(dict(known_abbreviations))
    share, shared, wanted = _relevance(claim, excerpt, known)
    off_subject = _not_about_the_claim(claim, excerpt, shared, known, absent_terms)
    findings = _statement(claim, excerpt, shared)
    findings.not_enough.extend(off_subject)
    if any(not code.startswith("subject_absent") for code in off_subject) or (
        "not_an_assertion" in findings.not_enough
    ):
        # A contradiction needs the same subject (the claim's key terms) stated as a finding: an
        # aim, a hypothesis or a sentence about another gene says nothing against the claim.
        findings.not_enough.extend(f"not_against: {code}" for code in findings.contradicts)
        findings.contradicts = []
    coverage_code = f"coverage {len(shared)}/{len(wanted)}"

    def judgement(label: JudgementLabel, reasons: Sequence[str], explanation: str) -> ExcerptJudgement:
        return ExcerptJudgement(
            excerpt=excerpt, label=label, reasons=tuple(reasons), explanation=explanation, location=location
        )

    if len(wanted) < rules.MIN_CLAIM_TERMS:
        why = f"the claim has {len(wanted)} content term(s): too little to judge"
        return judgement("not_enough", ("claim_too_short", coverage_code), why)
    relevant = share >= rules.CONTRADICT_MIN_COVERAGE and len(shared) >= min(
        rules.CONTRADICT_MIN_SHARED, len(wanted)
    )
    enough = share >= rules.SUPPORT_MIN_COVERAGE and len(shared) >= min(rules.SUPPORT_MIN_SHARED, len(wanted))
    if not enough:
        _numbers_of_something_else(findings)
    if findings.contradicts and relevant:
        return judgement(
            "contradicts", (*findings.contradicts, coverage_code), _explain(findings.contradicts)
        )
    if not enough:
        why = f"the excerpt holds {len(shared)} of the claim's {len(wanted)} content terms"
        return judgement("not_enough", ("low_coverage", coverage_code, *findings.not_enough), why)
    blockers = [*findings.not_enough, *findings.contradicts]
    if len(absent_terms) > rules.MAX_CLAIM_TERMS_ABSENT_FROM_PAPER:
        blockers.append(f"claim_terms_absent_from_paper: {', '.join(absent_terms)}")
    if blockers:
        return judgement("not_enough", (*blockers, coverage_code), _explain(blockers))
    stated = f"states the claim: {len(shared)} of its {len(wanted)} content terms, nothing negated,"
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
