"""arXiv versions as evidence (issue 21): the API gives every version of a paper, each with its
title and date (`id_list=ID` serves the latest, `id_list=IDvN` version N), so "the title changed
between versions" is a question the sources answer, not a tolerance.

`version_title_evidence` says whether some version of the cited arXiv paper carried the cited
title: True when a version's title is the cited one, False when every version is known (the
latest is v1, or all earlier versions were fetched) and none is, None when earlier versions exist
that were not fetched (the pipeline asks for them: `versions_to_fetch`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Final

from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.text import normalize_title


def preprint_id(cited: CitedReference, work_ids: Collection[str], *, via_arxiv: bool) -> str | None:
    """The arXiv paper whose versions could carry the cited title: the cited id, when arXiv
    resolved it to this work; else the work's one arXiv id (a work linked to two preprints names
    no single version history)."""
    if cited.arxiv_id:
        return cited.arxiv_id if via_arxiv and cited.arxiv_id in work_ids else None
    return next(iter(work_ids)) if len(work_ids) == 1 else None


_NEW_STYLE_ID: Final = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}$")


def arxiv_id_years(arxiv_ids: Collection[str]) -> set[int]:
    """The years the new-style arXiv ids say their first versions were submitted (`YYMM.NNNNN`,
    since April 2007): a date no index can get wrong (issue 28: an April 2025 preprint whose
    Semantic Scholar record says 2024)."""
    years: set[int] = set()
    for arxiv_id in arxiv_ids:
        match = _NEW_STYLE_ID.match(arxiv_id)
        if match is not None and 1 <= int(match.group(2)) <= 12 and 7 <= int(match.group(1)) <= 69:
            years.add(2000 + int(match.group(1)))
    return years


def arxiv_answered(arxiv_id: str | None, records: Sequence[WorkRecord]) -> bool:
    """Whether arXiv's own record of the paper is among the records."""
    return any(r.source is SourceName.ARXIV and r.arxiv_id == arxiv_id for r in records)


def version_titles(arxiv_id: str, records: Sequence[WorkRecord]) -> dict[int, str]:
    """Version number -> title, from the arXiv records of this paper."""
    out: dict[int, str] = {}
    for r in records:
        if r.source is SourceName.ARXIV and r.arxiv_id == arxiv_id and r.arxiv_version and r.title:
            out.setdefault(r.arxiv_version, r.title)
    return out


def _unfetched(known: dict[int, str]) -> list[int]:
    return [v for v in range(1, max(known, default=1)) if v not in known]


def versions_to_fetch(arxiv_id: str, records: Sequence[WorkRecord]) -> list[int]:
    """The earlier versions of the paper whose titles are not among the records yet."""
    return _unfetched(version_titles(arxiv_id, records))


def version_title_evidence(
    cited_title: str | None, arxiv_id: str | None, records: Sequence[WorkRecord]
) -> bool | None:
    """Whether a version of the cited arXiv paper carried the cited title (see module doc)."""
    if not cited_title or not arxiv_id:
        return None
    known = version_titles(arxiv_id, records)
    if not known:
        return None
    # The cited title is a version's own, up to case, accents and punctuation: a near miss of every
    # version (one word changed) is what a fabricated title looks like, not a version.
    cited = normalize_title(cited_title)
    if any(normalize_title(t) == cited for t in known.values()):
        return True
    return None if _unfetched(known) else False
