"""When a 404 means "the source has no such work", and when it means "this is not the source".

A 404 from a route the source does not have (the base URL points at another server, or at the
simulator without its `/crossref` prefix) used to read as "no such work": every lookup then said
"not found", every search "nothing", and a real work came out `fabricated` with a report saying
every source answered (issue 20). Now a 404 is an answer only in the shape the source documents
for it, for the kinds of request that document one (each source's record says which and what
body: `core.source_facts.SourceFacts.not_found`); any other 404 is a failed request
(`PoliteTransport` raises `PermanentSourceError`), so the reference stays `unverifiable` and the
source is named as not answering.

The shapes, from real recordings where there are some (../shared/data/api-samples):

- Crossref `/works/{doi}` and `/journals/{issn}`: HTTP 404 with the plain body "Resource not
  found." (habanero's recorded sessions, `test-journals__test_journals_bad_id_warn`); its searches
  and list queries answer 200 with an empty list, never 404 (the venue registry, which asks
  `/journals?query=` with the same `venue` kind, treats a 404 there as a failure itself).
- OpenAlex `/works/{id}`: HTTP 404 with a JSON object `{"error": "404 Not Found", "message": ...}`;
  searches and filters answer 200.
- Semantic Scholar `/paper/{id}` and `/paper/search/match`: HTTP 404 with `{"error": "Paper with
  id ... not found"}` / `{"error": "Title match not found"}` (semanticscholar's recorded
  `test_not_found.yaml`); a gateway's unknown route answers `{"message": ...}` instead.
- arXiv's API, PubMed's E-utilities, Europe PMC's search, DBLP's search and the web-search APIs
  answer 200 even when they find nothing: a 404 from them is always a wrong route.
- DBLP `/rec/{key}.xml`, the ACL Anthology `/{id}.bib`, the book catalogues, Perseus and CCEL
  answer an unknown key with a 404 page whose body no recording pins down: any 404 counts. A book
  catalogue's or a canonical text's silence accuses nobody anyway (docs/verdicts.md).
- Full text (`kind="fulltext"`: arXiv HTML and PDF, Europe PMC's JATS): a 404 is "no full text
  here" from whoever says it; it never decides a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from aletheia.core.source_facts import NotFound, facts_of

if TYPE_CHECKING:
    import httpx

    from aletheia.sources.base import RequestKind


def _json_error(response: httpx.Response) -> bool:
    """A JSON object with an `error` member (OpenAlex, Semantic Scholar)."""
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("error"), str)


# A record's documented 404 body -> whether a response has it.
_BODIES: Final[dict[str, Callable[[NotFound, httpx.Response], bool]]] = {
    "any": lambda _rule, _response: True,
    "json_error": lambda _rule, response: _json_error(response),
    "text": lambda rule, response: response.text.strip() == rule.text,
}


def documented_not_found(source: str, kind: RequestKind, response: httpx.Response) -> bool:
    """Whether this 404 is the source's own "no such record" (else: a route it does not have).
    Full text is always so; a source whose record documents no 404 keeps the plain rule (any 404
    is an answer)."""
    if kind == "fulltext":
        return True
    facts = facts_of(source)
    rule = facts.not_found if facts is not None else None
    if rule is None:
        return True
    return kind in rule.kinds and _BODIES[rule.body](rule, response)
