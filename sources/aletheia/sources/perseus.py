"""Perseus (Tier 3, Greek and Latin texts) through its Canonical Text Services API.

`{base}/api/cts?request=GetPassage&urn={urn}:{passage}` (the CTS protocol's GetPassage; Perseus'
Scaife CTS endpoint by default, `ALETHEIA_PERSEUS_URL`). A CTS error naming an invalid URN or
passage, or a 404, is "no such passage": an answer, cached as one. One request per second by
default (`ALETHEIA_PERSEUS_LIMITS`); none is documented. Pure parser: `canonical_parse`.
"""

from __future__ import annotations

from typing import Final

from aletheia.core.records import SourceName
from aletheia.sources.base import SourceRecord
from aletheia.sources.cache import cache_key
from aletheia.sources.canonical_parse import parse_cts_passage
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.transport.factory import contact_headers, source_transport

SOURCE: Final = SourceName.PERSEUS
CTS_PATH: Final = "/api/cts"


class PerseusClient(SourceClientBase):
    source = SOURCE

    async def passage(self, urn: str) -> SourceRecord | None:
        """The passage a CTS URN names (`urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1`), or None."""
        if not urn.startswith("urn:cts:"):
            raise ValueError(f"not a CTS URN: {urn!r}")
        url = self._url(f"{CTS_PATH}?request=GetPassage&urn={urn}")
        params = {"request": "GetPassage", "urn": urn}
        return await self._record(
            cache_key("cts", urn),
            fetch=lambda: self.transport.get_text(CTS_PATH, params=params, kind="single"),
            parse=lambda raw: parse_cts_passage(str(raw), url=url),
            url=url,
        )


perseus_transport: Final = source_transport(SOURCE, headers=contact_headers)
