"""The predatory-venue list this process uses: the one loaded into the database (`aletheia library
predatory FILE`, installed for the process with `install_predatory_list`) or, until one is, the
list shipped in `aletheia/pipeline/data/predatory.csv` (see its README note). Read by the reports'
signals, the authorship question of the evidence and the full-text signals.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from aletheia.core.signals import PredatoryEntry, PredatoryList, parse_predatory_csv

if TYPE_CHECKING:
    from sqlalchemy import Engine

BUNDLED_PREDATORY = "predatory.csv"

_lock = threading.Lock()
_active: PredatoryList | None = None
_bundled: PredatoryList | None = None


def bundled_predatory_list() -> PredatoryList:
    """The list shipped with the package (read once)."""
    global _bundled
    with _lock:
        if _bundled is None:
            data = resources.files("aletheia.pipeline").joinpath("data", BUNDLED_PREDATORY)
            with resources.as_file(data) as path:
                text = Path(path).read_text(encoding="utf-8") if Path(path).is_file() else ""
            entries, _ = parse_predatory_csv(text.splitlines(keepends=True))
            _bundled = PredatoryList(entries)
        return _bundled


def load_predatory_list(engine: Engine) -> PredatoryList:
    """The list stored in the database; the bundled one when none was loaded."""
    from aletheia.storage.lists import PredatoryStore

    rows = PredatoryStore(engine).rows()
    if not rows:
        return bundled_predatory_list()
    return PredatoryList(PredatoryEntry.model_validate(r) for r in rows)


def install_predatory_list(listed: PredatoryList | None) -> None:
    """Use `listed` for this process's reports (None: back to the bundled list)."""
    global _active
    with _lock:
        _active = listed


def active_predatory_list() -> PredatoryList:
    return _active if _active is not None else bundled_predatory_list()


_refreshed: dict[str, float] = {}


def refresh_predatory_list(engine: Engine, *, max_age: float = 60.0) -> PredatoryList:
    """Install the database's list for this process, read again at most every `max_age` seconds:
    the one call a verifier or a writer makes before building REFERENCE objects."""
    import time

    url = engine.url.render_as_string(hide_password=True)
    now = time.monotonic()
    if _active is None or now - _refreshed.get(url, -max_age - 1) > max_age:
        install_predatory_list(load_predatory_list(engine))
        _refreshed[url] = now
    return active_predatory_list()
