"""The one corrected record of a reference, which every exported bibliography renders (issue 30:
the BibTeX and CSL-JSON of one run disagreed: a verified Adam, ICLR 2015, was 2015 in BibTeX and
`issued 2014` in CSL, because CSL copied the matched arXiv record over the cited values; an
`identifier_conflict` entry got the corrected DOI in BibTeX and kept the wrong one in CSL).

Two layers, the same for every format:
- `matched_values`: for a reference read from a string (a Markdown or plain list, whose fields
  are the parser's reading of a line) whose work the sources found (`verified`,
  `metadata_error`), the matched record's title, authors and DOI, and its year, venue and arXiv
  id where the line gave none. A BibTeX or CSL-JSON entry keeps what its author wrote.
- `corrections`: the values `decide()` found wrong and put right (`Verdict.corrected`), for every
  verdict. A year the decision accepted is never replaced by a record's (a conference paper is
  not re-dated to its preprint).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

# The verdicts whose matched record is the cited work.
FOUND: Final = frozenset({"verified", "metadata_error"})
# The fields of a corrected record: the REFERENCE object's names (`match`, `corrected`).
RECORD_FIELDS: Final = ("title", "authors", "year", "doi", "venue", "arxiv_id")


def _present(value: Any) -> bool:
    return value not in (None, "", [])


def matched_values(ref: Mapping[str, Any]) -> dict[str, Any]:
    """A reference read from a string, found: the matched record's values it is rebuilt from."""
    cited = ref.get("input") or {}
    match = ref.get("match")
    if cited.get("raw") is None or not match or ref.get("verdict") not in FOUND:
        return {}
    values = {name: match[name] for name in ("title", "authors", "doi") if _present(match.get(name))}
    for name in ("year", "venue", "arxiv_id"):
        if not _present(cited.get(name)) and _present(match.get(name)):
            values[name] = match[name]
    return values


def corrections(ref: Mapping[str, Any]) -> dict[str, Any]:
    """The values the decision put right, by the REFERENCE object's field names. An author list
    is the source's, each author as fully as either side names them (a cited middle initial the
    source leaves out is kept, as `aletheia fix` keeps it: `core.bib_fix.with_cited_detail`)."""
    out = {name: value for name, value in (ref.get("corrected") or {}).items() if _present(value)}
    cited = ((ref.get("fields") or {}).get("authors") or {}).get("cited")
    if isinstance(out.get("authors"), list) and isinstance(cited, list):
        from aletheia.core.authors import parse_name
        from aletheia.core.bib_fix import with_cited_detail

        found = [parse_name(str(name)) for name in out["authors"]]
        out["authors"] = [a.display for a in with_cited_detail(found, [parse_name(str(n)) for n in cited])]
    return out


def corrected_values(ref: Mapping[str, Any]) -> dict[str, Any]:
    """Every value of the corrected record that replaces (or fills in) a cited one."""
    return {**matched_values(ref), **corrections(ref)}
