"""The mirror's store and loads on SQLite (issue 32): records keyed by (source, id) so that a load
run twice or resumed after a kill holds each record once; a broken file keeps what came before
it; identifiers and titles found through the FTS5 index; records parsed by the live parsers."""

from __future__ import annotations

import gzip
import shutil
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.records import SourceName
from aletheia.pipeline.mirror.load import load_dump
from aletheia.sources.dumps import DumpError
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore, fts_query

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mirror"


@pytest.fixture
def store(tmp_path: Path) -> MirrorStore:
    return MirrorStore(engine_for(f"sqlite:///{tmp_path / 'mirror.sqlite3'}"))


def crossref_file(tmp_path: Path, n: int, *, name: str = "0.json.gz", title: str = "Work number") -> Path:
    items = ", ".join(
        f'{{"DOI": "10.1000/w{i}", "type": "journal-article", "title": ["{title} {i} on streaming joins"], '
        f'"author": [{{"given": "Ada", "family": "Byron{i}"}}], "issued": {{"date-parts": [[2020]]}}}}'
        for i in range(n)
    )
    path = tmp_path / name
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write('{"items": [' + items + "]}")
    return path


def rows(store: MirrorStore) -> list[tuple[str, str]]:
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql("SELECT source, record_id FROM mirror_records").all()]


def test_the_samples_load_and_are_found_by_identifier_and_title(tmp_path: Path, store: MirrorStore) -> None:
    shutil.copy(FIXTURES / "dblp.dtd", tmp_path / "dblp.dtd")
    for name in ("dblp-sample.xml", "openalex-works-sample.jsonl", "crossref-sample.json"):
        shutil.copy(FIXTURES / name, tmp_path / name)
        load_dump(store, tmp_path / name, snapshot_date=date(2024, 5, 1))
    assert store.count("dblp") == 4 and store.count("openalex") == 2 and store.count("crossref") == 3
    hits = store.by_doi("10.1109/tkde.2019.0000001", "openalex")
    assert [h.record.record.source_id for h in hits] == ["W4200000001"]
    assert hits[0].snapshot_date == date(2024, 5, 1)
    assert hits[0].record.raw["id"] == "https://openalex.org/W4200000001"  # the source's own JSON
    found = store.search_title("Streaming joins over sliding windows in sublinear space", "dblp")
    assert found[0].record.record.dblp_key == "journals/tkde/MullerS19"
    assert found[0].similarity > 0.95
    assert store.search_title("Attention is all you need", "dblp") == []
    (key,) = [h.record.record.dblp_key for h in store.by_record_id("dblp", "conf/nips/GarconL21")]
    assert key == "conf/nips/GarconL21"


def test_a_load_run_twice_holds_each_record_once(tmp_path: Path, store: MirrorStore) -> None:
    path = crossref_file(tmp_path, 30)
    first = load_dump(store, path, batch_records=7)
    second = load_dump(store, path, batch_records=7)
    assert first.loaded == 30 and second.already_done
    assert len(rows(store)) == len(set(rows(store))) == 30


def test_a_killed_load_resumes_without_duplicates(tmp_path: Path, store: MirrorStore) -> None:
    path = crossref_file(tmp_path, 50)
    real_write = store.write_batch
    calls = {"n": 0}

    def dies_after_two_batches(*args: object, **kwargs: object) -> None:
        calls["n"] += 1
        if calls["n"] > 2:
            raise SystemExit("killed")  # nothing of this batch or after it is written
        real_write(*args, **kwargs)  # type: ignore[arg-type]

    store.write_batch = dies_after_two_batches  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        load_dump(store, path, batch_records=10)
    assert store.count() == 20
    store.write_batch = real_write  # type: ignore[method-assign]
    resumed = load_dump(store, path, batch_records=10)
    assert resumed.resumed_at == 20 and resumed.loaded == 30
    assert store.count() == 50 and len(set(rows(store))) == 50
    # The FTS index follows the table: every title searchable once.
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM mirror_titles").scalar_one() == 50


def test_a_truncated_file_is_an_error_and_what_was_loaded_stays(tmp_path: Path, store: MirrorStore) -> None:
    whole = crossref_file(tmp_path, 400).read_bytes()
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DumpError) as caught:
        load_dump(store, cut, batch_records=50)
    assert str(cut.resolve()) in str(caught.value) or str(cut) in str(caught.value)
    kept = store.count()
    assert 0 < kept < 400
    progress = store.file_progress(str(cut.resolve()))
    assert progress is not None and progress.records == kept and not progress.done


def test_a_newer_snapshot_replaces_a_record_and_an_older_does_not(tmp_path: Path, store: MirrorStore) -> None:
    old = crossref_file(tmp_path, 3, name="old.json.gz", title="Old title")
    new = crossref_file(tmp_path, 3, name="new.json.gz", title="New title")
    load_dump(store, new, snapshot_date=date(2025, 1, 1))
    load_dump(store, old, snapshot_date=date(2024, 1, 1))
    (hit,) = store.by_doi("10.1000/w1", "crossref")
    assert hit.record.record.title == "New title 1 on streaming joins"
    assert store.search_title("Old title 1 on streaming joins", "crossref")[0].record.record.title.startswith(
        "New"
    )


def test_a_misspelt_common_word_still_finds_the_title(tmp_path: Path, store: MirrorStore) -> None:
    load_dump(store, crossref_file(tmp_path, 200))
    hits = store.search_title("Work nmuber 137 on streamng joins", "crossref")
    assert hits[0].record.record.doi == "10.1000/w137"


def test_snapshots_record_date_and_completeness(store: MirrorStore) -> None:
    store.mark_snapshot("dblp", date(2024, 6, 1), complete=True)
    store.mark_snapshot("openalex", date(2024, 5, 1), complete=False, updated_through=date(2024, 7, 1))
    snaps = store.snapshots()
    assert snaps["dblp"].complete and snaps["dblp"].as_of == date(2024, 6, 1)
    assert not snaps["openalex"].complete and snaps["openalex"].as_of == date(2024, 7, 1)


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6))
def test_fts_query_quotes_every_term(terms: list[str]) -> None:
    query = fts_query(terms)
    parts = query.split(" OR ")
    # Each term is one quoted string whose doubled quotes undo to the term.
    rebuilt: list[str] = []
    for term in terms:
        quoted = '"' + term.replace('"', '""') + '"'
        assert quoted in query
        rebuilt.append(quoted)
    assert " OR ".join(rebuilt) == query
    assert len(parts) >= len(terms)


def test_an_empty_mirror_has_no_tier_so_a_reference_costs_no_mirror_query(store: MirrorStore) -> None:
    """Nothing ever loaded: the gateway gets no tier (one query of the snapshots per gateway), so
    no reference's lookup asks the mirror anything. Once a dump is loaded, the tier is there."""
    from aletheia.pipeline.evidence.mirror_tier import MirrorTier
    from aletheia.pipeline.mirror.load import mark_loaded

    assert MirrorTier.open(store, max_age_days=30, indexing_lag_days=90) is None
    mark_loaded(store, {"crossref": date(2024, 5, 1)}, complete=False)
    tier = MirrorTier.open(store, max_age_days=30, indexing_lag_days=90)
    assert tier is not None and tier.holds(SourceName.CROSSREF) and not tier.holds(SourceName.DBLP)


def test_a_later_load_never_moves_the_snapshot_back_nor_undoes_complete(store: MirrorStore) -> None:
    from aletheia.pipeline.mirror.load import mark_loaded

    store.mark_snapshot("openalex", date(2024, 5, 1), complete=True, updated_through=date(2024, 6, 1))
    mark_loaded(store, {"openalex": date(2024, 4, 1)}, complete=False)
    after = store.snapshots()["openalex"]
    assert (after.snapshot_date, after.complete, after.updated_through) == (
        date(2024, 5, 1),
        True,
        date(2024, 6, 1),
    )
    mark_loaded(store, {"openalex": date(2024, 7, 1), "dblp": date(2024, 7, 2)}, complete=True)
    assert store.snapshots()["openalex"].snapshot_date == date(2024, 7, 1)
    assert store.snapshots()["dblp"].complete
