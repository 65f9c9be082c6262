"""What every report calls each source: one name per source, so that no output mixes `dblp` with
"Open Library" (issue 20). The names are the sources' records (`source_facts.SourceFacts.display`);
a name no record has is shown as given."""

from __future__ import annotations

from collections.abc import Mapping

from aletheia.core.source_facts import FactView

# `SourceName` value -> display name, read from the records each time (a live view).
SOURCE_NAMES: Mapping[str, str] = FactView(lambda facts: facts.display)


def source_name(name: str | None) -> str:
    """The display name of a source ("semantic_scholar" -> "Semantic Scholar")."""
    return SOURCE_NAMES.get(name or "", name or "a source")
