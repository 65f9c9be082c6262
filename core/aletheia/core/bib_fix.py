"""`aletheia fix`'s decisions: which values of a BibTeX file the sources contradict, the edits that
replace them, and the marks on references that could not be verified. Pure (the verdicts come in).

Precision first, as everywhere: a value is replaced only when the verdict found the work
(`verified` or `metadata_error`, with a match), the field's evidence disagrees (`agrees is False`)
and `decide()` proposed a correction for it (`Verdict.corrected`, which for an author list needs a
major disagreement). Ambiguous, unverifiable, not-found and every other verdict change nothing;
their entries get a `% aletheia:` comment line above them, so no reference is silently kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from aletheia.core.author_match import authors_match, given_names_compatible
from aletheia.core.authors import parse_name
from aletheia.core.bibliography import InputProblem
from aletheia.core.bibtex_edit import (
    Edit,
    EntrySpan,
    apply_edits,
    insert_before_line,
    render_value,
    scan_entries,
)
from aletheia.core.bibtex_value import bibtex_escape
from aletheia.core.records import Author, CitedReference, WorkRecord
from aletheia.core.render import bibtex_name
from aletheia.core.text import fold_name
from aletheia.core.verdicts import Verdict, VerdictStatus

# The fields `fix` may replace: the verdict's field name -> the BibTeX field.
FIXABLE: Final = {"title": "title", "authors": "author", "year": "year"}
FIXED_STATUSES: Final = frozenset({VerdictStatus.VERIFIED, VerdictStatus.METADATA_ERROR})
MARK: Final = "aletheia:"
_LINE = re.compile(r":(\d+)$")


@dataclass(frozen=True)
class FieldChange:
    key: str
    line: int
    field: str  # the BibTeX field
    cited: Any
    new: Any  # the source's value (plain text, or the list of author names)
    written: str  # the value as written into the file
    source: str | None
    similarity: float | None
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class EntryMark:
    key: str
    line: int
    verdict: str
    reasons: tuple[str, ...]
    comment: str


@dataclass(frozen=True)
class NotApplied:
    key: str
    line: int
    field: str
    why: str


@dataclass
class FixPlan:
    text: str
    changes: list[FieldChange] = field(default_factory=list)
    marks: list[EntryMark] = field(default_factory=list)
    not_applied: list[NotApplied] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    references: int = 0
    verified_unchanged: int = 0

    def fixed_text(self) -> str:
        return apply_edits(self.text, self.edits)

    def as_json(self) -> dict[str, Any]:
        return {
            "references": self.references,
            "verified_unchanged": self.verified_unchanged,
            "changes": [asdict(c) for c in self.changes],
            "marked": [asdict(m) for m in self.marks],
            "not_applied": [asdict(n) for n in self.not_applied],
            "exit_code": self.exit_code(),
        }

    def exit_code(self) -> int:
        """0 nothing to fix or mark; 1 values replaced or a reference marked as flagged; 3 only
        marks for references that could not be checked (unverifiable, ambiguous, out of scope)."""
        doubtful = {
            VerdictStatus.UNVERIFIABLE.value,
            VerdictStatus.AMBIGUOUS.value,
            VerdictStatus.OUT_OF_SCOPE.value,
        }
        if self.changes or any(m.verdict not in doubtful for m in self.marks):
            return 1
        return 3 if self.marks else 0


def _entry_for(
    cited: CitedReference, by_line: dict[int, EntrySpan], by_key: dict[str, list[EntrySpan]]
) -> EntrySpan | None:
    found = _LINE.search(cited.origin or "")
    if found and int(found.group(1)) in by_line and by_line[int(found.group(1))].key == cited.key:
        return by_line[int(found.group(1))]
    same = by_key.get(cited.key, [])
    return same[0] if len(same) == 1 else None


def _authors_from(verdict: Verdict, names: Sequence[str], source: str | None) -> list[Author]:
    """The source's own Author records for `names` (given and family kept apart), else parsed."""
    for record in (verdict.match, verdict.secondary):
        if (
            isinstance(record, WorkRecord)
            and (source is None or record.source.value == source)
            and [a.display for a in record.authors] == list(names)
        ):
            return list(record.authors)
    return [parse_name(n) for n in names]


def _given_words(given: str | None) -> list[str]:
    return [fold_name(w) for w in re.split(r"[\s.]+", given or "") if w.strip("-")]


def _names_more(fuller: str | None, other: str | None) -> bool:
    """`fuller` names the same given names as `other` and more of them, or spells out what
    `other` gives as initials ("Christopher D." over "Christopher", "Prabhakar" over "P.")."""
    long, short = _given_words(fuller), _given_words(other)
    if (len(long), sum(map(len, long))) <= (len(short), sum(map(len, short))):  # not more words, nor longer
        return False
    return all(a == b or (len(b) == 1 and a.startswith(b)) for a, b in zip(long, short, strict=False))


def with_cited_detail(found: Sequence[Author], cited: Sequence[Author]) -> list[Author]:
    """The source's author list, each author given as fully as either side names them (issue 30:
    putting the authors in the source's order dropped a cited middle initial the source leaves
    out, "Manning, Christopher D." -> "Manning, Christopher")."""
    out: list[Author] = []
    taken: set[int] = set()

    def same_person(index: int, author: Author) -> bool:
        other = cited[index]
        return authors_match(other, author) and given_names_compatible(other.given, author.given)

    for author in found:
        same = next((i for i in range(len(cited)) if i not in taken and same_person(i, author)), None)
        if same is not None:
            taken.add(same)
            if _names_more(cited[same].given, author.given):
                author = author.model_copy(update={"given": cited[same].given})
        out.append(author)
    return out


def _written(
    name: str, value: Any, verdict: Verdict, source: str | None, cited: CitedReference
) -> tuple[Any, str]:
    """(the new value as reported, as written into the file)."""
    if name == "authors":
        authors = with_cited_detail(_authors_from(verdict, value, source), cited.authors)
        parts = [bibtex_name(a) for a in authors]
        return [a.display for a in authors], " and ".join(p for p in parts if p)
    if name == "year":
        return value, str(int(value))
    return value, bibtex_escape(str(value))


def _mark_text(verdict: Verdict) -> str:
    reasons = ", ".join(r.value for r in verdict.reasons) or "no reason recorded"
    status = verdict.status.value
    if verdict.status is VerdictStatus.RETRACTED:
        notice = verdict.retraction.get("notice_doi") if verdict.retraction else None
        return f"{MARK} RETRACTED ({reasons})" + (f"; notice {notice}" if notice else "") + "; kept unchanged"
    return f"{MARK} NOT VERIFIED ({status}: {reasons}); kept unchanged, check it by hand"


def _already_marked(text: str, offset: int, comment: str) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    previous_start = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    return text[previous_start:line_start].strip() == f"% {comment}"


def plan_fix(
    text: str,
    results: Iterable[tuple[CitedReference, Verdict]],
    problems: Iterable[InputProblem] = (),
) -> FixPlan:
    """The edits that replace contradicted values with the sources', and the marks."""
    plan = FixPlan(text=text)
    entries = scan_entries(text)
    by_line = {e.line: e for e in entries}
    by_key: dict[str, list[EntrySpan]] = {}
    for e in entries:
        by_key.setdefault(e.key, []).append(e)
    for cited, verdict in results:
        plan.references += 1
        entry = _entry_for(cited, by_line, by_key)
        if verdict.status not in FIXED_STATUSES or verdict.match is None:
            _mark_entry(plan, cited, verdict, entry)
        elif not _fix_fields(plan, cited, verdict, entry):
            plan.verified_unchanged += 1
    _mark_unreadable(plan, problems)
    return plan


def _mark_entry(plan: FixPlan, cited: CitedReference, verdict: Verdict, entry: EntrySpan | None) -> None:
    """A reference the sources do not fix: a comment above its entry says why."""
    text, line = plan.text, entry.line if entry else 0
    comment = _mark_text(verdict)
    mark = EntryMark(cited.key, line, verdict.status.value, tuple(r.value for r in verdict.reasons), comment)
    plan.marks.append(mark)
    if entry is not None and not _already_marked(text, entry.start, comment):
        plan.edits.append(insert_before_line(text, entry.start, [comment]))


def _fix_fields(plan: FixPlan, cited: CitedReference, verdict: Verdict, entry: EntrySpan | None) -> bool:
    """Each contradicted field replaced by the sources' value (or said why not); whether any was."""
    text, line = plan.text, entry.line if entry else 0
    changed = False
    for name, bib_field in FIXABLE.items():
        evidence = verdict.fields.get(name)
        new = verdict.corrected.get(name)
        if evidence is None or evidence.agrees is not False or new in (None, "", []):
            continue
        span = entry.fields.get(bib_field) if entry else None
        if entry is None or span is None or not span.editable:
            why = (
                "entry not found in the file"
                if entry is None
                else "the field is not in the entry (crossref or default)"
                if span is None
                else "the value is built from macros or '#'; not edited"
            )
            plan.not_applied.append(NotApplied(cited.key, line, bib_field, why))
            continue
        source = evidence.source.value if evidence.source else None
        new, written = _written(name, new, verdict, source, cited)
        original = text[span.start : span.end]
        plan.edits.append(
            Edit(span.start, span.end, render_value(span.delimiter, written, original=original))
        )
        plan.changes.append(
            FieldChange(
                cited.key,
                line,
                bib_field,
                evidence.cited,
                new,
                written,
                source,
                evidence.similarity,
                tuple(r.value for r in verdict.reasons),
            )
        )
        changed = True
    return changed


def _mark_unreadable(plan: FixPlan, problems: Iterable[InputProblem]) -> None:
    """A comment above each entry the reader could not read."""
    text = plan.text
    for problem in problems:
        comment = f"{MARK} NOT VERIFIED (could not be read: {problem.message}); kept unchanged"
        plan.marks.append(EntryMark(problem.key or "?", problem.line or 0, "unreadable", (), comment))
        if problem.line:
            offset = _line_offset(text, problem.line)
            if offset is not None and not _already_marked(text, offset, comment):
                plan.edits.append(insert_before_line(text, offset, [comment]))


def _line_offset(text: str, line: int) -> int | None:
    offset = 0
    for _ in range(line - 1):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return None
    return offset
