"""Which kinds of work the scholarly indexes do not hold, or hold only in part (`classify_kind`).

"No source has this work" is no evidence at all for a web page, a code repository, a newspaper
article or a book of 1950, which the indexes were never meant to hold (docs/verdicts.md): such a
reference is reported with its kind (out of scope), or left `unverifiable` when nothing matches
(held in part), never `not_found`. The kind is read from the entry type, the URL's host, the venue
words, the title, or (without venue or identifier) the text alone. Which sources could hold an
ordinary paper is `coverage`.

The tables are data: a new repository host or a new venue word is a row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from aletheia.core.author_kinds import is_organisation_name, is_placeholder_author
from aletheia.core.coverage import DATA_DOI_PREFIXES, doi_registrant
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import fold
from aletheia.core.venues import is_no_venue_claim, is_publisher

__all__ = [
    "CHAPTER_COVERAGE_YEAR",
    "INDEX_COVERAGE_YEAR",
    "OUT_OF_SCOPE_TYPES",
    "PARTLY_INDEXED_TYPES",
    "USER_CONFIRMED_FIELD",
    "Kind",
    "classify_kind",
]


# Before this year the indexes' coverage of conference papers, reports and books is thin: a work
# they do not have is not evidence of invention (works before 1970 in the false alarms).
INDEX_COVERAGE_YEAR: Final = 1970
# Book chapters from before this year were mostly never given a DOI or deposited: a chapter the
# indexes lack is no evidence either (issue 28: a 1976 chapter called `not_found`).
CHAPTER_COVERAGE_YEAR: Final = 1995
_CHAPTER_TYPES: Final = frozenset({"incollection", "inbook"})


# Hosts whose pages are software, data or web content, never an indexed paper.
_CODE_HOSTS: Final = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "pypi.org", "npmjs.com")
_DATA_HOSTS: Final = ("zenodo.org", "figshare.com", "kaggle.com", "datadryad.org", "dataverse")
_NEWS_HOSTS: Final = (
    "nytimes.com",
    "washingtonpost.com",
    "theguardian.com",
    "bbc.co.uk",
    "bbc.com",
    "reuters.com",
    "bloomberg.com",
    "wsj.com",
    "ft.com",
    "forbes.com",
    "techcrunch.com",
    "theverge.com",
    "wired.com",
    "economist.com",
    "cnn.com",
    "medium.com",
    "substack.com",
)
# Hosts of scholarly publishers, proceedings and indexes: a URL there is a paper's landing page.
_SCHOLARLY_HOSTS: Final = (
    "doi.org",
    "arxiv.org",
    "openreview.net",
    "aclanthology.org",
    "aclweb.org",
    "neurips.cc",
    "nips.cc",
    "mlr.press",
    "jmlr.org",
    "dl.acm.org",
    "ieeexplore.ieee.org",
    "springer.com",
    "sciencedirect.com",
    "nature.com",
    "science.org",
    "wiley.com",
    "tandfonline.com",
    "ncbi.nlm.nih.gov",
    "biorxiv.org",
    "medrxiv.org",
    "semanticscholar.org",
    "aaai.org",
    "thecvf.com",
    "ecva.net",
    "ijcai.org",
    "usenix.org",
    "plos.org",
    "cell.com",
    "pnas.org",
    "mdpi.com",
    "frontiersin.org",
    "oup.com",
    "cambridge.org",
    "jstor.org",
    "ssrn.com",
    "researchgate.net",
    "iclr.cc",
    "isca-archive.org",
    "pubs.acs.org",
    "aps.org",
    "iop.org",
)
_BOOK_HOSTS: Final = ("books.google.", "amazon.", "oreilly.com", "packtpub.com", "manning.com")


# Entry types of works outside the indexes (reported, not judged) and of works the indexes hold
# only in part (books, reports, theses: not found there is no evidence of invention).
OUT_OF_SCOPE_TYPES: Final = frozenset(
    {
        "software",
        "online",
        "www",
        "webpage",
        "electronic",
        "standard",
        "patent",
        "legislation",
        "legal",
        "jurisdiction",
        "dataset",
        "video",
        "audio",
        "artwork",
        "image",
        "newspaper",
        "news",
        "blog",
        "repository",
        "code",
    }
)
PARTLY_INDEXED_TYPES: Final = frozenset(
    {
        "book",
        "booklet",
        "manual",
        "techreport",
        "report",
        "phdthesis",
        "mastersthesis",
        "thesis",
        "unpublished",
    }
)
_OUT_OF_SCOPE_WORDS: Final = re.compile(
    r"(?<![a-z])(?:github|gitlab|software|source code|code repository|dataset|data set|blog|"
    r"newspaper|press release|website|web page|webpage|accessed|retrieved|"
    r"standard|rfc \d+|iso \d+|documentation|model card|"
    # The hosts of `_CODE_HOSTS` and `_DATA_HOSTS` named in words: a style that prints no URL
    # (BibTeX's `plain`, `ieeetr`) keeps "Hugging Face model repository" as the only sign.
    r"hugging ?face|kaggle|zenodo|pypi|model (?:repository|hub|weights|checkpoints?))(?![a-z])"
)
# Titles that say what the thing is: a model card, a licence (the URL that said so in the `.bib`
# may be gone from a rendered list).
_OUT_OF_SCOPE_TITLE: Final = re.compile(r"(?<![a-z])model card|licen[cs]e ?agreement")
# A model release named by its size ("Llama 3.1 8B", "Mistral-Small-24B-Instruct-2501"), cited
# without a venue or an identifier: some have a paper the indexes hold, many only a model page.
_MODEL_SIZE: Final = re.compile(r"(?<![a-z0-9])\d+(?:\s\d+)?[bm](?![a-z0-9])")
_MODEL_TITLE_MAX_WORDS: Final = 8
# Titles that name a tool or a ranking, and how short the name of a thing is (`_named_resource`).
_RESOURCE_TITLE: Final = re.compile(
    r"(?<![a-z])(?:leaderboard|harness|toolkit|toolbox|package|plugin|sdk|codebase|cheat ?sheet)(?![a-z])"
)
_NAME_MAX_WORDS: Final = 4
_JOINED_NAMES: Final = re.compile(r"(?<![a-z])and(?![a-z])|&")
# Publishers of proceedings, which a reference may name where its venue belongs ("PMLR", "IEEE"):
# a venue that is one of these says nothing about the work being a book.
_PROCEEDINGS_PUBLISHERS: Final = re.compile(
    r"(?:pmlr|openreview(?: net)?|curran(?: associates)?(?: inc)?|jmlr(?: org)?|microtome|ijcai(?: org)?|"
    r"aaai(?: press)?|usenix(?: association)?|ieee.*|acm.*|association for computing machinery|"
    r"association for computational linguistics|neural information processing systems foundation|"
    r"international machine learning society|schloss dagstuhl.*|ceur.*)"
)
_MANUAL_TITLE: Final = re.compile(
    r"(?<![a-z])(?:reference manual|user manual|users? guide|user s guide|documentation)(?![a-z])"
)
# Reports, theses and white papers: some are indexed (arXiv technical reports), many are not.
_REPORT_WORDS: Final = re.compile(
    r"(?<![a-z])(?:technical report|tech rep|white ?paper|system card|report|thesis|dissertation|"
    r"books?|press|publishing|publishers?)(?![a-z])"
)


@dataclass(frozen=True, slots=True)
class Kind:
    """What kind of thing a reference cites, when it is not an indexed paper.

    `out_of_scope`: the indexes do not hold such things at all (web pages, software, data, news):
    reported, not judged. Otherwise the indexes hold it only in part (books, reports, theses, old
    works): a search that finds nothing leaves it `unverifiable`, never `not_found`.
    """

    name: str
    out_of_scope: bool
    why: str
    # Read from the text alone, not from a URL, an entry type or a venue: the title names a thing
    # ("Open LLM Leaderboard v2") or the authors are accounts ("KisanVaani"). Searched like a paper,
    # since the reading may be wrong; when no index has it, `unverifiable` ("not a kind of work the
    # scholarly indexes hold; check by hand"), never `not_found` (issue 21).
    outside_indexes: bool = False


def _host(url: str | None) -> str:
    if not url:
        return ""
    try:
        return (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def _urls(cited: CitedReference) -> list[str]:
    urls = [cited.url] if cited.url else []
    for name in ("url", "howpublished", "note"):
        value = cited.fields.get(name, "")
        urls.extend(re.findall(r"https?://[^\s{}\\]+", value))
    return urls


def _host_in(host: str, hosts: tuple[str, ...]) -> bool:
    return any(host == h or host.endswith("." + h) or (h.endswith(".") and h in host) for h in hosts)


_UNDATED: Final = re.compile(
    r"^\s*(?:n\.?\s?d\.?|no date|s\.\s?d\.|online|web|website|blog)?\s*$", re.IGNORECASE
)


def _no_venue(cited: CitedReference) -> bool:
    """No venue claim: nothing, a preprint server, or "n.d."."""
    venue = cited.venue or ""
    return is_no_venue_claim(venue) or bool(_UNDATED.match(venue))


def classify_kind(cited: CitedReference) -> Kind | None:
    """The kind of a reference outside the indexes' core (None for an ordinary paper)."""
    entry_type = (cited.entry_type or "").lower()
    scholarly_id = bool(cited.arxiv_id or cited.pmid)
    if entry_type in OUT_OF_SCOPE_TYPES:
        return Kind(entry_type, True, f"entry type @{entry_type}")
    hosts = [_host(u) for u in _urls(cited)]
    venue_text = fold(" ".join(x for x in (cited.venue or "", cited.fields.get("howpublished", "")) if x))
    out_of_scope = _out_of_scope_kind(cited, entry_type, scholarly_id, hosts, venue_text)
    if out_of_scope is not None:
        return out_of_scope
    return _partly_indexed_kind(cited, entry_type, scholarly_id, hosts, venue_text)


def _out_of_scope_kind(
    cited: CitedReference, entry_type: str, scholarly_id: bool, hosts: list[str], venue_text: str
) -> Kind | None:
    """A kind the scholarly indexes do not hold: data, code, news, web pages, model cards."""
    registrant = doi_registrant(cited.doi)
    if registrant in DATA_DOI_PREFIXES and not scholarly_id:
        return Kind(
            "dataset or software", True, f"a DataCite DOI ({registrant}) of a data or software archive"
        )
    if not scholarly_id and not cited.doi:
        for host in hosts:
            if _host_in(host, _CODE_HOSTS):
                return Kind("code repository", True, f"a URL at {host}")
            if _host_in(host, _DATA_HOSTS):
                return Kind("dataset", True, f"a URL at {host}")
            if _host_in(host, _NEWS_HOSTS):
                return Kind("news or blog article", True, f"a URL at {host}")
    if not (cited.doi or scholarly_id):
        if venue_text and _OUT_OF_SCOPE_WORDS.search(venue_text) and not cited.fields.get("journal"):
            return Kind("web or software resource", True, f"published as {venue_text!r}")
        if cited.title and _OUT_OF_SCOPE_TITLE.search(fold(cited.title)):
            return Kind("model card or licence", True, f"titled {cited.title!r}")
        if entry_type in ("misc", "") and hosts and not cited.authors:
            return Kind("web page", True, f"a URL at {hosts[0]} with no authors")
        web = [h for h in hosts if h and not _host_in(h, _SCHOLARLY_HOSTS)]
        if web and len(web) == len(hosts) and _no_venue(cited) and entry_type not in PARTLY_INDEXED_TYPES:
            # Only a non-scholarly URL and no venue: a blog post, a company page, a manual online.
            blog = any(".github.io" in h for h in web) or any("blog" in u.lower() for u in _urls(cited))
            return Kind("blog post" if blog else "web page", True, f"only a URL at {web[0]}, no venue")
    return None


def _partly_indexed_kind(
    cited: CitedReference, entry_type: str, scholarly_id: bool, hosts: list[str], venue_text: str
) -> Kind | None:
    """A kind the indexes hold only in part (manuals, books, reports, early works, releases)."""
    if cited.title and _MANUAL_TITLE.search(fold(cited.title)) and not (cited.doi or scholarly_id):
        return Kind("manual", False, "a manual or documentation")
    confirmed = cited.fields.get(USER_CONFIRMED_FIELD)
    if confirmed is not None and not (cited.doi or scholarly_id):
        # The user checked this work by hand (issue 21, item 5): not held by any index, it is
        # `unverifiable` with that said, never `not_found`; positive evidence of invention (a
        # placeholder author, a future year) still flags it, as for any reference.
        why = f"confirmed by the user ({USER_CONFIRMED_FIELD} = {confirmed.strip()!r})"
        return Kind("user-confirmed work", False, why, outside_indexes=True)
    if entry_type in PARTLY_INDEXED_TYPES:
        return Kind(entry_type, False, f"entry type @{entry_type}: the indexes hold such works only in part")
    if venue_text and _REPORT_WORDS.search(venue_text) and not (cited.doi or scholarly_id):
        return Kind("report or book", False, f"published as {venue_text!r}")
    if any(_host_in(h, _BOOK_HOSTS) for h in hosts) and not scholarly_id:
        return Kind("book", False, "a bookseller or book-search URL")
    if cited.isbn and not (cited.doi or scholarly_id):
        return Kind("book", False, "cited with an ISBN")
    if not (cited.doi or scholarly_id or cited.fields.get("journal")) and _publisher_only(cited.venue):
        # "Bishop. Pattern Recognition and Machine Learning. Springer, 2006.": a reference string
        # names a book's publisher where a paper's venue would be (the `.bib` said `@book`).
        return Kind("book", False, f"published by {cited.venue}")
    if not (cited.doi or scholarly_id) and _no_venue(cited):
        if _is_model_release(cited.title):
            return Kind("model release", False, f"a model named by its size, {cited.title!r}, no venue")
        if cited.authors and all(is_organisation_name(a.display) for a in cited.authors):
            return Kind("organisation's release", False, "an organisation as author, no venue")
        named = _named_resource(cited)
        if named is not None and not cited.fields.get("journal"):
            return Kind("web or software resource", False, named, outside_indexes=True)
    if cited.year is not None and cited.year < INDEX_COVERAGE_YEAR and not (cited.doi or scholarly_id):
        return Kind("early work", False, f"published in {cited.year}, before the indexes' coverage")
    if (
        entry_type in _CHAPTER_TYPES
        and cited.year is not None
        and cited.year < CHAPTER_COVERAGE_YEAR
        and not (cited.doi or scholarly_id)
    ):
        return Kind("book chapter", False, f"a chapter of {cited.year}, before the indexes held chapters")
    return None


# The input field (BibTeX `aletheia-confirmed = {...}`, any text: who checked it and when) by which
# a user says a work outside the indexes is real.
USER_CONFIRMED_FIELD: Final = "aletheia-confirmed"


def _publisher_only(venue: str | None) -> bool:
    return bool(venue) and is_publisher(venue) and not _PROCEEDINGS_PUBLISHERS.fullmatch(fold(venue or ""))


def _is_account(author: Author) -> bool:
    """An account or an organisation rather than a person: one word and no given name
    ("KisanVaani", "TheFinAI", "NVIDIA": a Hugging Face or GitHub owner), or an organisation."""
    name = author.literal or author.family or ""
    if is_placeholder_author(author):
        return False  # "Anonymous" is a sign of invention (`case`), not an account
    return is_organisation_name(author.display) or (not author.given and len(name.split()) == 1)


def _named_resource(cited: CitedReference) -> str | None:
    """Why the text alone reads as a resource (a data set, a package, a leaderboard, a post)
    rather than a paper, or None. Read on references without venue or identifier only.

    From the ICLR 2026 references that lose their URL in a `.bbl` (docs/benchmarks.md, section
    6): accounts as authors ("KisanVaani. Agriculture-qa, 2024."), no date, a word that names a tool
    ("The Language Model Evaluation Harness"), a title of a few words without a subtitle, that
    names a thing and states no finding ("Optimal voting", "The NIPS Experiment", "Open LLM
    Leaderboard v2"). A title that reads like a paper's ("Vision transformer compression: Early
    exiting and token pruning") is none of these, so an invented paper stays `not_found`; so is a
    short title joining words with "and" ("Chen and N"): names spilled into a garbled title."""
    if cited.authors and all(_is_account(a) for a in cited.authors):
        return "accounts or organisations as authors, no venue"
    if cited.year is None:
        # No date either ("Ucbshift: Protein chemical shift prediction ...", a GitHub repository):
        # nothing in the reference claims a publication.
        return "no date, no venue, no identifier"
    title = fold(cited.title or "")
    if _RESOURCE_TITLE.search(title):
        return f"titled {cited.title!r}, no venue"
    words = title.split()
    subtitle = ":" in (cited.title or "")
    if words and len(words) <= _NAME_MAX_WORDS and not subtitle and not _JOINED_NAMES.search(title):
        return f"titled {cited.title!r}: a name, not a finding; no venue"
    return None


def _is_model_release(title: str | None) -> bool:
    folded = fold(title or "")
    return len(folded.split()) <= _MODEL_TITLE_MAX_WORDS and _MODEL_SIZE.search(folded) is not None
