"""Tier 0: the one work a citation names among the library's records, and the records a verified
reference leaves in the library (pure).

The library keeps the source records of works verified before and is looked up by a cited
identifier or by the exact title, so one look-up can bring namesakes: Goodfellow, Bengio and
Courville's book "Deep Learning" (MIT Press, 2016) and LeCun, Bengio and Hinton's Nature article
"Deep learning" (2015) share a title (issue 28: the book was "verified" by the article's Crossref
and OpenAlex records). A library hit is therefore one work, never merged with a namesake:

- records are one work when they share an identifier (a DOI or one of its versions, an arXiv id,
  a PMID, an ISBN), or when title and first author agree (`works.same_work`), both are books or
  both are not, and no identifier they both carry differs;
- the work a citation names is the one holding a cited identifier (DOI, arXiv id, PMID, ISBN)
  when it cites any, else the one whose title is the cited title and whose first author is the
  cited first author (and a book when the citation is one); anything else — no such work, or
  more than one — is no hit, and the sources are asked as on a first run.

What is remembered is the matched work's records from the answers that establish a work (its
identifier lookups and searches), never another work a search returned nor a book's page
snippets (`evidence.OUTSIDE_WORKS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from aletheia.core.book_rules import is_book_like, is_book_record
from aletheia.core.evidence import OUTSIDE_WORKS, Evidence, Outcome
from aletheia.core.identifiers import same_doi
from aletheia.core.isbn import normalise_isbn, same_isbn
from aletheia.core.records import CitedReference, WorkRecord
from aletheia.core.text import normalize_title
from aletheia.core.verdicts import Verdict
from aletheia.core.works import Work, assess, group_works, same_work

__all__ = ["cited_library_work", "library_works", "records_to_remember"]


def _doi_is(a: str, b: str) -> bool:
    """The same DOI (`identifiers.same_doi`), or the same string where either is no well-formed
    DOI (the library is keyed by the string it stored)."""
    return a.casefold() == b.casefold() or same_doi(a, b)


def _isbns(record: WorkRecord) -> set[str]:
    return {n for n in (normalise_isbn(i) for i in record.isbn) if n}


def _share_identifier(a: WorkRecord, b: WorkRecord) -> bool:
    if a.doi and b.doi and _doi_is(a.doi, b.doi):
        return True
    if (a.doi and a.doi in b.related_dois) or (b.doi and b.doi in a.related_dois):
        return True
    if a.arxiv_id and (a.arxiv_id == b.arxiv_id or a.arxiv_id in b.related_arxiv_ids):
        return True
    if b.arxiv_id and b.arxiv_id in a.related_arxiv_ids:
        return True
    if a.pmid and a.pmid == b.pmid:
        return True
    return bool(_isbns(a) & _isbns(b))


def _identifiers_differ(a: WorkRecord, b: WorkRecord) -> bool:
    """Both carry an identifier of one kind and it is not the same: two works (a preprint and its
    published version are related by their records, which `_share_identifier` reads first)."""
    if a.doi and b.doi and not _doi_is(a.doi, b.doi):
        return True
    if a.arxiv_id and b.arxiv_id and a.arxiv_id != b.arxiv_id:
        return True
    if a.pmid and b.pmid and a.pmid != b.pmid:
        return True
    isbns_a, isbns_b = _isbns(a), _isbns(b)
    return bool(isbns_a and isbns_b and not isbns_a & isbns_b)


def one_library_work(a: WorkRecord, b: WorkRecord) -> bool:
    """Two stored records are one work (the module docstring's first rule)."""
    if _share_identifier(a, b):
        return True
    return is_book_record(a) == is_book_record(b) and not _identifiers_differ(a, b) and same_work(a, b)


def library_works(records: Iterable[WorkRecord]) -> list[list[WorkRecord]]:
    """The records clustered into works by `one_library_work` (a record joining two clusters
    joins them), in the order their first records came."""
    works: list[list[WorkRecord]] = []
    for record in records:
        home = [w for w in works if any(one_library_work(record, r) for r in w)]
        if not home:
            works.append([record])
            continue
        target = home[0]
        for other in home[1:]:
            target.extend(other)
            works.remove(other)
        target.append(record)
    return works


def _names_cited_identifier(work: Sequence[WorkRecord], cited: CitedReference) -> bool:
    cited_isbn = normalise_isbn(cited.isbn) if cited.isbn else None
    return any(
        (cited.doi and r.doi and _doi_is(cited.doi, r.doi))
        or (cited.doi and cited.doi in r.related_dois)
        or (cited.arxiv_id and (cited.arxiv_id == r.arxiv_id or cited.arxiv_id in r.related_arxiv_ids))
        or (cited.pmid and cited.pmid == r.pmid)
        or (cited_isbn and any(same_isbn(cited_isbn, i) for i in r.isbn))
        for r in work
    )


def _fits_title(work: Sequence[WorkRecord], cited: CitedReference) -> bool:
    """The work's title is the cited title, its first author the cited first author, and it is a
    book when the citation is one."""
    if not cited.title or not cited.authors:
        return False
    wanted = normalize_title(cited.title)
    if not any(r.title and normalize_title(r.title) == wanted for r in work):
        return False
    if is_book_like(cited) and not any(is_book_record(r) for r in work):
        return False
    return assess(cited, Work(records=list(work))).first_author_agrees is True


def cited_library_work(cited: CitedReference, records: Sequence[WorkRecord]) -> list[WorkRecord]:
    """The records of the one stored work `cited` names; empty when none or several do."""
    works = library_works(records)
    if cited.doi or cited.arxiv_id or cited.pmid or normalise_isbn(cited.isbn or ""):
        candidates = [w for w in works if _names_cited_identifier(w, cited)]
    else:
        candidates = [w for w in works if _fits_title(w, cited)]
    return list(candidates[0]) if len(candidates) == 1 else []


def records_to_remember(verdict: Verdict, evidence: Evidence) -> list[WorkRecord]:
    """The matched work's records among the answers that establish works (as `decide` grouped
    them): what a verified reference leaves in the library; the match alone where no answer holds
    it. Empty without a match."""
    if verdict.match is None:
        return []
    answers = [a for a in evidence.answers if a.kind not in OUTSIDE_WORKS and a.outcome is Outcome.FOUND]
    for work in group_works(answers):
        if any(r == verdict.match for r in work.records):
            # Within it, the library's own rule: no namesake of another kind or identifier.
            return next(w for w in library_works(work.records) if any(r == verdict.match for r in w))
    # The evidence kept no answer that holds it (a verdict handed over whole): the match alone.
    return [verdict.match]
