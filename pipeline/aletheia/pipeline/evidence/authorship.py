"""The authorship question of the paper-mill heuristics (issue 13): do the matched work's authors
have other works? Asked of OpenAlex's author records (`OpenAlexClient.authors`, one batched
request for the whole author set, through the client's limiter and cache), and only when another
indicator already fired for the work (a tortured phrase, a listed venue): a genuine reference
costs no request.

The answer is kept in the reference's evidence (`Evidence.authorship`), so the writer of a queued
job and `aletheia replay` read it from the stored row; a source failure leaves it absent (no
evidence, no indicator), never a verdict change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aletheia.core.authorship import AuthorshipCheck, AuthorWorks
from aletheia.core.evidence import Evidence
from aletheia.core.matched_work import matched_records, work_text
from aletheia.core.paper_mill import other_indicators
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.signals import predatory_signals
from aletheia.core.verdicts import Verdict
from aletheia.pipeline.predatory import active_predatory_list
from aletheia.sources.base import SourceError

if TYPE_CHECKING:
    from aletheia.core.signals import PredatoryList

logger = logging.getLogger(__name__)

__all__ = ["author_ids", "needs_authorship", "with_authorship"]


@dataclass(frozen=True)
class _Decided:
    verdict: Verdict
    evidence: Evidence


def author_ids(records: list[WorkRecord]) -> tuple[str, ...]:
    """The OpenAlex author ids of the work, from the first OpenAlex record that has them."""
    for record in records:
        if record.source is SourceName.OPENALEX:
            ids = tuple(dict.fromkeys(a.source_id for a in record.authors if a.source_id))
            if ids:
                return ids
    return ()


def needs_authorship(verdict: Verdict, evidence: Evidence, predatory: PredatoryList | None = None) -> bool:
    """True when another paper-mill indicator fired for the matched work (so its authors are
    worth one request)."""
    records = matched_records(_Decided(verdict, evidence))
    if not records:
        return False
    listed = predatory_signals(records, predatory if predatory is not None else active_predatory_list())
    return bool(other_indicators(work_text(records), listed_venue=listed[0].source if listed else None))


async def with_authorship(
    verdict: Verdict, evidence: Evidence, gateway: Any, predatory: PredatoryList | None = None
) -> Evidence:
    """`evidence` with `authorship` filled in when it is worth asking and OpenAlex answers;
    `evidence` unchanged otherwise (also on a source failure: no evidence, no indicator)."""
    openalex = getattr(gateway, "openalex", None)
    if (
        openalex is None
        or evidence.authorship is not None
        or not needs_authorship(verdict, evidence, predatory)
    ):
        return evidence
    ids = author_ids(matched_records(_Decided(verdict, evidence)))
    if not ids:
        return evidence
    try:
        answers: dict[str, AuthorWorks | None] = await openalex.authors(ids)
    except SourceError as exc:
        logger.info("authorship not asked: %s", exc)
        return evidence
    check = AuthorshipCheck(
        source=SourceName.OPENALEX.value,
        asked=ids,
        found=tuple(a for a in (answers.get(i) for i in ids) if a is not None),
    )
    return evidence.model_copy(update={"authorship": check})
