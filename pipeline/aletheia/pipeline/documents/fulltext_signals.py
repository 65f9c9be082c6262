"""Paper-mill signals from a cited work's full text (issue 13), where the pipeline already has it:
the text `fulltext.fetch_paper_text` fetched for quoted excerpts and claims (arXiv HTML, Europe
PMC, PDF) goes through `aletheia.core.paper_mill` with the source's title and abstract, and the
venue through the predatory list. No request is made here; a signal never changes a result.
"""

from __future__ import annotations

from typing import Any

from aletheia.core.excerpts import PaperText
from aletheia.core.paper_mill import ai_generated_signal, work_text_of_paper
from aletheia.core.records import WorkRecord
from aletheia.core.signals import predatory_signals

__all__ = ["cited_text_signals"]


def cited_text_signals(record: WorkRecord, paper: PaperText | None) -> list[dict[str, Any]]:
    """`ai_generated_suspect` of the cited work `record` whose text is `paper`, as JSON (empty:
    it did not fire)."""
    from aletheia.pipeline.predatory import active_predatory_list

    if paper is None:
        return []
    listed = predatory_signals([record], active_predatory_list())
    text = work_text_of_paper(paper, title=record.title, abstract=record.abstract)
    suspect = ai_generated_signal(text, listed_venue=listed[0].source if listed else None)
    return [suspect.model_dump(mode="json")] if suspect is not None else []
