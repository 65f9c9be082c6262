"""What the engine's tests share: an embedded runtime on a temporary SQLite database, offline, and
a gateway with no counters (the tests give the engine their own verifier)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.pipeline.runtime import Runtime


class Gateway:
    def stats(self) -> dict[str, Any]:
        return {}


def offline_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    return Runtime.open(
        Settings(
            data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
        )
    )
