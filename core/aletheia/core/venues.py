"""Venue names: a hand-kept alias table and a tolerant comparison (seed 000 §5.3).

Venue is never decisive. A venue string is first checked for being no claim at all (arXiv, CoRR,
bioRxiv, "preprint", empty): such a string can never be a mismatch by itself. Otherwise it is mapped
to a canonical key ("neurips", "icml", ...) through `VENUE_ALIASES`, which knows each venue's full
names, its ISO-4/DBLP abbreviations and its acronyms, so that year and edition noise ("Proceedings
of the 40th ...", "NeurIPS 2023", "Advances in ... Systems 33", "In CVPR", "Proc. of ACL") does not
matter. Venues outside the table agree only when every content word of each aligns with a word
of the other, an abbreviation with the word it abbreviates ("Phys. Rev. Lett." = "Physical Review
Letters"): one word more makes another venue ("Pattern Recognition" / "Pattern Recognition
Letters", "Journal of Physics A" / "... B").

Workshops, companions and symposia attached to a conference are not the conference: "NeurIPS
Workshop on X" maps to no key, so it never agrees with "NeurIPS". Findings of ACL/EMNLP/NAACL have
keys of their own. PMLR publishes many conferences (ICML, AISTATS, COLT, UAI, CoRL, ...), so "pmlr"
is a weak key: against one of the venues it hosts it is "not comparable" (None), never agreement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rapidfuzz import fuzz

from aletheia.core.text import fold

__all__ = [
    "PMLR_HOSTED",
    "VENUE_ALIASES",
    "VenueAlias",
    "canonical_venue",
    "clean_venue",
    "is_no_venue_claim",
    "venue_name",
    "venue_similarity",
    "venues_agree",
]


@dataclass(frozen=True, slots=True)
class VenueAlias:
    """One venue: its key, its display name, and the forms it is cited under.

    `phrases` are regular expressions searched in the folded venue string (word-bounded);
    `acronyms` are whole tokens; `exact` forms must be the whole cleaned string (for venues whose
    names are common words: "Nature", "Science", "Machine Learning").
    """

    key: str
    name: str
    phrases: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()


VENUE_ALIASES: Final[tuple[VenueAlias, ...]] = (
    # --- machine learning -----------------------------------------------------------------------
    VenueAlias(
        "neurips",
        "Advances in Neural Information Processing Systems",
        phrases=(
            r"neural information processing systems",
            r"adv neural inf process syst",
            r"conference on neural information processing",
        ),
        acronyms=("neurips", "nips", "nourips"),
    ),
    VenueAlias(
        "icml",
        "International Conference on Machine Learning",
        phrases=(
            r"international conference on machine learning(?! and applications| and cybernetics)",
            r"int conf mach learn",
        ),
        acronyms=("icml",),
    ),
    VenueAlias(
        "iclr",
        "International Conference on Learning Representations",
        phrases=(r"international conference on learning representations", r"int conf learn represent"),
        acronyms=("iclr",),
    ),
    VenueAlias(
        "aistats",
        "International Conference on Artificial Intelligence and Statistics",
        phrases=(r"artificial intelligence and statistics", r"artif intell stat"),
        acronyms=("aistats",),
    ),
    VenueAlias(
        "uai",
        "Conference on Uncertainty in Artificial Intelligence",
        phrases=(r"uncertainty in artificial intelligence", r"uncertain artif intell"),
        acronyms=("uai",),
    ),
    VenueAlias(
        "colt",
        "Conference on Learning Theory",
        phrases=(r"(?<!algorithmic )conference on learning theory", r"computational learning theory"),
        acronyms=("colt",),
    ),
    VenueAlias(
        "corl",
        "Conference on Robot Learning",
        phrases=(r"conference on robot learning",),
        acronyms=("corl",),
    ),
    VenueAlias(
        "jmlr",
        "Journal of Machine Learning Research",
        phrases=(r"journal of machine learning research", r"j mach learn res"),
        acronyms=("jmlr",),
    ),
    VenueAlias(
        "tmlr",
        "Transactions on Machine Learning Research",
        phrases=(r"transactions on machine learning research", r"trans mach learn res"),
        acronyms=("tmlr",),
    ),
    VenueAlias("mlj", "Machine Learning", exact=("machine learning", "mach learn")),
    VenueAlias(
        "neural-computation",
        "Neural Computation",
        exact=("neural computation", "neural comput"),
    ),
    # --- artificial intelligence ------------------------------------------------------------------
    VenueAlias(
        "icwsm",
        "International AAAI Conference on Web and Social Media",
        phrases=(r"conference on web and social media", r"weblogs and social media"),
        acronyms=("icwsm",),
    ),
    VenueAlias(
        "aaai",
        "AAAI Conference on Artificial Intelligence",
        phrases=(
            r"aaai conference on artificial intelligence",
            r"national conference on artificial intelligence",
        ),
        acronyms=("aaai",),
    ),
    VenueAlias(
        "ijcai",
        "International Joint Conference on Artificial Intelligence",
        phrases=(
            r"international joint conference on artificial intelligence",
            r"int joint conf artif intell",
        ),
        acronyms=("ijcai",),
    ),
    VenueAlias(
        "jair",
        "Journal of Artificial Intelligence Research",
        phrases=(r"journal of artificial intelligence research", r"j artif intell res"),
        acronyms=("jair",),
    ),
    VenueAlias("aij", "Artificial Intelligence", exact=("artificial intelligence", "artif intell")),
    # --- computer vision -----------------------------------------------------------------------
    VenueAlias(
        "cvpr",
        "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
        phrases=(r"computer vision and pattern recognition", r"comput vis pattern recognit"),
        acronyms=("cvpr",),
    ),
    VenueAlias(
        "iccv",
        "IEEE/CVF International Conference on Computer Vision",
        phrases=(
            r"international conference on computer vision(?! systems| theory| and)",
            r"int conf comput vis(?! syst)",
        ),
        acronyms=("iccv",),
    ),
    VenueAlias(
        "eccv",
        "European Conference on Computer Vision",
        phrases=(r"european conference on computer vision", r"eur conf comput vis"),
        acronyms=("eccv",),
    ),
    VenueAlias(
        "wacv",
        "IEEE/CVF Winter Conference on Applications of Computer Vision",
        phrases=(r"winter conference on applications of computer vision",),
        acronyms=("wacv",),
    ),
    VenueAlias(
        "bmvc",
        "British Machine Vision Conference",
        phrases=(r"british machine vision conference",),
        acronyms=("bmvc",),
    ),
    VenueAlias(
        "tpami",
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        phrases=(
            r"transactions on pattern analysis and machine intelligence",
            r"trans pattern anal mach intell",
        ),
        acronyms=("tpami", "pami"),
    ),
    VenueAlias(
        "ijcv",
        "International Journal of Computer Vision",
        phrases=(r"international journal of computer vision", r"int j comput vis"),
        acronyms=("ijcv",),
    ),
    VenueAlias(
        "tip",
        "IEEE Transactions on Image Processing",
        phrases=(r"transactions on image processing", r"trans image process"),
    ),
    VenueAlias(
        "miccai",
        "Medical Image Computing and Computer-Assisted Intervention",
        phrases=(r"medical image computing and computer assisted intervention",),
        acronyms=("miccai",),
    ),
    # --- natural language processing ---------------------------------------------------------------
    VenueAlias(
        "tacl",
        "Transactions of the Association for Computational Linguistics",
        phrases=(
            r"transactions of the association for computational linguistics",
            r"trans assoc comput linguist(?:ics)?",
        ),
        acronyms=("tacl",),
    ),
    VenueAlias(
        "naacl",
        "Conference of the North American Chapter of the Association for Computational Linguistics",
        phrases=(r"north american chapter of the association for computational linguistics",),
        acronyms=("naacl",),
    ),
    VenueAlias(
        "eacl",
        "Conference of the European Chapter of the Association for Computational Linguistics",
        phrases=(r"european chapter of the association for computational linguistics",),
        acronyms=("eacl",),
    ),
    VenueAlias(
        "aacl",
        "Conference of the Asia-Pacific Chapter of the Association for Computational Linguistics",
        phrases=(r"asia pacific chapter of the association for computational linguistics",),
        acronyms=("aacl",),
    ),
    VenueAlias(
        "emnlp",
        "Conference on Empirical Methods in Natural Language Processing",
        phrases=(r"empirical methods in natural language processing",),
        acronyms=("emnlp",),
    ),
    VenueAlias(
        "acl",
        "Annual Meeting of the Association for Computational Linguistics",
        phrases=(
            r"meeting of the association for computational linguistics",
            r"annu meet assoc comput linguist",
        ),
        acronyms=("acl",),
    ),
    VenueAlias(
        "coling",
        "International Conference on Computational Linguistics",
        phrases=(r"international conference on computational linguistics",),
        acronyms=("coling",),
    ),
    VenueAlias(
        "interspeech",
        "Interspeech",
        phrases=(r"annual conference of the international speech communication association",),
        acronyms=("interspeech",),
    ),
    VenueAlias(
        "icassp",
        "IEEE International Conference on Acoustics, Speech and Signal Processing",
        phrases=(r"international conference on acoustics speech and signal processing",),
        acronyms=("icassp",),
    ),
    # --- data mining, information retrieval, web ----------------------------------------------------
    VenueAlias(
        "pakdd",
        "Pacific-Asia Conference on Knowledge Discovery and Data Mining",
        phrases=(r"pacific asia conference on knowledge discovery and data mining",),
        acronyms=("pakdd",),
    ),
    VenueAlias(
        "kdd",
        "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
        phrases=(r"knowledge discovery (?:and|in) data mining",),
        acronyms=("kdd", "sigkdd"),
    ),
    VenueAlias(
        "www",
        "The Web Conference",
        phrases=(
            r"the web conference",
            r"acm web conference",
            r"world wide web conference",
            r"international conference on world wide web",
        ),
        acronyms=("www", "thewebconf"),
    ),
    VenueAlias(
        "sigir",
        "International ACM SIGIR Conference on Research and Development in Information Retrieval",
        phrases=(r"research and development in information retrieval",),
        acronyms=("sigir",),
    ),
    VenueAlias(
        "wsdm",
        "ACM International Conference on Web Search and Data Mining",
        phrases=(r"web search and data mining",),
        acronyms=("wsdm",),
    ),
    VenueAlias(
        "cikm",
        "ACM International Conference on Information and Knowledge Management",
        phrases=(r"conference on information and knowledge management",),
        acronyms=("cikm",),
    ),
    # --- robotics, systems, theory, HCI ---------------------------------------------------------------
    VenueAlias(
        "icra",
        "IEEE International Conference on Robotics and Automation",
        phrases=(r"international conference on robotics and automation",),
        acronyms=("icra",),
    ),
    VenueAlias(
        "iros",
        "IEEE/RSJ International Conference on Intelligent Robots and Systems",
        phrases=(r"international conference on intelligent robots and systems",),
        acronyms=("iros",),
    ),
    VenueAlias(
        "chi",
        "CHI Conference on Human Factors in Computing Systems",
        phrases=(r"human factors in computing systems",),
        acronyms=("chi",),
    ),
    VenueAlias(
        "stoc",
        "ACM Symposium on Theory of Computing",
        phrases=(r"symposium on theory of computing",),
        acronyms=("stoc",),
    ),
    VenueAlias(
        "focs",
        "IEEE Symposium on Foundations of Computer Science",
        phrases=(r"symposium on foundations of computer science",),
        acronyms=("focs",),
    ),
    VenueAlias(
        "soda",
        "ACM-SIAM Symposium on Discrete Algorithms",
        phrases=(r"symposium on discrete algorithms",),
        acronyms=("soda",),
    ),
    VenueAlias(
        "sigmod",
        "ACM SIGMOD International Conference on Management of Data",
        phrases=(r"international conference on management of data",),
        acronyms=("sigmod",),
    ),
    VenueAlias(
        "vldb",
        "Proceedings of the VLDB Endowment",
        phrases=(r"vldb endowment", r"very large data bases"),
        acronyms=("vldb", "pvldb"),
    ),
    VenueAlias(
        "osdi",
        "USENIX Symposium on Operating Systems Design and Implementation",
        phrases=(r"operating systems design and implementation",),
        acronyms=("osdi",),
    ),
    # --- general science journals ---------------------------------------------------------------------
    VenueAlias("nature", "Nature", exact=("nature", "nature london")),
    VenueAlias("science", "Science", exact=("science", "science new york n y", "science new york ny")),
    VenueAlias(
        "pnas",
        "Proceedings of the National Academy of Sciences",
        phrases=(r"proceedings of the national academy of sciences", r"proc natl acad sci"),
        acronyms=("pnas",),
    ),
    # --- the weak key: a publisher of many conferences ------------------------------------------------
    VenueAlias(
        "pmlr",
        "Proceedings of Machine Learning Research",
        phrases=(
            r"proceedings of machine learning research",
            r"proc mach learn res",
            r"jmlr w ?cp",
            r"jmlr workshop and conference proceedings",
        ),
        acronyms=("pmlr",),
    ),
)

_BY_KEY: Final = {alias.key: alias for alias in VENUE_ALIASES}

# Venues whose proceedings PMLR publishes: against "pmlr" they are not comparable, not different.
PMLR_HOSTED: Final = frozenset({"icml", "aistats", "uai", "colt", "corl", "pmlr"})

_FINDINGS_OF: Final = ("emnlp", "naacl", "eacl", "aacl", "acl")


def _compile_phrase(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])")


_PHRASES: Final = tuple(
    (alias.key, _compile_phrase(phrase)) for alias in VENUE_ALIASES for phrase in alias.phrases
)
_ACRONYMS: Final = tuple((alias.key, acronym) for alias in VENUE_ALIASES for acronym in alias.acronyms)
_EXACT: Final = {form: alias.key for alias in VENUE_ALIASES for form in alias.exact}
_PMLR_PATTERNS: Final = tuple(_compile_phrase(phrase) for phrase in _BY_KEY["pmlr"].phrases)

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

_ORDINAL_WORDS: Final = (
    *("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"),
    *("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"),
    *("seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth", "fortieth", "fiftieth"),
    *("sixtieth", "seventieth", "eightieth", "ninetieth", "hundredth", "twenty", "thirty"),
    *("forty", "fifty", "sixty", "seventy", "eighty", "ninety"),
)
_EDITION_NOISE = re.compile(
    r"(?<![a-z0-9])(?:\d+(?:st|nd|rd|th)|\d+|" + "|".join(_ORDINAL_WORDS) + r")(?![a-z0-9])"
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
    text = _EDITION_NOISE.sub(" ", fold(venue))
    return _strip_lead(" ".join(text.split()))


def _venue_tokens(venue: str) -> list[str]:
    tokens = [t for t in clean_venue(_TRAILING_ACRONYM.sub("", venue)).split() if t not in _NOISE_WORDS]
    return [_SHORT_ABBREVIATIONS.get(t, t) for t in tokens]


# --- canonical keys -------------------------------------------------------------------------------


def canonical_venue(venue: str | None) -> str | None:
    """The alias key of a venue ("neurips", "icml", "findings-acl", ...), None when the string is
    no venue claim, a workshop or other side event, or not in `VENUE_ALIASES`.
    """
    if venue is None or is_no_venue_claim(venue):
        return None
    folded = " ".join(_EDITION_NOISE.sub(" ", fold(venue)).split())
    if _SUB_VENUE.search(folded):
        # JMLR W&CP names itself after workshops; it is PMLR, the weak key.
        return "pmlr" if any(p.search(folded) for p in _PMLR_PATTERNS) else None
    tokens = set(folded.split())
    if "findings" in tokens:
        for key in _FINDINGS_OF:
            if key in tokens or any(p.search(folded) for k, p in _PHRASES if k == key):
                return f"findings-{key}"
        if "computational linguistics" in folded:
            return "findings-acl"
    exact = _EXACT.get(_strip_lead(folded))
    if exact is not None:
        return exact
    for key, phrase in _PHRASES:
        if phrase.search(folded):
            return key
    for key, acronym in _ACRONYMS:
        if acronym in tokens:
            return key
    return None


def _is_sub_venue(venue: str | None) -> bool:
    return venue is not None and bool(_SUB_VENUE.search(fold(venue)))


def venue_name(key: str) -> str | None:
    """The display name of an alias key ("neurips" -> "Advances in Neural Information ...")."""
    if key.startswith("findings-"):
        inner = _BY_KEY.get(key.removeprefix("findings-"))
        return f"Findings of {inner.acronyms[0].upper()}" if inner and inner.acronyms else None
    alias = _BY_KEY.get(key)
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
        if "pmlr" in (key_cited, key_found) and {key_cited, key_found} <= PMLR_HOSTED:
            return None
        return False
    return venue_similarity(cited, found) >= 1.0
