"""A load killed for real (SIGKILL, nothing flushed, no handler run) and run again finishes
without duplicates (issue 32): the batches committed before the kill stay, the second run skips
them and loads the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aletheia.pipeline.mirror.load import load_dump
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore
from tests.unit.test_mirror_store import crossref_file

CHILD = """
import sys
from pathlib import Path
from aletheia.pipeline.mirror.load import load_dump
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore

store = MirrorStore(engine_for(sys.argv[1]))
load_dump(store, Path(sys.argv[2]), batch_records=200)
"""


def test_a_load_killed_with_sigkill_resumes_without_duplicates(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mirror.sqlite3'}"
    path = crossref_file(tmp_path, 3000)
    store = MirrorStore(engine_for(url))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, url, str(path)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            progress = store.file_progress(str(path.resolve()))
            if progress is not None and progress.records >= 400:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the load finished before it could be killed"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    progress = store.file_progress(str(path.resolve()))
    assert progress is not None and not progress.done
    assert 400 <= progress.records < 3000
    assert store.count() == progress.records  # each committed batch whole, nothing of the next
    resumed = load_dump(store, path, batch_records=200)
    assert resumed.resumed_at == progress.records
    assert store.count() == 3000
    with store.engine.connect() as conn:
        keys = conn.exec_driver_sql("SELECT count(DISTINCT record_id) FROM mirror_records").scalar_one()
        indexed = conn.exec_driver_sql("SELECT count(*) FROM mirror_titles").scalar_one()
    assert keys == 3000 and indexed == 3000
