"""DBLP and the ACL Anthology as the gateway asks them (issue 12): clients built once per gateway,
and the calls the evidence gatherer records.

- The ACL Anthology is asked only for an anthology id the citation gives (an aclanthology.org or
  aclweb.org/anthology URL: `core.acl_ids.cited_acl_id`), before any search. The id is an
  identifier like a DOI (`QueryKind.ACL`): it resolves to the cited paper (`acl_id_resolved`),
  to another paper (`acl_id_points_elsewhere`), or to none (`acl_id_not_found`; the anthology is
  the registry of its own ids, so this counts as an identifier that resolves nowhere).
- DBLP is a search source for computer-science references (`core.cs_scope`, part of
  `core.coverage.search_coverage`). It is the slowest source (one request every two seconds), so
  it is asked late, only when OpenAlex and Semantic Scholar (and, with Crossref asked last turned
  off, Crossref) did not find the work; there it finds the CS proceedings papers they lack, and
  its "no hit" is one more answer a `not_found` needs, proved a few titles a request where it
  can be (`sources.dblp_titles`, issue 23). Its record by key is fetched once more only to settle a venue
  the other sources left in doubt, under a DBLP key of the cited venue (`core.dblp_venue`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aletheia.core.records import SourceName
from aletheia.pipeline.evidence.gateway_parts import searchable
from aletheia.sources.acl_anthology import AclAnthologyClient
from aletheia.sources.dblp import DblpClient
from aletheia.sources.registry import client_of

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from aletheia.sources.registry import SourceClient

    Lookup = Callable[[], Awaitable[Any]]


class CsSources:
    """The DBLP and ACL Anthology clients of one gateway."""

    def __init__(self, clients: Mapping[str, SourceClient]) -> None:
        """DBLP's and the ACL Anthology's clients among the gateway's (`sources/registry.py`)."""
        self.dblp = client_of(clients, SourceName.DBLP, DblpClient)
        self.acl_anthology = client_of(clients, SourceName.ACL_ANTHOLOGY, AclAnthologyClient)

    def dblp_search(self, title: str) -> Lookup:
        """DBLP's title search; a title with no searchable word is a failed answer for DBLP."""
        return searchable(SourceName.DBLP, lambda: self.dblp.search(title))

    def dblp_record(self, key: str) -> Lookup:
        """DBLP's record by key (`/rec/{key}.xml`), to confirm a cited venue (`core.dblp_venue`)."""
        return lambda: self.dblp.by_key(key)

    def acl_lookup(self, anthology_id: str) -> Lookup:
        return lambda: self.acl_anthology.by_id(anthology_id)
