"""Semantic Scholar's papers dataset (the Datasets API, `/datasets/v1/release/{id}/dataset/papers`:
gzip-compressed JSON Lines, one paper a line, files handed out to API-key holders, ODC-BY). A line
holds the paper's metadata under lower-case keys: `corpusid`, `externalids` (`DOI`, `ArXiv`,
`DBLP`, `PubMed`, `PubMedCentral`, `MAG`, `ACL`, `CorpusId`), `url` (which ends in the paperId the
Graph API keys papers by), `title`, `authors` (`authorId`, `name`), `venue`,
`publicationvenueid`, `year`, `publicationdate`, `journal` (`name`, `volume`, `pages`),
`publicationtypes`, `isopenaccess` and the counts. Abstracts and the venues' details are other
datasets, not loaded: the mirror answers absence from it, and a paper it holds near a title is
read from the API, where it comes with them (`pipeline/evidence/mirror_tier.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.records import SourceName
from aletheia.sources.dumps.json_lines import JsonLinesReader

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


class S2PapersDumpReader(JsonLinesReader):
    source = SourceName.SEMANTIC_SCHOLAR.value
    kind = "a Semantic Scholar paper (an object with an integer `corpusid`)"

    @staticmethod
    def is_record(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and isinstance(value.get("corpusid"), int)
            and not isinstance(value.get("corpusid"), bool)
        )


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
