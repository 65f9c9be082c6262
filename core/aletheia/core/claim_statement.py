"""What an excerpt states against or beside a claim (pure; the claim judge's reading of the two).

`statement_findings` reads both strings through the rule tables of `claim_judge_rules` (data) and
`claim_sentence_cues`, and sorts what it finds into contradictions (a negation or a direction that
flips the statement, equivalence against difference, a number out of range in the same unit, a
quantifier that cannot hold) and reasons the excerpt is not enough (a hedge, an aim rather than a
finding, another population, a number not stated). `claim_judge` weighs them with the excerpt's
relevance to decide supports / contradicts / not_enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aletheia.core import claim_direction_rules as direction_rules
from aletheia.core import claim_judge_rules as rules
from aletheia.core import claim_sentence_cues as cues
from aletheia.core.claim_directions import direction_flips, directions, sides_on_measure
from aletheia.core.claim_reading import fits, has_phrase, phrase_positions, quantities, tokens_of
from aletheia.core.claim_terms import numbered_names_not_stated
from aletheia.core.lexical_ranking import stem
from aletheia.core.text import strip_accents

__all__ = ["Findings", "statement_findings"]


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


@dataclass
class Findings:
    """Rule codes found so far: against the claim, short of it, and notes kept with a support."""

    contradicts: list[str]
    not_enough: list[str]
    notes: list[str]


_PLAIN_WORD: Final = re.compile(r"[a-z]+")
_CLAUSE: Final = re.compile(r"([;:,])")
# A negation whose object is elided ("n = 386 with cirrhosis and n = 359 without, all adults") negates
# nothing that follows the comma or the bracket.
_ELLIPTIC_NEGATION: Final = re.compile(r"\b(?:without|not|no)\s*(?=[,;:)\]])", re.IGNORECASE)


def _clauses(text: str) -> list[str]:
    """The text's clauses, split at `,` `;` `:`. A sentence's first part, before a comma, that opens
    with a preposition (`cues.FRONTED_PREPOSITIONS`) is a fronted adverbial of the clause after it,
    not a clause of its own: "In the absence of TNF, granuloma formation was accelerated" is one
    clause (1.4.0). A negation with its object elided before a comma or a bracket is dropped."""
    pieces = _CLAUSE.split(_ELLIPTIC_NEGATION.sub("", text))
    parts = pieces[::2]
    words = tokens_of(parts[0])
    if len(parts) > 1 and pieces[1] == "," and words and words[0] in cues.FRONTED_PREPOSITIONS:
        parts[:2] = [f"{parts[0]} {parts[1]}"]
    return parts


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


def _stating_clauses(excerpt: str, shared: set[str]) -> list[list[str]]:
    """The clause of the excerpt that states the claim, as tokens: the one holding the most of the
    terms the claim and the excerpt share ("no association with 8 of the 10 cancers; use was
    associated with prostate cancer" states "associated with prostate cancer"). A negation reaches
    no further than its clause, and another clause's says nothing of the claim. Clauses tied on
    them are all read."""
    clauses = [tokens_of(part) for part in _clauses(excerpt)]
    held = [len({stem(token) for token in clause} & shared) for clause in clauses]
    most = max(held, default=0)
    return [clause for clause, count in zip(clauses, held, strict=True) if count == most]


def _without_null_phrases(tokens: list[str], *, keep_last: bool = False) -> list[str]:
    """The tokens with each null-effect phrase ("no benefit", "not associated") blanked, or cut to
    its last word (`keep_last`: the term a negation's scope may still reach)."""
    tokens = list(tokens)
    for phrase in rules.NULL_EFFECT_CUES:
        size = len(phrase) - 1 if keep_last else len(phrase)
        for start in phrase_positions(tokens, phrase):
            tokens[start : start + size] = ["_"] * size
    return tokens


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
    out: Findings,
) -> None:
    # A negation reaches no further than its clause ("no association with 8 cancers; use was
    # associated with prostate cancer", "higher tau, unrelated to amyloid, and editing rescued it").
    claim_clauses = [tokens_of(part) for part in _clauses(claim)]
    excerpt_clauses = _stating_clauses(excerpt, shared)
    # Both saying there is no effect, in other words ("no benefit" / "had little effect"), agree:
    # the negation inside a null-effect phrase is that phrase's own, not one more flip.
    # Nor is a direction word inside it ("no benefit") a direction the other must state.
    both_null = any(has_phrase(c, rules.NULL_EFFECT_CUES) for c in claim_clauses) and any(
        has_phrase(c, rules.NULL_EFFECT_CUES) for c in excerpt_clauses
    )
    if both_null:
        claim_clauses = [_without_null_phrases(c, keep_last=True) for c in claim_clauses]
        excerpt_clauses = [_without_null_phrases(c, keep_last=True) for c in excerpt_clauses]
    claim_negations = sum(_negations(clause, shared) for clause in claim_clauses)
    excerpt_negations = sum(_negations(clause, shared) for clause in excerpt_clauses)
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
    if both_null:
        claim_tokens, excerpt_tokens = (
            _without_null_phrases(claim_tokens),
            _without_null_phrases(excerpt_tokens),
        )
    _direction_stated(claim_tokens, excerpt_tokens, shared, out)


def _direction_stated(
    claim_tokens: list[str], excerpt_tokens: list[str], shared: set[str], out: Findings
) -> None:
    """The effect the claim states must be stated by the excerpt, one way only. Where the excerpt
    names no side of the claim's pair, the same side of another pair, with no opposite side
    anywhere, states it ("enhances" / "induced"; the pairs list the positive side first)."""
    excerpt_dirs = directions(excerpt_tokens)
    comparative = has_phrase(claim_tokens, rules.COMPARISON_CUES)
    excerpt_sides = {side for sides in excerpt_dirs.values() for side in sides}
    for pair, sides in directions(claim_tokens).items():
        stated = excerpt_dirs.get(pair)
        if len(sides) != 1:
            # The claim states both ways ("enhanced production damages control"): so must the excerpt.
            if stated != sides:
                out.not_enough.append(
                    f"direction_not_stated: {direction_rules.DIRECTION_PAIRS[pair][0][0]} and its opposite"
                )
            continue
        if not stated and excerpt_sides == sides:
            continue
        if not stated:
            out.not_enough.append(
                f"direction_not_stated: {direction_rules.DIRECTION_PAIRS[pair][min(sides)][0]}"
            )
        elif len(stated) == 2:
            # Both ways in one sentence: the way stated on the claim's measure decides (1.5.0),
            # unless the claim compares two groups ("lower after X than after Y"): each group's
            # measure is then the same words, and the order of the groups decides, unread here.
            if comparative or sides_on_measure(claim_tokens, excerpt_tokens, shared, pair) != sides:
                out.not_enough.append(
                    f"direction_mixed: {direction_rules.DIRECTION_PAIRS[pair][min(sides)][0]}"
                )
        elif stated != sides:
            # Only the opposite, on a measure the direction rule could not tie to the claim's: not
            # a contradiction it can show, and no support either.
            out.not_enough.append(
                f"direction_opposite: {direction_rules.DIRECTION_PAIRS[pair][min(sides)][0]}"
            )


_HEADINGS: Final = "|".join(cues.STUDY_HEADINGS)
_HEADING: Final = re.compile(rf"(?:{_HEADINGS})(?:\s*(?:,|AND)\s*(?:{_HEADINGS}))*\b(?![a-z])")


def _assertion(claim_tokens: list[str], excerpt: str, excerpt_tokens: list[str], out: Findings) -> None:
    if (
        _HEADING.match(excerpt.lstrip())
        or excerpt.rstrip().endswith("?")
        or (
            has_phrase(excerpt_tokens, cues.NON_ASSERTION_CUES)
            and not has_phrase(claim_tokens, cues.NON_ASSERTION_CUES)
        )
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


def _effects(claim_tokens: list[str], excerpt_tokens: list[str], out: Findings) -> None:
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


def _numbers(claim_tokens: list[str], excerpt_tokens: list[str], out: Findings) -> None:
    stated = quantities(excerpt_tokens)
    for wanted in quantities(claim_tokens):
        same_unit = [q for q in stated if q.unit == wanted.unit]
        if any(fits(wanted, q) for q in same_unit):
            continue
        # A number the claim gives no unit ("on serine 65 by PINK1") is stated by the same value
        # with the word the excerpt puts after it ("at serine 65, homologous to"): 1.5.0.
        if not wanted.unit and any(q.unit not in ("%", "ratio") and fits(wanted, q) for q in stated):
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


def _quantifier_relation(claim_tokens: list[str], excerpt_tokens: list[str], out: Findings) -> None:
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


def _population(claim_tokens: list[str], excerpt_tokens: list[str], out: Findings) -> None:
    comparative = has_phrase(claim_tokens, rules.COMPARISON_CUES)
    for axis in rules.POPULATION_AXES:
        wanted, stated = _groups(claim_tokens, axis), _groups(excerpt_tokens, axis)
        if axis.general is not None:
            # "older adults" are adults; "adults and children" are two groups.
            wanted = wanted - {axis.general} if wanted & set(axis.within_general) else wanted
            stated = stated - {axis.general} if stated & set(axis.within_general) else stated
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


def _hedge(claim_tokens: list[str], excerpt_tokens: list[str], out: Findings) -> None:
    claim_hedged = has_phrase(claim_tokens, rules.HEDGE_CUES)
    strong = any(stem(t).startswith(rules.STRONG_CLAIM_STEMS) for t in claim_tokens)
    if strong and not claim_hedged and has_phrase(excerpt_tokens, rules.HEDGE_CUES):
        out.not_enough.append("hedged_excerpt_for_strong_claim")


def statement_findings(claim: str, excerpt: str, shared: set[str]) -> Findings:
    """What the excerpt states against or beside the claim: polarity, assertion, effects, numbers,
    quantifiers, populations, hedges."""
    claim_tokens, excerpt_tokens = tokens_of(claim), tokens_of(excerpt)
    findings = Findings([], [], [])
    _polarity(claim, excerpt, claim_tokens, excerpt_tokens, shared, findings)
    _assertion(claim_tokens, excerpt, excerpt_tokens, findings)
    _effects(claim_tokens, excerpt_tokens, findings)
    _numbers(claim_tokens, excerpt_tokens, findings)
    _quantifier_relation(claim_tokens, excerpt_tokens, findings)
    _population(claim_tokens, excerpt_tokens, findings)
    _hedge(claim_tokens, excerpt_tokens, findings)
    findings.not_enough.extend(numbered_names_not_stated(claim_tokens, excerpt_tokens))
    return findings
