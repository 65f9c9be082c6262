"""An ORCID iD as the sources write it (Crossref's `ORCID`, OpenAlex's `orcid`: a URL; PubMed's
`<Identifier Source="ORCID">`: a URL or the bare iD): `NNNN-NNNN-NNNN-NNNC`, upper-case check
character. The parsers keep what the source gave; `core.orcid.clean_orcid` checks the check
character where iDs are compared.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["orcid_in"]

_ORCID: Final = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dXx])")


def orcid_in(value: Any) -> str | None:
    """The ORCID iD in `value`, or None when it is no text or holds none."""
    if not isinstance(value, str):
        return None
    match = _ORCID.search(value)
    return match.group(1).upper() if match else None
