"""Semantic Scholar's papers dataset lines in the Graph API's spelling, for `parse_s2_paper`: the
dataset writes its keys in lower case (`corpusid`, `externalids`, `publicationdate`, ...) and
carries the paperId only at the end of the paper's `url`. Kept apart from the reader
(`s2_dump`): the parser entry point (`common.parse_payload`) needs this and nothing of the reader."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

# The dataset's keys that the Graph API spells in camel case (the rest are the same word).
_GRAPH_KEYS: Final = {
    "corpusid": "corpusId",
    "externalids": "externalIds",
    "publicationvenueid": "publicationVenueId",
    "publicationdate": "publicationDate",
    "publicationtypes": "publicationTypes",
    "referencecount": "referenceCount",
    "citationcount": "citationCount",
    "influentialcitationcount": "influentialCitationCount",
    "isopenaccess": "isOpenAccess",
    "s2fieldsofstudy": "s2FieldsOfStudy",
}


def graph_paper(line: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset paper in the Graph API's shape (`parse_s2_paper` reads it): the keys in camel
    case, `paperId` from the paper's `url`, `CorpusId` among the external ids."""
    paper = {_GRAPH_KEYS.get(key, key): value for key, value in line.items()}
    url = line.get("url")
    paper["paperId"] = url.rstrip("/").rsplit("/", 1)[-1] if isinstance(url, str) and url else None
    external = dict(line.get("externalids") or {})
    external.setdefault("CorpusId", line.get("corpusid"))
    paper["externalIds"] = external
    return paper
