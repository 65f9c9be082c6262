"""What every report sink shares: the sink that collects references for a whole-document format,
and the colour of each verdict."""

from __future__ import annotations

from typing import Any, TextIO


class CollectingSink:
    def __init__(self) -> None:
        self.references: list[dict[str, Any]] = []
        self.summary_obj: dict[str, Any] = {}

    def reference(self, obj: dict[str, Any]) -> None:
        self.references.append(obj)

    def summary(self, obj: dict[str, Any]) -> None:
        from aletheia.pipeline.reports.signals import summary_with_signals

        # The document-level signals (citation cohorts) over the references collected.
        self.summary_obj = summary_with_signals(obj, self.references)

    def document(self) -> dict[str, Any]:
        return {"summary": self.summary_obj, "references": self.references}


class WritingSink(CollectingSink):
    """Collects the references and writes its format to `out` when the summary comes (a format
    that needs every reference before its first byte: the CSV's order, the HTML page, CSL-JSON)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out


VERDICT_STYLE = {
    "verified": "green",
    "metadata_error": "yellow",
    "identifier_conflict": "red",
    "not_found": "red",
    "fabricated": "bold red",
    "retracted": "bold red",
    "ambiguous": "magenta",
    "unverifiable": "cyan",
    "out_of_scope": "dim",
}
