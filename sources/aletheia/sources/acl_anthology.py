"""The ACL Anthology: NLP papers by anthology id (`2023.acl-long.123`, `P19-1001`).

Endpoint (`{ALETHEIA_ACL_ANTHOLOGY_URL}`, default https://aclanthology.org): `/{id}.bib`, the
BibTeX export every paper page links to ("Cite" -> BibTeX); a 404 means no such paper. The
anthology is a static site with no search API, so it is asked only for an id the citation gives
(an aclanthology.org / aclweb.org URL: `core.acl_ids`), never searched. It documents no rate
limit: one request per second, one at a time (`ALETHEIA_ACL_ANTHOLOGY_LIMITS`), as a courtesy.
Answers are cached by id, negative ones too. The pure parser is in `acl_anthology_parse`.
"""

from __future__ import annotations

from typing import Any, Final

from aletheia.core.acl_ids import clean_acl_id
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.acl_anthology_parse import parse_acl_bibtex
from aletheia.sources.base import SourceParseError, SourceRecord
from aletheia.sources.cache import cache_key
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.transport.factory import contact_headers, source_transport

__all__ = ["AclAnthologyClient", "acl_anthology_transport", "parse_acl_bibtex"]

SOURCE: Final = SourceName.ACL_ANTHOLOGY


class AclAnthologyClient(SourceClientBase):
    """Papers of the ACL Anthology by id."""

    source = SOURCE

    async def by_id(self, anthology_id: str) -> SourceRecord | None:
        """The paper an anthology id names, or None when the anthology has none (cached either
        way). ValueError when `anthology_id` is not an anthology id."""
        ident = clean_acl_id(anthology_id)
        if ident is None:
            raise ValueError(f"not an ACL Anthology id: {anthology_id!r}")
        path = f"/{ident}.bib"

        def parse(raw: Any) -> WorkRecord:
            if not isinstance(raw, str):
                raise SourceParseError(SOURCE.value, "an ACL Anthology record is BibTeX text")
            return parse_acl_bibtex(raw, ident)

        return await self._record(
            cache_key("acl", ident),
            fetch=lambda: self.transport.get_text(path, kind="single"),
            parse=parse,
            url=self._url(path),
        )


# The polite transport to the ACL Anthology, from settings, naming a contact.
acl_anthology_transport: Final = source_transport(SOURCE, headers=contact_headers)
