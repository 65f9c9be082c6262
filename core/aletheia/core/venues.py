"""Venue names: an alias table, acronyms, and a tolerant comparison (seed 000 §5.3).

Venue is never decisive. A venue string is first checked for being no claim at all (arXiv, CoRR,
bioRxiv, "preprint", empty): such a string can never be a mismatch by itself. Otherwise it is mapped
to a canonical key ("neurips", "icml", ...) through the alias table, data shipped with the package
(`data/venue_aliases.json`, read on first use by `aletheia.core.venue_data`), which knows each
venue's full names, its ISO-4/DBLP abbreviations and its acronyms, so that year and edition noise
("Proceedings of the 40th ...", "NeurIPS 2023", "Advances in ... Systems 33", "In CVPR", "Proc. of
ACL") does not matter. Venues outside the table agree only when every content word of each aligns
with a word of the other, an abbreviation with the word it abbreviates ("Phys. Rev. Lett." =
"Physical Review Letters"): one word more makes another venue ("Pattern Recognition" / "Pattern
Recognition Letters", "Journal of Physics A" / "... B").

Workshops, companions and symposia attached to a conference are not the conference: "NeurIPS
Workshop on X" maps to no key, so it never agrees with "NeurIPS". Findings of ACL/EMNLP/NAACL have
keys of their own. PMLR publishes many conferences (ICML, AISTATS, COLT, UAI, CoRL, ...), so "pmlr"
is a weak key: against one of the venues it hosts it is "not comparable" (None), never agreement.

`venues_agree` compares two strings. `venue_relation` compares a cited venue with every name the
sources publish for the work's venue (its venue, the source's own aliases and abbreviations, other
locations, series), and also reads acronyms off names (`venue_acronyms`), and knows that a
publisher ("Springer", "IEEE"), a book series ("Lecture Notes in Computer Science") or a
repository is no venue to compare with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Final

from rapidfuzz import fuzz

from aletheia.core.text import fold
from aletheia.core.venue_acronyms import ORDINAL_WORDS, acronym_candidates, acronym_matches
from aletheia.core.venue_data import VenueAlias, venue_tables

__all__ = [
    "VenueAlias",
    "VenueRelation",
    "acronym_matches",
    "book_series_key",
    "canonical_venue",
    "clean_venue",
    "is_no_venue_claim",
    "is_platform",
    "is_publisher",
    "venue_aliases",
    "venue_name",
    "venue_relation",
    "venue_similarity",
    "venue_table_version",
    "venues_agree",
]


def venue_aliases() -> tuple[VenueAlias, ...]:
    """The alias table (read from `data/venue_aliases.json` on first use)."""
    return venue_tables().aliases


def venue_table_version() -> str:
    """The version of the venue data file."""
    return venue_tables().version


# Events attached to a conference that are not the conference itself.
_SUB_VENUE = re.compile(
    r"(?<![a-z])(?:workshops?|companion|tutorials?|demos?|demonstrations?|doctoral consortium|"
    r"student research|spring symposium|fall symposium|posters? session|extended abstracts?)(?![a-z])"
)

# --- no venue claim -------------------------------------------------------------------------------

_NO_CLAIM = re.compile(
    r"^(?:"
    r"arxiv(?: e ?prints?| org| preprint)?|e ?prints?|corr|computing research repository|"
    r"(?:bio|med|chem|psy|soc|eng|tech|edu|agri|earth|ess|osf|sport|law|meta|paleo|front|mar|africa)rxiv|"
    r"ssrn(?: electronic journal)?|social science research network|research square|preprints(?: org)?|"
    r"preprint|pre print|e print|working paper|manuscript|unpublished(?: manuscript)?|"
    r"under review|in review|in submission|submitted|under submission|n ?a|none|null|unknown|misc|"
    r"osf preprints|zenodo|hal|hal archives ouvertes"
    r")$"
)
_NO_CLAIM_PREFIX = re.compile(
    r"^(?:arxiv preprint|arxiv e ?prints?|arxiv|corr abs|corr|preprint|e ?print|"
    r"(?:bio|med|chem|psy|soc|tech)rxiv|ssrn|submitted to|under review at|under review for|"
    r"in submission to)(?![a-z])"
)


def is_no_venue_claim(venue: str | None) -> bool:
    """Whether a venue string claims no venue: empty, arXiv/CoRR, bioRxiv and the other servers,
    SSRN, "preprint", "under review". Such a string is never a mismatch by itself.
    """
    if venue is None:
        return True
    cleaned = clean_venue(venue)
    if not cleaned:
        return True  # nothing but punctuation, numbers and "Proceedings of the"
    return bool(_NO_CLAIM.match(cleaned) or _NO_CLAIM_PREFIX.match(cleaned))


# --- cleaning -------------------------------------------------------------------------------------

_EDITION_NOISE = re.compile(
    r"(?<![a-z0-9])(?:\d+(?:st|nd|rd|th)|\d+|" + "|".join(sorted(ORDINAL_WORDS)) + r")(?![a-z0-9])"
)
_LEAD = re.compile(
    r"^(?:(?:in|to appear in|appeared in|published in)\s+)?(?:(?:proceedings|proc)\s+(?:of\s+)?)?(?:the\s+)?"
)
_NOISE_WORDS: Final = frozenset(
    {
        "the",
        "of",
        "on",
        "in",
        "and",
        "for",
        "at",
        "proceedings",
        "proc",
        "annual",
        "ieee",
        "acm",
        "cvf",
        "usenix",
        "siam",
        "vol",
        "volume",
        "part",
        "no",
        "pp",
        "pages",
        "print",
        "online",
    }
)
# Short abbreviations that prefixes cannot catch (ISO 4 "J." is "Journal").
_SHORT_ABBREVIATIONS: Final = {"j": "journal", "am": "american", "natl": "national", "int": "international"}
_MIN_PREFIX: Final = 3
_MIN_TYPO_LENGTH: Final = 7
_MIN_TYPO_RATIO: Final = 90.0
# A trailing acronym in parentheses: "Computer Vision and Image Understanding (CVIU)", "(Print)".
_TRAILING_ACRONYM = re.compile(r"\s*\([A-Z][A-Za-z0-9&-]{1,11}\)\s*$")


def _strip_lead(folded: str) -> str:
    return _LEAD.sub("", folded).strip()


def clean_venue(venue: str) -> str:
    """The folded venue with leading "In"/"Proceedings of the", ordinals, years, volume numbers
    and edition words removed: "Proc. of the 40th Int. Conf. ... 2023" -> "int conf ...".
    """
    return _strip_lead(_normal(venue))


def _normal(venue: str) -> str:
    """The folded venue without ordinals, years and volume numbers."""
    return " ".join(_EDITION_NOISE.sub(" ", fold(venue)).split())


def _venue_tokens(venue: str) -> list[str]:
    tokens = [t for t in clean_venue(_TRAILING_ACRONYM.sub("", venue)).split() if t not in _NOISE_WORDS]
    return [_SHORT_ABBREVIATIONS.get(t, t) for t in tokens]


# --- canonical keys -------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 14)
def canonical_venue(venue: str | None) -> str | None:
    """The alias key of a venue ("neurips", "icml", "findings-acl", ...), None when the string is
    no venue claim, a workshop or other side event, or not in the alias table (`venue_aliases`).

    Memoised: `venue_relation` asks for the key of each name several times, and every call
    searches all the table's phrases.
    """
    if venue is None or is_no_venue_claim(venue):
        return None
    tables = venue_tables()
    folded = _normal(venue)
    if _SUB_VENUE.search(folded):
        # JMLR W&CP names itself after workshops; it is PMLR, the weak key.
        return "pmlr" if any(p.search(folded) for k, p in tables.phrases if k == "pmlr") else None
    tokens = set(folded.split())
    if "findings" in tokens:
        for key in tables.findings_of:
            if key in tokens or any(p.search(folded) for k, p in tables.phrases if k == key):
                return f"findings-{key}"
        if "computational linguistics" in folded:
            return "findings-acl"
    exact = tables.exact.get(_strip_lead(folded))
    if exact is not None:
        return exact
    for key, phrase in tables.phrases:
        if phrase.search(folded):
            return key
    for key, acronym in tables.acronyms:
        if acronym in tokens:
            return key
    return None


def _is_sub_venue(venue: str | None) -> bool:
    return venue is not None and bool(_SUB_VENUE.search(fold(venue)))


def venue_name(key: str) -> str | None:
    """The display name of an alias key ("neurips" -> "Advances in Neural Information ...")."""
    if key.startswith("findings-"):
        inner = venue_tables().by_key.get(key.removeprefix("findings-"))
        return f"Findings of {inner.acronyms[0].upper()}" if inner and inner.acronyms else None
    alias = venue_tables().by_key.get(key)
    return alias.name if alias else None


# --- similarity -----------------------------------------------------------------------------------


def _tokens_match(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= _MIN_PREFIX and long.startswith(short):
        return True  # an abbreviation: "trans" ~ "transactions"
    # A typo in a long word ("Aplications"); short words must be exact ("physics" / "physical").
    return len(short) >= _MIN_TYPO_LENGTH and fuzz.ratio(a, b) >= _MIN_TYPO_RATIO


def _matched_tokens(left: list[str], right: list[str]) -> int:
    """Greedy one-to-one token alignment, exact matches first, then abbreviation prefixes."""
    remaining = list(right)
    unmatched: list[str] = []
    count = 0
    for token in left:
        if token in remaining:
            remaining.remove(token)
            count += 1
        else:
            unmatched.append(token)
    for token in unmatched:
        for index, other in enumerate(remaining):
            if _tokens_match(token, other):
                del remaining[index]
                count += 1
                break
    return count


def _token_similarity(a: str, b: str) -> float:
    tokens_a, tokens_b = _venue_tokens(a), _venue_tokens(b)
    if not tokens_a or not tokens_b:
        return 1.0 if clean_venue(a) == clean_venue(b) and clean_venue(a) else 0.0
    matched = max(_matched_tokens(tokens_a, tokens_b), _matched_tokens(tokens_b, tokens_a))
    return 2.0 * matched / (len(tokens_a) + len(tokens_b))


def _forms(venue: str, key: str | None) -> list[str]:
    name = venue_name(key) if key is not None else None
    return [venue, name] if name else [venue]


def venue_similarity(a: str | None, b: str | None) -> float:
    """Similarity of two venue strings in [0, 1]. Symmetric.

    1.0 for the same alias key; otherwise the Dice overlap of their content words, where an
    abbreviation matches the word it abbreviates ("Trans." ~ "Transactions", "J." ~ "Journal").
    A string with an alias key is also compared through its key's display name. 1.0 means every
    word aligned.
    """
    if a is None or b is None:
        return 0.0
    key_a, key_b = canonical_venue(a), canonical_venue(b)
    if key_a is not None and key_a == key_b:
        return 1.0
    forms_a, forms_b = _forms(a, key_a), _forms(b, key_b)
    if key_a is not None and key_b is not None:
        # Two different known venues: compare the names only, never their free text.
        return _token_similarity(forms_a[-1], forms_b[-1])
    return max(_token_similarity(x, y) for x in forms_a for y in forms_b)


def venues_agree(cited: str | None, found: str | None) -> bool | None:
    """Whether two venue strings name the same venue.

    None when not comparable: either side makes no venue claim, or one side is only "PMLR" and
    the other a venue PMLR publishes. True for the same alias key, or (a venue outside the table)
    when every content word aligns (`venue_similarity` 1.0). False otherwise. Symmetric.
    """
    if is_no_venue_claim(cited) or is_no_venue_claim(found):
        return None
    key_cited, key_found = canonical_venue(cited), canonical_venue(found)
    if _is_sub_venue(cited) != _is_sub_venue(found):
        return False  # a workshop of a conference is not the conference
    if key_cited is not None and key_found is not None:
        if key_cited == key_found:
            return True
        if "pmlr" in (key_cited, key_found) and {key_cited, key_found} <= venue_tables().pmlr_hosted:
            return None
        return False
    return venue_similarity(cited, found) >= 1.0


# --- a cited venue against every name the sources give ------------------------------------------


class VenueRelation(StrEnum):
    """How a cited venue relates to the names the sources give for the work's venue."""

    AGREES = "agrees"  # some found name is the cited venue
    NOT_COMPARABLE = "not_comparable"  # no claim on a side, a publisher, a series, PMLR vs its venue
    OTHER_KNOWN_VENUE = "other_known_venue"  # positively another venue (ICML vs NeurIPS, a workshop)
    UNRESOLVED = "unresolved"  # they differ and nothing resolves it: minor, not flagged


# Words naming the kind of event, which citations drop ("USENIX Security" for "... Symposium").
_EVENT_WORDS: Final = frozenset(
    {"conference", "symposium", "international", "annual", "meeting", "joint", "congress", "forum"}
)
_PARENTHESES: Final = re.compile(r"\([^()]*\)")


def is_publisher(venue: str | None) -> bool:
    """Whether a venue string is only a publisher's name: "Springer", "Springer, Cham", "Elsevier",
    "IEEE", "ACM Press", "Packt Publishing Ltd", "O'Reilly Media", "MIT Press", "Curran Associates",
    "PMLR", "OpenReview.net". Journals named after a publisher ("Proceedings of the IEEE", "IEEE
    Access", "Nature") are not."""
    return bool(venue) and bool(venue_tables().publisher.fullmatch(_normal(venue or "")))


def book_series_key(venue: str | None) -> str | None:
    """The key of a book series ("lncs" for "Lecture Notes in Computer Science" or "LNCS", "ceur",
    "lipics", ...) when the string names a series and no venue of the alias table."""
    if not venue or canonical_venue(venue) is not None:
        return None
    tables = venue_tables()
    folded = _normal(venue)
    for key, phrase in tables.series_phrases:
        if phrase.search(folded):
            return key
    words = [w for w in folded.split() if w not in ("vol", "volume", "series")]
    return tables.series_acronyms.get(words[0]) if len(words) == 1 else None


def is_platform(venue: str | None) -> bool:
    """Whether a venue string names where a work is kept, not where it appeared: an institutional
    repository ("Apollo (University of Cambridge)", "eScholarship"), PubMed Central, IEEE Xplore."""
    if not venue or canonical_venue(venue) is not None:
        return False
    tables = venue_tables()
    return bool(tables.platform.search(_normal(venue)) or tables.platform_host.search(venue))


def _no_venue(name: str) -> bool:
    return is_publisher(name) or book_series_key(name) is not None or is_platform(name)


def _event_free_tokens(venue: str) -> list[str]:
    return [t for t in _venue_tokens(_PARENTHESES.sub(" ", venue)) if t not in _EVENT_WORDS]


def _names_agree(cited: str, name: str) -> bool:
    if venues_agree(cited, name):
        return True
    if _is_sub_venue(cited) != _is_sub_venue(name):
        return False
    if canonical_venue(cited) is not None and canonical_venue(name) is not None:
        return False  # two known venues: `venues_agree` has decided
    series = book_series_key(cited)
    if series is not None and series == book_series_key(name):
        return True
    if any(acronym_matches(a, name) for a in acronym_candidates(cited)):
        return True
    if any(acronym_matches(a, cited) for a in acronym_candidates(name)):
        return True
    left, right = _event_free_tokens(cited), _event_free_tokens(name)
    return bool(left and right) and _matched_tokens(left, right) == len(left) == len(right)


def _host_key(venue: str) -> str | None:
    """The alias key of a venue, or of the conference a workshop or companion belongs to."""
    if not _is_sub_venue(venue):
        return canonical_venue(venue)
    return canonical_venue(_SUB_VENUE.sub(" ", fold(venue)))


def _other_known(cited: str, name: str) -> bool:
    key_cited, key_name = _host_key(cited), _host_key(name)
    if key_cited is None or key_name is None:
        return False
    if _is_sub_venue(cited) != _is_sub_venue(name):
        return True  # a workshop is not its conference, nor another one
    if key_cited == key_name:
        return False
    return not ("pmlr" in (key_cited, key_name) and {key_cited, key_name} <= venue_tables().pmlr_hosted)


def venue_relation(cited: str | None, found_names: Sequence[str]) -> VenueRelation:
    """How a cited venue relates to every name the sources give for the work's venue
    (`found_names`: a record's `venue`, `venue_aliases`, `other_venues`, `published_venue`).

    AGREES when one name agrees: same alias key, every content word aligned (event words such as
    "Symposium" aside), the cited string an acronym of the name or the name of it ("SOUPS" /
    "Symposium on Usable Privacy and Security"), one of the source's own abbreviations, or the same
    book series. NOT_COMPARABLE when either side claims nothing (arXiv, empty), the citation names
    a publisher ("Springer", "IEEE", "Packt Publishing") or a series none of the names is, the
    names are only publishers, series and repositories, or PMLR meets a venue PMLR publishes.
    OTHER_KNOWN_VENUE when the cited venue is positively another: both sides have different
    alias keys (ICML / NeurIPS, Findings of ACL / ACL), or a workshop meets a main conference.
    UNRESOLVED otherwise: they differ and nothing resolves it.
    """
    if cited is None or is_no_venue_claim(cited) or is_publisher(cited):
        return VenueRelation.NOT_COMPARABLE
    names = list(dict.fromkeys(n.strip() for n in found_names if n and not is_no_venue_claim(n)))
    if not names:
        return VenueRelation.NOT_COMPARABLE
    if any(_names_agree(cited, name) for name in names):
        return VenueRelation.AGREES
    comparable = [name for name in names if not _no_venue(name)]
    if not comparable or book_series_key(cited) is not None:
        return VenueRelation.NOT_COMPARABLE
    if any(_other_known(cited, name) for name in comparable):
        return VenueRelation.OTHER_KNOWN_VENUE
    if all(venues_agree(cited, name) is None for name in comparable):
        return VenueRelation.NOT_COMPARABLE
    return VenueRelation.UNRESOLVED


_YEAR_IN_VENUE = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")


def venue_years(cited: str | None, found_names: Sequence[str]) -> set[int]:
    """The years written in the sources' names of the work's venue that agree with the cited venue:
    an arXiv journal reference "Published as a conference paper at ... ICLR, San Diego, 2015" dates
    the conference version of a preprint the sources date 2014 (issue 20)."""
    if cited is None or is_no_venue_claim(cited):
        return set()
    return {
        int(year)
        for name in found_names
        if name and not is_no_venue_claim(name) and _names_agree(cited, name)
        for year in _YEAR_IN_VENUE.findall(name)
    }
