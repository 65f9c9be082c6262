"""`ai_generated_suspect` on the document being checked (issue 13): when a bibliography job is
given a full text (a PDF, Markdown, LaTeX or plain-text paper, not a bibliography file), its body
(the text before the References heading) and its section headings go through the same heuristics
as a cited work's abstract (`aletheia.core.paper_mill`). The signal lands in the summary's
`signals`, with the document's name; it never changes a verdict.

No second reading: the input parsers hand over the text they extracted for the references
(`iter_references(..., on_text=check.observe)`: the PDF text, in the sandbox when
`ALETHEIA_PDF_SANDBOX` is on, or the decoded text file), and `DocumentCheck` keeps only the
signals, not the texts. The bibliography job (`jobs/bibliography.py`, whether run inline, by
`aletheia submit` or by the Celery pools) stores them in the job's summary row
(`document_signals`), which the writer carries into report.json; `aletheia verify` passes the
same check to `verify_to_sink`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from aletheia.core.paper_mill import WorkText, ai_generated_signal, headings_in_text

__all__ = ["FULL_TEXT_SUFFIXES", "MIN_BODY_WORDS", "DocumentCheck", "body_of", "document_signal"]

# Inputs that can be a paper's full text; BibTeX, CSL-JSON and .bbl files are bibliographies only.
FULL_TEXT_SUFFIXES: Final = frozenset({".pdf", ".md", ".markdown", ".tex", ".txt"})
MIN_BODY_WORDS: Final = 300  # fewer words before the references: a reference list, not a paper
_REFERENCES: Final = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\\section\*?\{)?(?:\d{1,2}\.?\s+)?"
    r"(?:references|bibliography|works cited)\}?\s*:?\s*$",
    re.IGNORECASE,
)


def body_of(text: str) -> WorkText | None:
    """The paper's body (before its last References heading) and headings; None when too short to
    be a paper (a reference list in a .txt or .md file)."""
    lines = text.splitlines()
    cut = max((i for i, line in enumerate(lines) if _REFERENCES.match(line)), default=len(lines))
    body = lines[:cut]
    joined = "\n".join(body)
    if len(joined.split()) < MIN_BODY_WORDS:
        return None
    headings = headings_in_text(body)
    return WorkText(parts={"full_text": joined}, headings=headings or None)


def document_signal(name: str, text: str) -> dict[str, Any] | None:
    """The signal of one input document's text, as a summary `signals` entry; None when it does
    not fire or the document is no full text (a bibliography file, a bare reference list)."""
    if Path(name).suffix.lower() not in FULL_TEXT_SUFFIXES:
        return None
    work = body_of(text)
    signal = ai_generated_signal(work) if work is not None else None
    if signal is None:
        return None
    out = signal.model_dump(mode="json")
    out["evidence"] = {"document": name, **out["evidence"]}
    return out


class DocumentCheck:
    """Collects the documents' signals from the texts the parsers extracted (`observe` is the
    `on_text` callback of `iter_references`, called with the document's name and its text)."""

    def __init__(self) -> None:
        self.signals: list[dict[str, Any]] = []

    def observe(self, name: str, text: str) -> None:
        found = document_signal(name, text)
        if found is not None:
            self.signals.append(found)
