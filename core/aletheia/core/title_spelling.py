"""Is a cited title the source's with a misspelt word, or the same title in another spelling?

`misspelt(cited, found)` is True when the two titles have the same words but for a letter or two
in some word, and that difference is not a regional spelling (`REGIONAL_SPELLINGS`: British and
American forms such as optimise/optimize, behaviour/behavior, modelling/modeling, centre/center,
haemoglobin/hemoglobin). "Artificial Inteligence" is misspelt (issue 20: it was verified with
nothing to change); "Optimising Behaviour Modelling" is the same title as "Optimizing Behavior
Modeling". Pure; the rows that use it are in `field_rules`.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.text import normalize_title

# (pattern, replacement) applied in order to each folded word: both forms of a regional spelling
# end up the same. A word pair that differs after these is misspelt. Sources: the Oxford and
# Merriam-Webster variant lists (the -ise/-ize, -our/-or, -lled/-led, -tre/-ter, -ogue/-og,
# -ence/-ense, ae/oe digraph families) and the forms seen in PubMed and Crossref titles.
REGIONAL_SPELLINGS: Final[tuple[tuple[re.Pattern[str], str], ...]] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"is(e|ed|es|er|ers|ing|ation|ations|ational)$", r"iz\1"),  # optimise, organisation
        (r"ys(e|ed|es|er|ers|ing)$", r"yz\1"),  # analyse, catalyse
        (r"(?<=[a-z]{2})our(s|ed|ing|al|ally|able|ite|ites|less)?$", r"or\1"),  # behaviour, colour
        (r"(?<=[aeiou])ll(ed|ing|er|ers)$", r"l\1"),  # modelling, labelled, travelled
        (r"([bt])re(s|d)?$", r"\1er\2"),  # centre, fibre, metre
        (r"ogue(s)?$", r"og\1"),  # catalogue, dialogue
        (r"^(def|lic|off|pret)ence(s)?$", r"\1ense\2"),  # defence, licence
        (r"dgement(s)?$", r"dgment\1"),  # judgement, acknowledgement
        (r"^ageing$", "aging"),
        (r"^grey(s)?$", r"gray\1"),
        (r"^programme(s)?$", r"program\1"),
        (r"^aluminium$", "aluminum"),
        (r"^sulph", "sulf"),
        (r"(?<=[a-z])ae(?=[a-z])", "e"),  # haemoglobin, anaesthesia, leukaemia, paediatric
        (r"(?<=[a-z])oe(?=[a-z])", "e"),  # oestrogen, foetal, oedema
        (r"^ae", "e"),  # aetiology
        (r"^oe", "e"),
    )
)


def regional_form(word: str) -> str:
    """The word with its regional spelling folded to one form ("optimised" -> "optimized")."""
    for pattern, replacement in REGIONAL_SPELLINGS:
        word = pattern.sub(replacement, word)
    return word


def misspelt(cited: str, found: str) -> bool:
    """The titles have the same words, and some word differs by more than a regional spelling: a
    letter or two dropped, doubled or swapped. Titles that differ by whole words, by spacing or
    hyphenation ("pre-training" / "pretraining") or only by spelling variants are not misspelt."""
    a, b = normalize_title(cited).split(), normalize_title(found).split()
    if a == b or len(a) != len(b) or "".join(a) == "".join(b):
        return False
    return any(regional_form(x) != regional_form(y) for x, y in zip(a, b, strict=True) if x != y)
