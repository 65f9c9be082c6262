"""A citation the search found needs every word of what the claim says (pure; rules of the judge,
versioned with them by `claim_judge_rules.JUDGE_RULES_VERSION`).

With the paper named (`aletheia cite CLAIM --paper ID`), the user chose it: the judge asks whether
its own words support the claim, and an excerpt holding most of the claim's terms can. A paper the
search found was chosen by word overlap alone, among thousands that share most of the claim's
words: "Statins decrease hepatic cholesterol biosynthesis" is not "Statins decrease blood
cholesterol", "increased risk of bladder cancer" not "... of prostate cancer", "Piezo1 ... prevents
extrusion" not "Piezo1 channels are sensors for cell migration". So a supporting excerpt found by
search must also name every content word of the claim's subject and of what the claim says of it
(`claim_terms.subject_and_predicate`), and, where the claim's subject cannot be read, every
content word of the claim but its numbers and quantifiers (the number and quantifier rules read
them: "a single node" states "one node"). Only the verb that joins the two may be put in other
words ("Egr2 regulates the homeostasis" / "Egr2 ... is required for the homeostasis"). A word
counts as named:

- itself, or in the same word with another ending ("headaches" / "headache", "randomized" /
  "randomised", "reduces" / "reduction"): `claim_terms.same_word`;
- through an abbreviation the paper or the claim defines ("PDS" for "pyridostatin");
- in the paper's title: a sentence is read under its paper's title ("The drug" in a paper titled
  "Radioiodine treatment of goitre").

The words that say a finding is established ("has been shown to", "is known to", "it is well
established that": `claim_terms.without_reporting_frame`) are not what the claim says: the paper
states the finding, not that it is known (rules 1.4.1).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Final

from aletheia.core import claim_judge_rules as rules
from aletheia.core import claim_number_rules as number_rules
from aletheia.core.claim_directions import direction_words
from aletheia.core.claim_reading import tokens_of
from aletheia.core.claim_terms import (
    claim_abbreviations,
    expanded,
    same_word,
    subject_and_predicate,
    without_citation_mentions,
    without_reporting_frame,
)
from aletheia.core.lexical_ranking import content_terms

__all__ = ["search_gaps"]

_QUANTIFIER_WORDS: Final = frozenset(word for quantifier in rules.QUANTIFIERS for word in quantifier.words)


def _counted(term: str) -> bool:
    """A number or a quantifier ("one", "30", "most"): the number and quantifier rules read it, and
    "a single node" names the claim's "one node"."""
    return term[:1].isdigit() or term in number_rules.NUMBER_WORDS or term in _QUANTIFIER_WORDS


def _named(text: str, known: Mapping[str, str]) -> set[str]:
    """The content terms `text` names, itself or through a defined abbreviation (either way)."""
    present = set(content_terms(expanded(text, known)))
    present |= {
        term
        for key, long_form in known.items()
        if set(content_terms(long_form)) <= present
        for term in content_terms(key)
    }
    return present


_BE: Final = frozenset({"is", "are", "was", "were", "be", "been", "being"})


def _said_of_another(claim: str, excerpt: str, subject: Sequence[str]) -> list[str]:
    """The claim's subject terms, when the excerpt says the claim's participle of something else
    (1.5.0): "Mitochondrial fission is involved in mitophagy" against "Drp1 S-nitrosation is also
    involved in regulation of mitochondrial fission and induction of mitophagy": the excerpt has
    the claim's "is involved", and "fission" only after it. Read when the claim joins its subject
    to its predicate by a form of "be" and a participle ("is involved", "is required", "are
    located"), and the excerpt has the same participle ("Also involved in mitophagy, the fission
    protein Drp1 ..." says it of Drp1); empty otherwise."""
    claim_tokens = tokens_of(claim)
    participle = next(
        (
            token
            for before, token in itertools.pairwise(claim_tokens)
            if before in _BE and token.endswith("ed")
        ),
        None,
    )
    if participle is None or not subject:
        return []
    tokens = tokens_of(excerpt)
    at = next((position for position, token in enumerate(tokens) if token == participle), None)
    if at is None:
        return []

    def holds_subject(token: str) -> bool:
        return any(same_word(term, set(content_terms(token))) for term in subject)

    before = [token for token in tokens[:at] if holds_subject(token)]
    after = [token for token in tokens[at + 1 :] if holds_subject(token)]
    return list(subject) if after and not before else []


def search_gaps(
    claim: str, excerpts: Sequence[str], *, title: str = "", known: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """Why none of the supporting `excerpts` is enough for a citation the search found: empty when
    one of them names every word the claim needs (see the module docstring); otherwise the reason
    code of the excerpt that comes closest ("search_terms_not_stated: blood")."""
    claim = without_reporting_frame(without_citation_mentions(claim))
    known = {**claim_abbreviations(claim), **(known or {})}
    wanted = set(content_terms(claim))
    subject, predicate = subject_and_predicate(claim, direction_words())
    needed = set(subject) | set(predicate) if subject else {term for term in wanted if not _counted(term)}
    titled = _named(title, known) if title else set()
    best: list[str] | None = None
    elsewhere: list[str] = []
    for excerpt in excerpts:
        present = _named(excerpt, known) | titled
        unnamed = sorted(term for term in needed if not same_word(term, present))
        if not unnamed:
            elsewhere = _said_of_another(claim, excerpt, subject)
            if not elsewhere:
                return ()
            best = []
        elif best is None or (best and len(unnamed) < len(best)):
            best = unnamed
    if best is None:
        return ("search_no_supporting_excerpt",)
    if not best:
        return (f"search_said_of_another: {', '.join(elsewhere)}",)
    return (f"search_terms_not_stated: {', '.join(best)}",)
