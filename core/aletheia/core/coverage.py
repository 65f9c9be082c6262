"""Which sources could hold a cited work (which kinds of work the indexes do not hold: `work_kinds`).

An accusation needs positive evidence (docs/verdicts.md). "No source has this work" is evidence
only when every source that could hold the work was asked and answered. The pipeline asks the
sources `search_coverage` names before it lets `decide` say `not_found`; `decide` checks that they
answered. A registry's "no such DOI" counts only for a DOI it registers (`doi_registrant`).

The tables are data: a new biomedical venue word is a row.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from aletheia.core.cs_scope import is_computer_science
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.source_facts import SOURCE_FACTS, Coverage
from aletheia.core.text import fold
from aletheia.core.venues import is_no_venue_claim

__all__ = [
    "ARXIV_FIRST_YEAR",
    "COVERAGE_RULES",
    "DATA_DOI_PREFIXES",
    "GENERAL_INDEXES",
    "NON_CROSSREF_DOI_PREFIXES",
    "could_be_on_arxiv",
    "doi_registrant",
    "is_biomedical",
    "search_coverage",
]

# The general indexes: every scholarly work could be in any of them (their records' coverage is
# "always").
GENERAL_INDEXES: Final = tuple(SourceName(f.name) for f in SOURCE_FACTS.values() if f.coverage == "always")
# arXiv began in August 1991.
ARXIV_FIRST_YEAR: Final = 1991

# Venue words of the life sciences: PubMed could hold the work.
_BIOMEDICAL: Final = re.compile(
    r"(?<![a-z])(?:medic\w*|clinic\w*|health|lancet|jama|nejm|bmj|cell|genet\w*|genom\w*|"
    r"neuro\w*|cancer|oncol\w*|pharm\w*|patholog\w*|nurs\w*|epidemiol\w*|immun\w*|physiol\w*|"
    r"psychiatr\w*|cardio\w*|surg\w*|pediatr\w*|paediatr\w*|plos|bmc|biolog\w*|bioinformatics|"
    r"biochem\w*|biophys\w*|molecular|microbio\w*|virol\w*|radiol\w*|dermatol\w*|endocrin\w*|"
    r"gastro\w*|hepatol\w*|nephrol\w*|ophthalmol\w*|obstet\w*|gynecol\w*|dental|dentistry|"
    r"veterinar\w*|toxicol\w*|nutrition|psycholog\w*|brain|elife|pnas|"
    r"national academy of sciences|nature medicine|scientific reports)(?![a-z])"
)

# DataCite prefixes of data and software archives: a DOI there cites data or code, not a paper.
DATA_DOI_PREFIXES: Final = frozenset(
    {
        "10.5281",  # Zenodo
        "10.6084",  # figshare
        "10.5061",  # Dryad
        "10.17632",  # Mendeley Data
        "10.7910",  # Harvard Dataverse
        "10.24433",  # Code Ocean
    }
)
# DOI registrants that are not Crossref (DataCite and others): Crossref's 404 says nothing.
NON_CROSSREF_DOI_PREFIXES: Final = DATA_DOI_PREFIXES | {
    "10.48550",  # arXiv
    "10.25080",  # SciPy proceedings (DataCite)
}


def doi_registrant(doi: str | None) -> str | None:
    return doi.split("/", 1)[0] if doi and "/" in doi else None


def is_biomedical(cited: CitedReference) -> bool:
    if cited.pmid or cited.pmcid:
        return True
    text = fold(" ".join(x for x in (cited.venue or "", cited.fields.get("journal", "")) if x))
    return bool(text and _BIOMEDICAL.search(text))


def could_be_on_arxiv(cited: CitedReference) -> bool:
    """arXiv could hold the work: cited as a preprint (or with no venue), or with an arXiv id."""
    if cited.arxiv_id:
        return True
    if cited.year is not None and cited.year < ARXIV_FIRST_YEAR:
        return False
    return is_no_venue_claim(cited.venue)


def search_coverage(cited: CitedReference) -> tuple[SourceName, ...]:
    """The sources whose searches must all have answered before "no source has it" is evidence:
    each source whose record's coverage (`source_facts.SourceFacts.coverage`) holds the work.

    The three general indexes always; arXiv for a work cited as a preprint or without a venue;
    PubMed for a work in a life-science venue; DBLP for a computer-science work (`cs_scope`: it
    lists CS proceedings the general indexes miss, issue 12). (Semantic Scholar holds all of arXiv,
    but arXiv's own search finds a preprint whose title Semantic Scholar holds in another version.)
    """
    return tuple(
        SourceName(facts.name)
        for facts in SOURCE_FACTS.values()
        if facts.coverage is not None and COVERAGE_RULES[facts.coverage](cited)
    )


# A record's coverage -> whether its source could hold the cited work.
COVERAGE_RULES: Final[dict[Coverage, Callable[[CitedReference], bool]]] = {
    "always": lambda _: True,
    "preprint": could_be_on_arxiv,
    "biomedical": is_biomedical,
    "computer_science": is_computer_science,
}
