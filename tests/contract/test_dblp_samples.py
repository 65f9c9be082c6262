"""Every real DBLP answer in ../shared parses: refchecker's cache of DBLP searches
(`api-samples/dblp/refchecker-cache/`) and the ICLR 2026 benchmark's recorded DBLP answers
(`benchmarks/iclr2026-real-bibliographies/api_cache/dblp/`). Both keep a search's hit list. The ACL
Anthology answers recorded there are all empty lists (no paper found): they are checked to be
exactly that, so a new recording with content fails this test until a parser reads it.
Skipped where ../shared is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aletheia.core.records import SourceName
from aletheia.sources.dblp_parse import clean_dblp_title, dblp_hits, parse_dblp_search
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared

ICLR_CACHE = Path("benchmarks") / "iclr2026-real-bibliographies" / "api_cache"
FOLDERS = (Path("api-samples") / "dblp" / "refchecker-cache", ICLR_CACHE / "dblp")


def _files(shared_data: Path, folder: Path) -> list[Path]:
    # ../shared present (the fixture skips otherwise) but the folder empty or moved: a failure, not
    # a skip, or every test here would pass without reading a single answer.
    files = sorted((shared_data / folder).glob("*.json"))
    assert files, f"no recorded answers in {folder}"
    return files


@pytest.mark.parametrize("folder", FOLDERS, ids=["refchecker-cache", "iclr2026"])
def test_every_recorded_dblp_answer_parses(shared_data: Path, folder: Path) -> None:
    hits = 0
    for path in _files(shared_data, folder):
        payload = json.loads(path.read_text(encoding="utf-8"))
        raw_hits = dblp_hits(payload)
        records = parse_dblp_search(payload)
        assert len(records) == len(raw_hits)
        for hit, record in zip(raw_hits, records, strict=True):
            hits += 1
            info = hit["info"]
            assert_precision_fields_well_typed(record)
            assert record.source is SourceName.DBLP
            assert record.dblp_key == info["key"]
            assert record.title == clean_dblp_title(info["title"])
            assert record.title and not record.title.endswith(".")
            assert all(not part.isdigit() for a in record.authors for part in (a.family or "").split())
            if info["key"].startswith("journals/corr/"):
                assert record.is_preprint and record.arxiv_id, path.name
            if isinstance(info.get("year"), str):
                assert record.year == int(info["year"])
    assert hits > 0


def test_recorded_acl_anthology_answers_are_empty(shared_data: Path) -> None:
    for path in _files(shared_data, ICLR_CACHE / "acl_anthology"):
        assert json.loads(path.read_text(encoding="utf-8")) == [], path.name


def test_the_simulators_hits_have_the_real_shape(shared_data: Path) -> None:
    """Every field the simulator's DBLP hit carries is one the real recorded hits carry, with the
    same JSON type (a list where DBLP gives one author as an object is allowed both ways)."""
    from aletheia.sources.simulator.dblp import render_hit
    from aletheia.sources.simulator.work import SimWork

    real: dict[str, set[type]] = {}
    for path in _files(shared_data, ICLR_CACHE / "dblp"):
        for hit in dblp_hits(json.loads(path.read_text(encoding="utf-8"))):
            for key, value in hit["info"].items():
                real.setdefault(key, set()).add(type(value))
    work = SimWork.model_validate(
        {
            "title": "Attention Is All You Need",
            "authors": [{"given": "Ashish", "family": "Vaswani"}, {"given": "Noam", "family": "Shazeer"}],
            "year": 2017,
            "venue": "NeurIPS",
            "type": "proceedings-article",
            "doi": "10.5555/sim.1",
            "dblp_key": "conf/nips/VaswaniSPUJGKP17",
        }
    )
    simulated = render_hit(work, 1)
    assert set(simulated) == {"@score", "@id", "info", "url"}
    for key, value in simulated["info"].items():
        assert key in real, key
        assert type(value) in real[key], (key, type(value))
    parsed = parse_dblp_search([simulated])[0]
    assert parsed.title == "Attention Is All You Need" and parsed.dblp_key == "conf/nips/VaswaniSPUJGKP17"
