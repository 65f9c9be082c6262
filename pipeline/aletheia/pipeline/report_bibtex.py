"""The corrected BibTeX bibliography (`--format bibtex`), and the corrected entry of one reference
(the suggested fix the other formats show)."""

from __future__ import annotations

from typing import Any, ClassVar, TextIO

from aletheia.core.records import Author
from aletheia.core.render import bibtex_escape

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


def corrected_entry(obj: dict[str, Any]) -> tuple[list[str], str, int]:
    """(comment lines listing every change, the entry with the sources' values, number of changes).

    BibTeX inputs keep their fields exactly as written (LaTeX included); fields read from a plain
    reference string, and every value from a source, are plain text and are escaped."""
    raw_text = obj["input"].get("raw")
    fields = {
        k: (bibtex_escape(str(v)) if raw_text is not None else str(v))
        for k, v in obj["input"].items()
        if k != "raw"
    }
    entry_type = obj.get("entry_type") or "misc"
    lines = [f"% aletheia: {obj['verdict']}" + (f" ({obj['severity']})" if obj.get("severity") else "")]
    changes = 0
    match = obj.get("match")
    if raw_text is not None and match and obj["verdict"] in ("verified", "metadata_error"):
        fields["title"] = bibtex_escape(match["title"] or "")
        fields["author"] = _authors_bibtex(match["authors"])
        fields["year"] = str(match["year"] or "")
        if match.get("doi"):
            fields["doi"] = bibtex_escape(match["doi"])
        lines.append("% aletheia: entry built from the matched record; original: " + raw_text[:200])
    for name, value in (obj.get("corrected") or {}).items():
        if value in (None, "", []):
            continue
        target = FIELD_FOR.get(name, name)
        if name == "venue":
            target = "booktitle" if "booktitle" in fields else "journal"
        if target is None:
            continue
        new = _authors_bibtex(value) if name == "authors" else bibtex_escape(str(value))
        old = fields.get(target)
        source = ((obj.get("fields") or {}).get(name) or {}).get("source")
        lines.append(f"% aletheia: {target} changed from {old!r} to {new!r} (source: {source})")
        fields[target] = new
        changes += 1
    if obj["verdict"] in NOT_VERIFIED:
        lines.append(f"% aletheia: NOT VERIFIED — reasons: {', '.join(obj['reasons'])}")
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return lines, f"@{entry_type}{{{obj['key']},\n{body}\n}}\n", changes


class BibtexSink:
    """The corrected bibliography: verified values replace wrong ones, every change is listed in a
    comment above its entry, and no entry is ever dropped."""

    FIELD_FOR: ClassVar[dict[str, str | None]] = FIELD_FOR

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.changes = 0

    def reference(self, obj: dict[str, Any]) -> None:
        lines, entry, changes = corrected_entry(obj)
        self.changes += changes
        self.out.write("\n".join(lines) + "\n" + entry + "\n")

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(
            f"% aletheia: {obj['total']} entries, {self.changes} field changes, "
            f"logic {obj['logic_version']}\n"
        )
