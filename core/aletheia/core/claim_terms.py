"""The claim's key terms, and the abbreviations a paper defines (pure; read by `claim_judge`).

A sentence can hold most of a claim's words and still be about something else: "PD-L1 expression
correlates with better outcomes in breast cancer" is not evidence for "ALDH1 expression is
associated with better breast cancer outcomes"; a RIG-I sentence is not evidence about MDA5. The
words that name *what* a claim is about are its key terms, and each must be in the excerpt:

- a name written with capitals inside the word or in a run ("MDA5", "ALDH1", "PD-L1", "CR",
  "rs647161", "G-CSF", "CAFs"): a word holding a digit and a letter, or two capitals or more;
- a proper name of several capitalised words ("Fibroblast Growth Factor").

An abbreviation stands for its expansion and the reverse: the paper's own definitions
("caloric restriction (CR)"), and the claim's, are read (`abbreviations`), so that a claim saying
"CR" is matched by an excerpt saying "caloric restriction", and an excerpt saying "CR" holds the
words "caloric restriction" for the claim's coverage.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Final

from aletheia.core import claim_judge_rules as rules
from aletheia.core import claim_number_rules as number_rules
from aletheia.core.claim_reading import tokens_of
from aletheia.core.lexical_ranking import content_terms

__all__ = [
    "abbreviations",
    "claim_abbreviations",
    "claim_terms_absent",
    "expanded",
    "key_terms",
    "labelled_numbers",
    "missing_key_terms",
    "numbered_names_not_stated",
    "same_word",
    "subject_and_predicate",
    "without_citation_mentions",
]

_WORD: Final = re.compile(r"[^\W_]+(?:[-/'][^\W_]+)*")
# "caloric restriction (CR)", "(CAFs)", "(MDA5)": an abbreviation in brackets after its long form.
_DEFINED: Final = re.compile(r"\(\s*([^\W_][^\s()\[\];,]{0,14}?)\s*[;,)]")
_MAX_LONG_WORDS: Final = 10
_VARIANT_PREFIX: Final = 6
_NUMBER_WITH_UNIT: Final = re.compile(r"\d+(?:[.,]\d+)*[a-z%µ]*")
# "Chen et al.", "Smith and Jones (2020)", "(Baum et al., 2020)": who said it, not what is said.
_CITATION_MENTION: Final = re.compile(
    r"\(?\b[A-Z][\w'-]+(?:\s+(?:and|&)\s+[A-Z][\w'-]+)?\s+et\s+al\b\.?(?:,?\s*\(?\d{4}[a-z]?\)?)?\)?"
    r"|\([A-Z][\w'-]+(?:\s+(?:and|&)\s+[A-Z][\w'-]+)?,?\s+\d{4}[a-z]?\)"
)


# How a sentence says that a finding is established, not what the finding is: "X has been shown to
# tolerate Y", "X is known to ...", "it is well established that X". The frame (with its "to" or
# "that") is what makes a sentence need a citation; the paper states the finding itself, and need
# not say that it is known. Without "to"/"that" the participle may be the finding ("X was found in
# the liver"), so it stays.
_FRAME_ADVERB: Final = (
    r"(?:(?:also|well|widely|generally|previously|recently|repeatedly|consistently|commonly|now"
    r"|further|increasingly|long|first)\s+)?"
)
_REPORTING_FRAME: Final = re.compile(
    rf"\b(?:it\s+)?(?:(?:has|have|had)\s+{_FRAME_ADVERB}been|is|are|was|were)\s+{_FRAME_ADVERB}"
    r"(?:shown|known|demonstrated|reported|established|proven|proved|found|observed|documented"
    r"|believed|thought|recogni[sz]ed|suggested|proposed|described|noted|accepted)\s+(?:to|that)\b\s*",
    re.IGNORECASE,
)
# How a citing sentence joins the one before it ("Indeed,", "Moreover,", "However,", "Recently,"),
# and who it says found the finding ("Several studies have shown that", "The authors propose
# that"): the text's thread and its attribution, not what the claim states (1.5.0). Read at the
# claim's start only.
_DISCOURSE_OPENER: Final = re.compile(
    # Adverbs that are never a word of the finding, with or without their comma ...
    r"^\s*(?:(?:(?:however|indeed|moreover|furthermore|finally|additionally|interestingly|importantly"
    r"|notably|recently|most\s+recently|thus|therefore|hence|consequently|similarly|likewise|accordingly|also"
    r"|surprisingly|strikingly|remarkably|nevertheless|nonetheless|lastly|collectively),?"
    # ... and phrases that may be ("overall survival", "in addition to"): only before their comma.
    r"|(?:more\s+recently|in\s+addition|further|specifically|in\s+fact|in\s+particular|overall"
    r"|together|taken\s+together|in\s+summary|in\s+conclusion|of\s+note|consistently"
    r"|in\s+line\s+with\s+this|in\s+agreement\s+with\s+this|consistent\s+with\s+this),)\s+)+",
    re.IGNORECASE,
)
# "..., but not FTO", "but not in IL-6": the name after it is excluded, not stated.
_SET_ASIDE: Final = re.compile(
    r"\bbut\s+not\s+(?:(?:in|by|with|of|for|on|the)\s+)?[^\s,;.()]+(?:\s+or\s+[^\s,;.()]+)?", re.IGNORECASE
)
_ATTRIBUTED_OPENER: Final = re.compile(
    r"^\s*(?:(?:in\s+this\s+(?:regard|context|respect)|to\s+this\s+end),?\s+)?"
    r"(?:(?:a|an|one|several|many|multiple|numerous|previous|recent|other|earlier|some|these|this"
    r"|the|later|further|subsequent)\s+)*"
    r"(?:lines\s+of\s+evidence|stud(?:y|ies)|reports?|investigations?|experiments?|data|evidence"
    r"|findings|work|research|analys[ie]s|trials?|authors|investigators|researchers|others|we|they)"
    r"(?:\s+by)?\s+(?:(?:have|has)\s+)?(?:(?:also|previously|recently|consistently)\s+)?"
    r"(?:show|shown|showed|shows|suggest|suggested|suggests|indicate|indicated|indicates|demonstrate"
    r"|demonstrated|demonstrates|reveal|revealed|reveals|report|reported|reports|propose|proposed"
    r"|proposes|found|find|finds|observed|concluded|argue|argued|argues)\s+that\s+",
    re.IGNORECASE,
)


def _is_code(word: str) -> bool:
    """A word written as a name or a code: a digit and a letter ("MDA5", "rs647161", "COVID-19"),
    not a number with its unit ("24h", "3rd"); or two capitals or more ("CR", "RIG-I", "CAFs")."""
    if not any(c.isalpha() for c in word):
        return False
    if sum(c.isupper() for c in word) >= 2:
        return True
    return any(c.isdigit() for c in word) and not _NUMBER_WITH_UNIT.fullmatch(word)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word[1:].islower() and len(word) > 2


def _key(word: str) -> str:
    """The comparable form of a code: no hyphens or slashes, case folded, a plural `s` after a
    capital dropped ("CAFs" = "CAF", "PD-L1" = "PDL1")."""
    if len(word) > 2 and word.endswith("s") and word[-2].isupper():
        word = word[:-1]
    return re.sub(r"[-/']", "", word).casefold()


def _codes_in(text: str) -> set[str]:
    """Every code in `text`, whole and by its hyphen-joined parts ("NLRP3-dependent" holds NLRP3)."""
    found: set[str] = set()
    for word in _WORD.findall(text):
        found.add(_key(word))
        for part in re.split(r"[-/']", word):
            if part:
                found.add(_key(part))
        # "BRCA1" names BRCA as the claim writes it ("BRCA 1"): the letters before a final number.
        if (prefix := re.fullmatch(r"([^\W\d_]{2,})\d+", word)) is not None:
            found.add(_key(prefix.group(1)))
        # "mtDNA", "cfDNA", "siRNA" name DNA and RNA: a lower-case prefix before a capital code.
        if (tail := re.fullmatch(r"[a-z]{1,3}([A-Z]{2,}\w*)", word)) is not None:
            found.add(_key(tail.group(1)))
    return found


def key_terms(claim: str) -> tuple[str, ...]:
    """The claim's key terms, in order: codes, and proper names of two capitalised words or more
    (a phrase, space-joined)."""
    words = _WORD.findall(claim)
    terms: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        if len(run) >= 2:
            terms.append(" ".join(run))
        run.clear()

    for position, word in enumerate(words):
        if _is_code(word):
            close_run()
            parts = re.split(r"[-/']", word)
            if any(part.isalpha() and part.islower() and len(part) > 2 for part in parts):
                # "UCP1-dependent", "NLRP3-mediated": the code is the name, the rest says how.
                terms.extend(part for part in parts if _is_code(part))
            else:
                terms.append(word)
        elif _capitalised(word):
            run.append(word)
            # A run from the claim's first word needs a third: "Notably Treg" is a sentence start.
            if position == len(run) - 1 and len(run) == 2 and words[2:3] and not _capitalised(words[2]):
                run.clear()
        else:
            close_run()
    close_run()
    return tuple(dict.fromkeys(terms))


def _initials_match(abbreviation: str, words: list[str]) -> list[str] | None:
    """The shortest run of the last `words` whose letters spell the abbreviation, the first letter
    of the abbreviation starting the run's first word (Schwartz and Hearst's rule, simplified)."""
    letters = [c.casefold() for c in abbreviation if c.isalnum()]
    if len(letters) < 2:
        return None
    for start in range(len(words) - 1, max(-1, len(words) - _MAX_LONG_WORDS - 1), -1):
        run = words[start:]
        if run[0][:1].casefold() != letters[0]:
            continue
        text = " ".join(run).casefold()
        position = len(text)
        ok = True
        for letter in reversed(letters[1:]):
            position = text.rfind(letter, 1, position)
            if position < 1:
                ok = False
                break
        if ok and len(run) <= len(letters) + 2:
            return run
    return None


def abbreviations(text: str) -> dict[str, str]:
    """Abbreviation (its key) -> long form, for every "long form (ABBR)" the text defines."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        abbreviation = match.group(1)
        if not _is_code(abbreviation) and not (abbreviation.isupper() and len(abbreviation) >= 2):
            continue
        before = _WORD.findall(text[max(0, match.start() - 160) : match.start()])
        run = _initials_match(abbreviation, before)
        if run:
            found.setdefault(_key(abbreviation), " ".join(run))
    return found


def claim_abbreviations(claim: str) -> dict[str, str]:
    """The abbreviations a claim defines (`abbreviations`), and a name it glosses in brackets whose
    letters are not its initials: "zidovudine (AZT)" says the two are one drug."""
    found = abbreviations(claim)
    for match in _DEFINED.finditer(claim):
        name = match.group(1)
        before = _WORD.findall(claim[: match.start()])
        if (
            _is_code(name)
            and _key(name) not in found
            and before
            and before[-1].isalpha()
            and len(before[-1]) > 3
        ):
            found[_key(name)] = before[-1]
    return found


def expanded(excerpt: str, known: Mapping[str, str]) -> str:
    """The excerpt with the long form of each abbreviation it uses appended (for coverage only)."""
    longs = [known[code] for code in sorted(_codes_in(excerpt)) if code in known]
    return f"{excerpt} {' '.join(longs)}" if longs else excerpt


def missing_key_terms(claim: str, excerpt: str, known: Mapping[str, str]) -> tuple[str, ...]:
    """The claim's key terms the excerpt does not name, itself or through an abbreviation defined in
    the paper or the claim (`known`, from `abbreviations`). A name the excerpt gives only to set it
    aside ("associated with IRX3, but not FTO") is not named (1.5.0)."""
    excerpt = _SET_ASIDE.sub(" ", excerpt)
    codes = _codes_in(excerpt)
    stems = set(content_terms(excerpt))
    missing: list[str] = []
    for term in key_terms(claim):
        if " " not in term:
            key = _key(term)
            long_form = known.get(key)
            if key in codes or (long_form and set(content_terms(long_form)) <= stems):
                continue
            # A long form written by its abbreviation: "RANKL" names "RANK-Ligand (RANKL)" (1.5.0).
            if any(code in codes and _key(long) == key for code, long in known.items()):
                continue
            # "RANK-RANKL" is named when each of its codes is ("RANKL signals ... RANK-expressing").
            parts = [_key(part) for part in re.split(r"[-/]", term) if part]
            if len(parts) > 1 and all(part in codes for part in parts):
                continue
        elif set(content_terms(term)) <= stems or _name_abbreviated(term, excerpt, codes, known):
            continue
        missing.append(term)
    return tuple(missing)


def _name_abbreviated(term: str, excerpt: str, codes: set[str], known: Mapping[str, str]) -> bool:
    """A name of several words the excerpt writes short: by its initials ("PN" for "Pacific
    Northwest"); since 1.4.0 by an abbreviation the paper or the claim defines whose long form holds
    its words ("WNV", defined as "West Nile virus", names "West Nile"), and a binomial by its genus's
    initial ("S. typhimurium" names "Salmonella Typhimurium")."""
    words = term.split()
    if "".join(word[0] for word in words).casefold() in codes:
        return True
    wanted = set(content_terms(term))
    if any(wanted <= set(content_terms(known[code])) for code in codes if code in known):
        return True
    return len(words) == 2 and bool(
        re.search(rf"\b{re.escape(words[0][0])}\.\s?{re.escape(words[1])}\b", excerpt, re.IGNORECASE)
    )


def without_citation_mentions(claim: str) -> str:
    """The claim without the names of the works it cites ("A recent study by Derecki et al."): a
    surname is whom the claim cites, not what it is about, so it is no term of it."""
    return _CITATION_MENTION.sub(" ", claim)


def without_reporting_frame(claim: str) -> str:
    """The claim without the words that say its finding is established ("has been shown to", "is
    known to", "it is well established that"), that join it to the sentence before ("Indeed,",
    "Moreover,") or that say who found it ("Several studies have shown that"): "X has been shown
    to tolerate Y" claims that X tolerates Y, which is what the paper must say."""
    claim = _DISCOURSE_OPENER.sub("", claim)
    claim = _ATTRIBUTED_OPENER.sub("", claim)
    return _REPORTING_FRAME.sub("", claim)


def labelled_numbers(tokens: list[str]) -> set[tuple[str, str]]:
    """Numbers that are part of a name ("type 1", "phase 3", "stage 4"): `NUMBER_LABELS` words
    followed by a number. They are not quantities, but "type 1 diabetes" is not "type 2 diabetes"."""
    return {
        (label, number)
        for label, number in itertools.pairwise(tokens)
        if label in number_rules.NUMBER_LABELS and len(label) > 1 and number.isdigit()
    }


def numbered_names_not_stated(claim_tokens: list[str], excerpt_tokens: list[str]) -> list[str]:
    """Reason codes for the claim's numbered names ("type 1", "phase 3") the excerpt does not
    state: "type 2 diabetes" says nothing of type 1."""
    stated = labelled_numbers(excerpt_tokens)
    codes: list[str] = []
    for label, number in sorted(labelled_numbers(claim_tokens) - stated):
        others = sorted(n for lab, n in stated if lab == label)
        if others:
            codes.append(f"labelled_number_differs: {label} {number} vs {label} {', '.join(others)}")
        else:
            codes.append(f"labelled_number_not_stated: {label} {number}")
    return codes


def subject_and_predicate(
    claim: str, direction_words: frozenset[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The content terms (stemmed) of the claim's subject, the words before its first verb
    (`SUBJECT_VERBS`, or one of `direction_words` in a verb form), and of its predicate, the words
    after it (direction words left out: the direction rules read them); numbers and quantifiers left
    out of both. Both empty when no verb is found early enough to tell."""
    tokens = tokens_of(claim)
    quantifiers = {word for q in rules.QUANTIFIERS for word in q.words}

    def terms(words: list[str]) -> tuple[str, ...]:
        kept = [
            word
            for word in words
            if word not in quantifiers
            and word not in number_rules.NUMBER_WORDS
            and not word[:1].isdigit()
            and word not in direction_words
            and word not in rules.SUBJECT_VERBS
        ]
        return tuple(dict.fromkeys(term for word in kept for term in content_terms(word)))

    for position, token in enumerate(tokens[: rules.SUBJECT_MAX_TOKENS]):
        # A direction word is the verb in its verb forms ("reduces", "induced"), not as a noun
        # ("in response to DNA damage", "a reduction in").
        verb_form = token in direction_words and token.endswith(("s", "ed")) and not token.endswith("ss")
        # ... or after a plural subject, in its base form ("statins decrease", "mutations reduce").
        previous = tokens[position - 1] if position else ""
        verb_form = verb_form or (
            token in direction_words
            and not token.endswith("s")
            and previous.endswith("s")
            and not previous.endswith("ss")
            and previous not in direction_words
        )
        if position and (token in rules.SUBJECT_VERBS or verb_form):
            return terms(tokens[:position]), terms(tokens[position + 1 :])
    return (), ()


def same_word(term: str, terms: set[str]) -> bool:
    """`term` (stemmed) is one of `terms` or the same word with another ending: the same first six
    letters ("randomized" / "randomised", "headach" / "headache"), or a stem of five letters or
    more that begins the other ("reduc" / "reduction")."""
    if term in terms:
        return True
    size = _VARIANT_PREFIX
    for other in terms:
        if len(term) >= size and len(other) >= size and term[:size] == other[:size]:
            return True
        shorter, longer = sorted((term, other), key=len)
        if len(shorter) >= size - 1 and longer.startswith(shorter):
            return True
    return False


def claim_terms_absent(claim: str, paper_text: str) -> tuple[str, ...]:
    """The claim's content terms (stemmed) that the paper's text never uses, in any ending
    (`same_word`), sorted."""
    claim = without_reporting_frame(without_citation_mentions(claim))
    wanted = set(content_terms(claim)) - rules.LIGHT_TERMS
    used = set(content_terms(paper_text))
    # A long form the paper writes by the abbreviation the claim gives it ("RANK-Ligand (RANKL)"
    # in a paper saying "RANKL") is used, as a light word ("is involved in") needs no saying (1.5.0).
    codes = _codes_in(paper_text)
    for code, long_form in claim_abbreviations(claim).items():
        if code in codes:
            used |= set(content_terms(long_form))
    # A name the paper writes inside a longer code ("ESCs" in "haESCs", "BRCA" in "BRCA1") is used.
    for term in key_terms(claim):
        if " " not in term and _key(term) in codes:
            used |= set(content_terms(term))
    return tuple(sorted(term for term in wanted - used if not same_word(term, used)))
