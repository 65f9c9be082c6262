"""Semantic Scholar's papers dataset (the Datasets API, `/datasets/v1/release/{id}/dataset/papers`:
gzip-compressed JSON Lines, one paper a line, files handed out to API-key holders, ODC-BY). A line
holds the paper's metadata under lower-case keys: `corpusid`, `externalids` (`DOI`, `ArXiv`,
`DBLP`, `PubMed`, `PubMedCentral`, `MAG`, `ACL`, `CorpusId`), `url` (which ends in the paperId the
Graph API keys papers by), `title`, `authors` (`authorId`, `name`), `venue`,
`publicationvenueid`, `year`, `publicationdate`, `journal` (`name`, `volume`, `pages`),
`publicationtypes`, `isopenaccess` and the counts. Abstracts and the venues' details are other
datasets, not loaded: the mirror answers absence from it, and a paper it holds near a title is
read from the API, where it comes with them (`pipeline/evidence/mirror_tier.py`). The lines are
parsed as the Graph API's papers (`s2_lines.graph_paper`)."""

from __future__ import annotations

from typing import Any

from aletheia.core.records import SourceName
from aletheia.sources.dumps.json_lines import JsonLinesReader


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
