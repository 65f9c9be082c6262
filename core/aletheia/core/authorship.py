"""Whether a cited work's authors have other works: the `authorship_not_found_elsewhere`
indicator of the paper-mill heuristics (`aletheia.core.paper_mill`).

The evidence is an index's author records (OpenAlex `/authors`, `works_count`), asked for the
authors of one work. Only a complete answer counts: every author asked was found and none has more
than `MAX_WORKS_UNKNOWN_AUTHOR` works (this one). An author the index did not return, or no author
ids at all, is no evidence either way.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict

__all__ = ["MAX_WORKS_UNKNOWN_AUTHOR", "AuthorWorks", "AuthorshipCheck"]

MAX_WORKS_UNKNOWN_AUTHOR: Final = 1  # the work itself: an author with no other work in the index


class AuthorWorks(BaseModel):
    """One author as an index counts them: its id there, its name, how many works it lists."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str | None = None
    works_count: int


class AuthorshipCheck(BaseModel):
    """The authors asked about (ids in the index, in byline order) and those the index returned."""

    model_config = ConfigDict(frozen=True)

    source: str
    asked: tuple[str, ...]
    found: tuple[AuthorWorks, ...] = ()

    def found_elsewhere(self) -> bool | None:
        """False when every asked author was found with at most one work; True when one has
        more; None (no evidence) when nobody was asked or an author is missing from the answer."""
        by_id = {a.id: a for a in self.found}
        if not self.asked or any(i not in by_id for i in self.asked):
            return None
        return any(by_id[i].works_count > MAX_WORKS_UNKNOWN_AUTHOR for i in self.asked)

    def as_evidence(self) -> list[dict[str, Any]]:
        by_id = {a.id: a for a in self.found}
        return [
            {"id": i, "name": by_id[i].name, "works_count": by_id[i].works_count, "source": self.source}
            for i in self.asked
            if i in by_id
        ]
