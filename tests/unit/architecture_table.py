"""Reading docs/architecture.md's "Adding a source, a format or a job kind" table (issue 31): the
files a row names, for the toy tests to compare with the files their toys needed."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

_PATH = re.compile(r"`([^`\s]+\.(?:py|json))`")


def architecture_row(change: str) -> set[str]:
    """The files (repository paths; `NAME`/`KIND` stand for the new thing's name) the row of
    `change` names in its "files" column."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] == change:
            return set(_PATH.findall(cells[1]))
    raise AssertionError(f"docs/architecture.md has no row {change!r}")


def instantiated(path: str, **names: str) -> str:
    """`path` with its placeholders replaced by an existing thing's names (NAME="crossref")."""
    for placeholder, value in names.items():
        path = path.replace(placeholder, value)
    return path
