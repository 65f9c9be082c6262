"""The corrected BibTeX bibliography (`--format bibtex`), and the corrected entry of one reference
(the suggested fix the other formats show)."""

from __future__ import annotations

from typing import Any, ClassVar, TextIO

from aletheia.core.bibtex_value import bibtex_escape
from aletheia.core.records import Author
from aletheia.pipeline.reports.corrected import corrections, matched_values
from aletheia.pipeline.reports.entry import citation_key, entry_type_of
from aletheia.pipeline.reports.fields import shorten

NOT_VERIFIED = ("not_found", "fabricated", "identifier_conflict", "retracted", "unverifiable", "ambiguous")


def _authors_bibtex(names: list[str]) -> str:
    from aletheia.core.authors import parse_name

    parts = []
    for name in names:
        a: Author = parse_name(name)
        if a.literal:
            parts.append("{" + a.literal + "}")
        elif a.family and a.given:
            parts.append(f"{a.family}, {a.given}")
        else:
            parts.append(a.family or name)
    return " and ".join(parts)


FIELD_FOR: dict[str, str | None] = {
    "title": "title",
    "year": "year",
    "doi": "doi",
    "venue": None,
    "authors": "author",
    "arxiv_id": "eprint",
}
# The fields of a reference read from a string, as BibTeX names them (`venue` by entry type;
# `pmid` has no BibTeX field and goes into `note`): a corrected entry holds standard fields only.
PLAIN_FIELDS: dict[str, str] = {
    "title": "title",
    "author": "author",
    "year": "year",
    "doi": "doi",
    "url": "url",
}


def _venue_field(entry_type: str) -> str:
    return {"inproceedings": "booktitle", "article": "journal"}.get(entry_type, "howpublished")


def _plain_fields(obj: dict[str, Any], entry_type: str) -> dict[str, str]:
    """A plain reference's fields as standard BibTeX, rebuilt from the matched record when the work
    was found (`corrected.matched_values`: title, authors, DOI; the cited year and venue kept)."""
    cited = obj["input"]
    fields = {PLAIN_FIELDS[k]: bibtex_escape(str(v)) for k, v in cited.items() if k in PLAIN_FIELDS and v}
    matched = matched_values(obj)  # the record every export rebuilds it from (`corrected.py`)
    for name in ("title", "year", "doi"):
        if name in matched:
            fields[name] = bibtex_escape(str(matched[name]))
    if "authors" in matched:
        fields["author"] = _authors_bibtex(matched["authors"])
    venue = cited.get("venue") or matched.get("venue")
    if venue:
        fields[_venue_field(entry_type)] = bibtex_escape(str(venue))
    arxiv = cited.get("arxiv_id") or matched.get("arxiv_id")
    if arxiv:
        fields["eprint"], fields["archiveprefix"] = bibtex_escape(str(arxiv)), "arXiv"
    if cited.get("pmid"):
        fields["note"] = f"PMID: {bibtex_escape(str(cited['pmid']))}"
    return fields


def corrected_entry(obj: dict[str, Any], *, key: str | None = None) -> tuple[list[str], str, int]:
    """(comment lines listing every change, the entry with the sources' values, number of changes).

    BibTeX inputs keep their fields exactly as written (LaTeX included); a reference read from a
    string becomes an entry of standard fields under an author-year key (`report_entry`), its
    values plain text, escaped. A change line is written only for a value that changes."""
    raw_text = obj["input"].get("raw")
    entry_type = entry_type_of(obj)
    if raw_text is None:
        fields = {k: str(v) for k, v in obj["input"].items()}
    else:
        fields = _plain_fields(obj, entry_type)
    lines = [f"% aletheia: {obj['verdict']}" + (f" ({obj['severity']})" if obj.get("severity") else "")]
    changes = 0
    if raw_text is not None and matched_values(obj):
        original = shorten(" ".join(raw_text.split()), 200)
        lines.append("% aletheia: entry built from the matched record; original: " + original)
    for name, value in corrections(obj).items():
        target = FIELD_FOR.get(name, name)
        if name == "venue":
            target = "booktitle" if "booktitle" in fields else "journal"
        if target is None:
            continue
        new = _authors_bibtex(value) if name == "authors" else bibtex_escape(str(value))
        old = fields.get(target)
        if old == new:
            continue  # already the sources' value (a plain reference built from the match)
        source = ((obj.get("fields") or {}).get(name) or {}).get("source")
        lines.append(f"% aletheia: {target} changed from {old!r} to {new!r} (source: {source})")
        fields[target] = new
        changes += 1
    if obj["verdict"] in NOT_VERIFIED:
        lines.append(f"% aletheia: NOT VERIFIED — reasons: {', '.join(obj['reasons'])}")
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return lines, f"@{entry_type}{{{key or citation_key(obj)},\n{body}\n}}\n", changes


class BibtexSink:
    """The corrected bibliography: verified values replace wrong ones, every change is listed in a
    comment above its entry, and no entry is ever dropped."""

    FIELD_FOR: ClassVar[dict[str, str | None]] = FIELD_FOR

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.changes = 0
        self.keys: set[str] = set()  # author-year keys given so far (`vaswani2017`, `vaswani2017a`)

    def reference(self, obj: dict[str, Any]) -> None:
        lines, entry, changes = corrected_entry(obj, key=citation_key(obj, self.keys))
        self.changes += changes
        self.out.write("\n".join(lines) + "\n" + entry + "\n")

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(
            f"% aletheia: {obj['total']} entries, {self.changes} field changes, "
            f"logic {obj['logic_version']}\n"
        )
