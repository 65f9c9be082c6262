"""Issue 20: `aletheia verify` on an input holding no references exits 2 and says so, instead of
"none of the 0 references needs a change" (exit 0) or a blog page read as a reference (exit 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.config.settings import reset_settings_cache

BLOG = Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "blog.html"


@pytest.fixture
def offline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ALETHEIA_DATABASE_URL", "ALETHEIA_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    reset_settings_cache()


@pytest.mark.usefixtures("offline_home")
def test_inputs_without_references_exit_2(tmp_path: Path) -> None:
    from aletheia.producers.cli import main

    empty, blank, folder = tmp_path / "empty.txt", tmp_path / "blank.txt", tmp_path / "folder"
    empty.write_text("")
    blank.write_text("   \n\n \n")
    folder.mkdir()
    for path in (empty, blank, folder, BLOG):
        result = CliRunner().invoke(main, ["verify", "--offline", "--format", "json", str(path)])
        assert result.exit_code == 2, (path, result.output)
        assert f"no references found in {path}" in result.output
