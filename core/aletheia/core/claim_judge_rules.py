"""The offline claim judge's rules, as data (read by `aletheia.core.claim_judge`).

Each table is one kind of meaning that lexical overlap cannot see: a sentence can share every word
of a claim and still say the opposite. A row is a rule; a change to a row is a change to what the
judge decides, so `JUDGE_RULES_VERSION` is bumped with it (artifacts and the audit trail name the
version that judged them) and docs/claims.md's rules table follows.

The tables of two kinds of meaning have modules of their own, versioned with these:
`claim_direction_rules` (the direction of an effect) and `claim_number_rules` (numbers, bounds,
ranges); what a sentence does (an aim, an attribution) is in `claim_sentence_cues`.

Words are matched on the judge's token stream: lower-cased, accents stripped, each word stemmed
with `aletheia.core.lexical_ranking.stem` only where a table says `stemmed`. Multi-word cues are matched as
consecutive tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

JUDGE_RULES_VERSION: Final = "1.5.0"

# --- relevance -----------------------------------------------------------------------------------------

# Share of the claim's content terms an excerpt must hold before it can support the claim at all, and
# before a contradiction found in it counts (an unrelated sentence neither supports nor contradicts).
SUPPORT_MIN_COVERAGE: Final = 0.6
SUPPORT_MIN_SHARED: Final = (
    3  # ... and at least this many distinct shared terms (fewer if the claim is short)
)
# A claim that names more than this many things the paper's whole text never mentions says more than
# the paper does ("an Italian study", "in mouse and macaque models"), however well one excerpt matches
# the rest: two are allowed for paraphrase.
MAX_CLAIM_TERMS_ABSENT_FROM_PAPER: Final = 2
# Light words (stems): verbs and nouns that frame a statement without adding to what it states
# ("X occurs in Y", "X is involved in Y", "X plays a role in Y", "X has the capacity to Y"). The
# relevance rule takes them as said; the rest of the claim must still be (1.4.0).
LIGHT_TERMS: Final = frozenset(
    {"occur", "occurr", "involv", "involve", "capac", "abil", "capable", "play", "role"}
)
CONTRADICT_MIN_COVERAGE: Final = 0.34
CONTRADICT_MIN_SHARED: Final = 2

# --- negation ----------------------------------------------------------------------------------------

# Cues that negate what follows them. `scope` is how many tokens after the cue it reaches: a negation
# only flips the statement when a term the claim and the excerpt share lies inside its scope ("no
# patients were lost to follow-up" does not negate "masks reduce transmission").
NEGATION_SCOPE: Final = 8


@dataclass(frozen=True)
class NegationCue:
    words: tuple[str, ...]  # consecutive tokens
    scope: int = NEGATION_SCOPE


NEGATION_CUES: Final[tuple[NegationCue, ...]] = tuple(
    NegationCue(tuple(text.split()))
    for text in (
        "not",
        "no",
        "never",
        "none",
        "neither",
        "nor",
        "without",
        "cannot",
        "lack",
        "lacks",
        "lacking",
        "lacked",
        "absence of",
        "absent",
        "fail to",
        "fails to",
        "failed to",
        "unable to",
        "unrelated",
        "independent of",
        "neither nor",
        "n't",
    )
)

# "X, but not Y" negates a contrasted alternative, not the statement (a cue right after one of these
# words is not a negation of what the sentence asserts).
CONTRASTIVE_BEFORE_NEGATION: Final = frozenset({"but"})

# "not only X but also Y" affirms X; "no more than" bounds a number. These never negate.
NEGATION_EXCEPTIONS: Final[tuple[tuple[str, ...], ...]] = (
    ("not", "only"),
    ("no", "more", "than"),
    ("no", "less", "than"),
    ("not", "less", "than"),
    ("not", "more", "than"),
    ("not", "yet"),
    ("not", "well"),
    ("not", "previously"),
    ("no", "longer"),
)

# --- the claim's subject ------------------------------------------------------------------------------

# A claim's subject is what it is about: the words before its first verb ("ALDH1 expression", "All six
# cathelicidins", "Suboptimal nutrition"). Its content words must be in the excerpt: a
# sentence about "most osteoporosis treatments" is no evidence for "Risedronate reduces the risk".
# (At least half of them, in `claim_judge`: "Activated Cdk5" is named by "Cdk5, activated by".) The
# same holds for what the claim says of its subject, the words after the verb: "F4/80+ macrophages
# are located in the periosteum" is not shown by a sentence on splenic F4/80+ macrophages.
# The verb is found by these words (auxiliaries and common claim verbs, every form listed) or by a
# direction word; a claim whose verb none of them finds within `SUBJECT_MAX_TOKENS` has no subject read.
SUBJECT_VERBS: Final = frozenset(
    str.split(
        "is are was were be been being has have had can could may might will would should must does do"
        " did plays play played causes cause caused leads lead led occurs occur occurred requires require"
        " required encodes encode encoded mediates mediate regulates regulate regulated contributes"
        " contribute contributed correlates correlate correlated predicts predict predicted protects"
        " protect affects affect affected binds bind bound forms form formed shows show showed exhibits"
        " exhibit exhibited produces produce produced remains remain remained differs differ differed"
        " depends depend depended results result resulted prevents prevent acts act serves serve"
        " represents represent involves involve involved controls control controlled determines"
        " determine underlies underlie confers confer"
    )
)
SUBJECT_MAX_TOKENS: Final = 12

# --- null effects and equivalence -----------------------------------------------------------------------

# An excerpt that reports no effect / no difference contradicts a claim that one exists, and the
# reverse. Multi-word cues, as consecutive tokens (unstemmed).
NULL_EFFECT_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "no effect",
        "no significant",
        "not significantly",
        "no difference",
        "no differences",
        "did not differ",
        "does not differ",
        "do not differ",
        "no association",
        "not associated",
        "no relationship",
        "no correlation",
        "uncorrelated",
        "not correlated",
        "no change",
        "no changes",
        "unchanged",
        "did not change",
        "does not change",
        "not changed",
        "remained the same",
        "remains the same",
        "remain the same",
        "stayed the same",
        "remained stable",
        "remains stable",
        "remained constant",
        "remains constant",
        "remained unchanged",
        "unaltered",
        "unaffected",
        "no impact",
        "little effect",
        "little or no",
        "minimal effect",
        "limited effect",
        "no benefit",
        "no evidence",
        "no increase",
        "no decrease",
        "no reduction",
        "no improvement",
        "not affect",
        "did not affect",
        "does not affect",
        "had no",
        "has no",
        "have no",
        "no role",
        "not required",
        "dispensable",
        "similar",
        "comparable",
        "equivalent",
        "non inferior",
        "noninferior",
        "as effective as",
        "as good as",
        "equally",
        "no more effective",
        "no better",
        # A change denied is no change, as "no increase" is (1.5.0): "did not increase the risk",
        # "was stable from 2009 to 2014".
        "not increase",
        "not increased",
        "not reduce",
        "not reduced",
        "not decrease",
        "not decreased",
        "not improve",
        "not improved",
        "not alter",
        "not altered",
        "not vary",
        "was stable",
        "were stable",
        "is stable",
        "are stable",
    )
)

# Of the null cues, those that say two things are alike: a claim saying they are alike contradicts an
# excerpt that finds one better ("as effective as" / "more effective than").
EQUIVALENCE_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "similar",
        "comparable",
        "equivalent",
        "as effective",
        "as efficacious",
        "as good as",
        "as safe as",
        "just as",
        "equally",
        "no difference",
        "no differences",
        "did not differ",
        "does not differ",
        "non inferior",
        "noninferior",
    )
)
# A comparison that finds a difference ("more effective than", "superior to", "outperformed").
DIFFERENCE_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "more effective",
        "less effective",
        "more likely",
        "less likely",
        "superior",
        "inferior",
        "outperform",
        "outperformed",
        "outperforms",
        "significantly higher",
        "significantly lower",
        "significantly more",
        "significantly less",
        "significantly greater",
        "significantly reduced",
        "significantly increased",
        "significantly decreased",
        "significantly improved",
    )
)

# --- quantifiers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quantifier:
    name: str  # all | most | some | few | none
    words: tuple[str, ...]


QUANTIFIERS: Final[tuple[Quantifier, ...]] = (
    Quantifier("all", ("all", "every", "always", "each", "universally", "invariably", "entire", "entirely")),
    Quantifier("most", ("most", "majority", "mostly", "predominantly", "usually", "generally", "commonly")),
    Quantifier("few", ("few", "minority", "rarely", "rare", "seldom", "uncommon", "infrequent",
                       "infrequently")),
    Quantifier("some", ("some", "several", "sometimes", "occasionally")),
)  # fmt: skip

# (claim's quantifier, excerpt's quantifier) -> what the excerpt does to the claim. A pair not listed
# is compatible. "contradicts": the excerpt's quantity rules the claim's out; "not_enough": it is
# weaker than the claim asks ("most" does not show "all").
QUANTIFIER_RELATIONS: Final[dict[tuple[str, str], str]] = {
    ("all", "most"): "not_enough",
    ("all", "some"): "not_enough",
    ("all", "few"): "contradicts",
    ("most", "few"): "contradicts",
    ("most", "some"): "not_enough",
    ("few", "most"): "contradicts",
    ("few", "all"): "contradicts",
    ("some", "all"): "compatible",
}

# "the majority ... did not": a claim of a majority against a share under a half (and the reverse).
MAJORITY_SHARE: Final = 50.0

# --- population and subject ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PopulationAxis:
    """Groups that exclude each other: an excerpt about one says nothing about another. Every group
    the claim names must be one the excerpt names (a claim about men and women is not shown by a
    sentence about women). `general`: a group a more specific one of the axis implies ("older
    adults" are adults), left out when one of `within_general` is named beside it; since 1.4.0 not
    when another group is ("adult tissues ..., in pediatric tissues" names adults and children)."""

    name: str
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (group, its words)
    general: str | None = None
    within_general: tuple[str, ...] = ()  # the groups that are kinds of `general`


POPULATION_AXES: Final[tuple[PopulationAxis, ...]] = (
    PopulationAxis("sex", (
        ("men", ("men", "man", "male", "males", "boys", "fathers")),
        ("women", ("women", "woman", "female", "females", "girls", "mothers", "pregnant")),
    )),
    PopulationAxis("age", general="adults", within_general=("older_adults", "young_adults"), groups=(
        ("adults", ("adult", "adults")),
        ("older_adults", ("elderly", "older", "seniors", "geriatric", "old age")),
        ("young_adults", ("young adult", "young adults", "younger adult", "younger adults",
                          "young people")),
        ("infants", ("infant", "infants", "newborn", "newborns", "neonatal", "neonates", "toddler",
                     "toddlers", "babies")),
        ("children", ("child", "children", "paediatric", "pediatric", "kids", "schoolchildren")),
        ("adolescents", ("adolescent", "adolescents", "teenagers", "puberty", "pubertal", "youth")),
    )),
    PopulationAxis("setting", (
        ("in_vitro", ("vitro", "cultured", "culture", "cell line", "cell lines")),
        ("humans", ("patients", "patient", "humans", "human subjects", "participants", "volunteers",
                    "clinical", "vivo")),
    )),
    PopulationAxis("species", (
        ("animals", ("mice", "mouse", "murine", "rats", "rat", "rodent", "rodents", "zebrafish",
                     "drosophila", "primates", "monkeys", "pigs", "dogs")),
        ("humans", ("humans", "human", "patients", "people", "persons", "individuals", "participants")),
    )),
)  # fmt: skip

# --- hedges and strength -------------------------------------------------------------------------------

# A claim stated as fact and causation needs an excerpt that states it; an excerpt that only suggests
# or associates ("may help", "was associated with") does not support "cures" or "causes".
HEDGE_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "may",
        "might",
        "could",
        "can",
        "possibly",
        "possible",
        "potentially",
        "potential",
        "suggest",
        "suggests",
        "suggested",
        "suggesting",
        "hypothesize",
        "hypothesized",
        "hypothesise",
        "hypothesis",
        "speculate",
        "likely",
        "unclear",
        "preliminary",
        "associated with",
        "association with",
        "correlated with",
        "correlates with",
        "linked to",
        "in vitro",
        "appears to",
        "seem to",
        "seems to",
        "proposed",
    )
)
# Strong, unhedged assertions of cause or certainty in a claim (stem prefixes).
STRONG_CLAIM_STEMS: Final[tuple[str, ...]] = (
    "cure",
    "caus",
    "prove",
    "proven",
    "eliminat",
    "guarante",
    "eradicat",
    "always",
    "definitely",
    "certainly",
    "determin",
    "responsib",
    "only",
    "lead",
    "leads",
)

# --- negative prefixes, comparisons, the claim's size -------------------------------------------------

# A negative prefix turns a word into its opposite ("inaccurate", "UCP1-independent", "deactivates",
# "untreated", "nonsmokers"): when one side has the prefixed word and the other its root, that is a
# negation. Roots shorter than `NEGATIVE_PREFIX_MIN_ROOT` letters are too ambiguous to read this way.
NEGATIVE_PREFIXES: Final[tuple[str, ...]] = ("non", "un", "in", "im", "ir", "il", "de", "dis")
NEGATIVE_PREFIX_MIN_ROOT: Final = 6

# A claim that compares ("more effective than", "superior to") needs an excerpt that compares too.
COMPARISON_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in ("than", "compared", "comparison", "versus", "vs", "relative to", "superior", "inferior",
                 "outperform", "outperformed", "outperforms", "times")
)  # fmt: skip

# A claim must hold at least this many content terms to be judged at all ("Notably, in ." is not a claim).
MIN_CLAIM_TERMS: Final = 3
