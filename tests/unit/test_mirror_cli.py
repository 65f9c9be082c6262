"""`aletheia mirror load` and `aletheia mirror status` (issue 32): the four hand-written samples
loaded (the source read from each file), a second run loads nothing twice, a truncated dump is an
error naming the file (exit 2) and the files before it stay loaded; `--complete` marks the
snapshot complete only when every file loaded."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.config.settings import reset_settings_cache
from aletheia.producers.cli import main
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mirror"


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", url)
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(tmp_path / "data"))
    reset_settings_cache()
    yield url
    reset_settings_cache()


def samples(tmp_path: Path) -> list[Path]:
    shutil.copy(FIXTURES / "dblp.dtd", tmp_path / "dblp.dtd")
    out = []
    for name in (
        "dblp-sample.xml",
        "openalex-works-sample.jsonl",
        "crossref-sample.json",
        "s2-papers-sample.jsonl",
    ):
        path = tmp_path / (name + ".gz")
        with (FIXTURES / name).open("rb") as src, gzip.open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out.append(path)
    return out


def test_load_then_status_then_load_again(tmp_path: Path, database: str) -> None:
    files = [str(p) for p in samples(tmp_path)]
    first = CliRunner().invoke(main, ["mirror", "load", "--quiet", "--snapshot-date", "2024-05-01", *files])
    assert first.exit_code == 0, first.output
    assert "dblp: 4 records loaded" in first.output
    assert "openalex: 2 records loaded" in first.output and "crossref: 3 records loaded" in first.output
    assert "semantic_scholar: 3 records loaded" in first.output
    again = CliRunner().invoke(main, ["mirror", "load", "--quiet", *files])
    assert again.exit_code == 0 and again.output.count("already loaded") == 4
    status = CliRunner().invoke(main, ["mirror", "status"])
    assert "dblp: 4 records, partial, snapshot 2024-05-01" in status.output
    assert MirrorStore(engine_for(database)).count() == 12


def test_a_truncated_file_fails_the_run_and_the_others_stay(tmp_path: Path, database: str) -> None:
    dblp, openalex, crossref, _ = samples(tmp_path)
    data = crossref.read_bytes()
    crossref.write_bytes(data[: len(data) // 2])
    out = CliRunner().invoke(
        main, ["mirror", "load", "--quiet", "--complete", str(dblp), str(openalex), str(crossref)]
    )
    assert out.exit_code == 2
    assert str(crossref) in out.output and "truncated" in out.output
    store = MirrorStore(engine_for(database))
    assert store.count("dblp") == 4 and store.count("openalex") == 2
    assert not store.snapshots()["dblp"].complete  # not every file loaded: not a complete copy
