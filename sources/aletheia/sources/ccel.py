"""CCEL, the Christian Classics Ethereal Library (Tier 3): one section page of a work.

`{base}{path}`, the path from the table of canonical works (`core/data/canonical_works.json`,
e.g. `/ccel/augustine/confess.x.xxvii.html` for Confessions 10.27); 404 is "no such section".
One request per second by default (`ALETHEIA_CCEL_LIMITS`); none is documented. Pure parser:
`canonical_parse`.
"""

from __future__ import annotations

from typing import Final

from aletheia.core.records import SourceName
from aletheia.sources.base import SourceRecord
from aletheia.sources.cache import cache_key
from aletheia.sources.canonical_parse import parse_ccel_page
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.transport.factory import contact_headers, source_transport

SOURCE: Final = SourceName.CCEL


class CcelClient(SourceClientBase):
    source = SOURCE

    async def page(self, path: str) -> SourceRecord | None:
        """The text of the section page at `path` (starting with `/`), or None when there is none."""
        if not path.startswith("/") or ".." in path or "?" in path or "#" in path:
            raise ValueError(f"not a CCEL path: {path!r}")
        url = self._url(path)
        return await self._record(
            cache_key("ccel", path),
            fetch=lambda: self.transport.get_text(path, kind="single"),
            parse=lambda raw: parse_ccel_page(str(raw), path=path, url=url),
            url=url,
        )


ccel_transport: Final = source_transport(SOURCE, headers=contact_headers)
