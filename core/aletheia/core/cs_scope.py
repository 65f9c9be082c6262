"""Whether a citation is computer science, so that DBLP could hold it. Pure; the words are data.

DBLP indexes computer-science journals and proceedings (and CoRR, arXiv's cs.* copy). A
reference is counted as CS when its cited venue resolves to a computing venue of the venue table
(`core.venues.canonical_venue`: NeurIPS, ICML, ACL, CVPR, SIGMOD, ...), when the venue's words are a
computing field's, or when it cites an ACL Anthology URL. This only widens which sources are
asked (and must answer before "no source has it"); it never decides a verdict by itself.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.acl_ids import cited_acl_id
from aletheia.core.records import CitedReference
from aletheia.core.text import fold
from aletheia.core.venues import canonical_venue

# Venue-table keys that are not computing venues (general science journals).
NON_CS_VENUE_KEYS: Final = frozenset({"nature", "science", "pnas"})
# Words of computing venues ("Lecture Notes in Computer Science", "IEEE Trans. Knowl. Data Eng.",
# "Proc. ACM Program. Lang.", "Workshop on Machine Translation", ...).
_CS_WORDS: Final = re.compile(
    r"(?<![a-z])(?:comput\w*|informatics?|information (?:systems|retrieval|processing)|"
    r"artificial intelligence|machine learning|learning representations|neural (?:information|"
    r"networks?|computation)|deep learning|robot\w*|software|data (?:mining|engineering|bases?)|"
    r"databases?|algorithm\w*|cryptolog\w*|cryptograph\w*|security and privacy|linguistics|"
    r"language processing|machine translation|speech|computer vision|pattern recognition|"
    r"pattern analysis|graphics|multimedia|world wide web|web conference|knowledge discovery|"
    r"programming|operating systems|distributed systems|parallel|networking|sigkdd|sigir|sigmod|"
    r"siggraph|sigplan|acm|usenix|lncs|corr|ieee trans\w*|ieee/cvf|ieee conference|"
    r"intelligent systems|knowledge and data|theoretical computer science|automata|logic in "
    r"computer science|uncertainty in artificial intelligence|learning theory)(?![a-z])"
)


def is_computing_venue(venue: str) -> bool:
    """A computing venue of the venue table, or a venue in a computing field's words."""
    key = canonical_venue(venue)
    if key is not None and key not in NON_CS_VENUE_KEYS:
        return True
    return bool(_CS_WORDS.search(fold(venue)))


def is_computer_science(cited: CitedReference) -> bool:
    """The citation names a computing venue, or cites the ACL Anthology."""
    venue = cited.venue or cited.fields.get("booktitle") or cited.fields.get("journal") or ""
    if venue and is_computing_venue(venue):
        return True
    return cited_acl_id(cited) is not None
