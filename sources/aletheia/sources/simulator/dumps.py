"""The simulator's universe written as the sources' dumps (issue 32), so that tests and benchmarks
load files in the real formats (`aletheia mirror load`):

- DBLP: `dblp/dblp.xml.gz` (ISO-8859-1, `<!DOCTYPE dblp SYSTEM "dblp.dtd">`, the records of
  `/rec/{key}.xml` as the root's children, accented letters of ISO 8859-1 written as the DTD's
  character entities) and `dblp/dblp.dtd` declaring them;
- OpenAlex: `openalex/works/updated_date=YYYY-MM-DD/part_NNN.gz`, JSON Lines of the work objects
  `/works/{id}` answers;
- Crossref: `crossref/NNNN.json.gz`, `{"items": [...]}` of the work items `/works/{doi}` answers;
- Semantic Scholar: `semantic_scholar/papers/papers-NNN.jsonl.gz`, its papers dataset's lines (the
  Graph API's papers in the dataset's spelling), the papers of the corpus beyond the universe
  (`s2_corpus`, as the simulator serves them) included.

Each source's file holds that source's view of the works it knows (the records its API serves).
A dump is a snapshot: with `as_of`, it holds the works the sources had recorded by that day
(`recorded_on`: a work's records are made in its year of publication, on a day its key chooses),
and the APIs alone serve the works recorded since, as a mirror loaded from a dump of some months
ago meets the live sources. `snapshot_day` is the day by which a given share of the universe was
recorded. `fraction` instead keeps a stable share chosen by a hash of each work's key (the same
works in every source's dump): a mirror missing works at random, which no whole dump is.
"""

from __future__ import annotations

import gzip
import html.entities
import json
import math
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Final

from aletheia.sources.simulator import crossref_work, openalex_work
from aletheia.sources.simulator import dblp as sim_dblp
from aletheia.sources.simulator import semantic_scholar as sim_s2
from aletheia.sources.simulator.common import SimContext
from aletheia.sources.simulator.ids import stable_int
from aletheia.sources.simulator.universe import Universe
from aletheia.sources.simulator.work import SimWork

# ISO 8859-1's letters and signs by the names dblp.dtd gives them (HTML's Latin-1 entity names).
LATIN1_ENTITIES: Final = {
    name: chr(code) for code, name in html.entities.codepoint2name.items() if 0xA0 <= code <= 0xFF
}
_BY_CHAR: Final = {char: name for name, char in LATIN1_ENTITIES.items()}
_CHAR_REF: Final = re.compile(r"&#(\d+);|&#x([0-9A-Fa-f]+);")
_RECORD: Final = re.compile(r"<dblp>\n(.*)\n</dblp>", re.DOTALL)
PART_RECORDS: Final = 10_000
CROSSREF_FILE_ITEMS: Final = 5_000


# The sources the simulator writes a dump of, each in its real format.
DUMPED_SOURCES: Final = ("dblp", "openalex", "crossref", "semantic_scholar")


@dataclass
class DumpFiles:
    """The files written of each source's dump (by the source's name), and the universe's works
    kept (`fraction`, `as_of`)."""

    paths: dict[str, list[Path]] = field(default_factory=lambda: {name: [] for name in DUMPED_SOURCES})
    works: int = 0

    def by_source(self) -> dict[str, list[Path]]:
        return self.paths


# A work cited without a year is taken as recorded long before any snapshot.
_UNDATED: Final = date(1900, 1, 1)


def kept(work: SimWork, fraction: float) -> bool:
    """Whether `work` is among the `fraction` of the universe a partial dump keeps (stable)."""
    return stable_int("mirror", work.key, digits=6) < fraction * 1_000_000


def recorded_on(work: SimWork) -> date:
    """The day the sources recorded `work`: in its year of publication, on a day of that year its
    key chooses (stable)."""
    return _recorded_in(work.year, work.key)


def _recorded_in(year: int | None, key: str) -> date:
    if year is None:
        return _UNDATED
    return date(year, 1, 1) + timedelta(days=stable_int("recorded", key, digits=6) % 365)


def snapshot_day(universe: Universe, fraction: float) -> date:
    """The first day by which at least `fraction` of the universe's works had been recorded: the
    day of a snapshot holding that share, the rest recorded after it."""
    days = sorted(recorded_on(w) for w in universe.works)
    if not days:
        raise ValueError("the universe holds no works")
    wanted = max(1, min(len(days), math.ceil(fraction * len(days))))
    return days[wanted - 1]


def dblp_dtd() -> str:
    lines = [
        "<!-- dblp.dtd as the simulator writes it: the records and the ISO 8859-1 entities -->",
        '<!ENTITY % REC "article|inproceedings|proceedings|book|incollection|phdthesis|'
        'mastersthesis|www|data">',
        "<!ELEMENT dblp (%REC;)*>",
    ]
    lines += [f'<!ENTITY {name} "&#{ord(char)};">' for name, char in sorted(LATIN1_ENTITIES.items())]
    return "\n".join(lines) + "\n"


def _dblp_entities(record: str) -> str:
    """DBLP's spelling of characters: an ISO 8859-1 letter as the DTD's entity (`&auml;`), anything
    beyond ISO 8859-1 as a character reference (the file's encoding cannot hold it)."""

    def one(match: re.Match[str]) -> str:
        code = int(match.group(1)) if match.group(1) else int(match.group(2), 16)
        name = _BY_CHAR.get(chr(code))
        return f"&{name};" if name else match.group(0)

    out: list[str] = []
    for char in record:
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif char in _BY_CHAR:
            out.append(f"&{_BY_CHAR[char]};")
        else:
            out.append(f"&#{code};")
    return _CHAR_REF.sub(one, "".join(out))


def write_dumps(
    universe: Universe,
    out_dir: Path,
    *,
    snapshot: date,
    fraction: float = 1.0,
    as_of: date | None = None,
    s2_corpus: int = 0,
    seed: int = 0,
    part_records: int = PART_RECORDS,
) -> DumpFiles:
    """The four dumps of `universe` under `out_dir`: the works `kept` at `fraction`, and of those
    only the ones recorded by `as_of` when it is given (a snapshot of that day); Semantic
    Scholar's with the `s2_corpus` papers beyond the universe a simulator of that size and `seed`
    serves."""
    keys = {w.key for w in universe.works if kept(w, fraction) and (as_of is None or recorded_on(w) <= as_of)}
    files = DumpFiles(works=len(keys))
    ctx = SimContext(universe, semantic_scholar_corpus=s2_corpus, seed=seed)

    files.paths["dblp"].append(_write_dblp(out_dir, universe, keys))

    works_dir = out_dir / "openalex" / "works" / f"updated_date={snapshot.isoformat()}"
    works_dir.mkdir(parents=True, exist_ok=True)
    chosen = [w for w in universe.catalog("openalex").works if w.key in keys]
    for part, start in enumerate(range(0, max(len(chosen), 1), part_records)):
        path = works_dir / f"part_{part:03d}.gz"
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for work in chosen[start : start + part_records]:
                out.write(json.dumps(openalex_work.render_work(work), ensure_ascii=False) + "\n")
        files.paths["openalex"].append(path)

    crossref_dir = out_dir / "crossref"
    crossref_dir.mkdir(parents=True, exist_ok=True)
    catalog = universe.catalog("crossref")
    # Notices (retractions) are Crossref works of their own; they go with the works they concern.
    items = [w for w in catalog.works if w.doi and (w.key in keys or w.meta.get("retraction_of"))]
    for number, start in enumerate(range(0, max(len(items), 1), CROSSREF_FILE_ITEMS)):
        path = crossref_dir / f"{number}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8") as out:
            out.write('{"items": [')
            for i, work in enumerate(items[start : start + CROSSREF_FILE_ITEMS]):
                item = crossref_work.render_work(work, catalog, ctx, score=1.0)
                item.pop("score", None)  # a search's relevance; the data file has none
                out.write(("," if i else "") + "\n" + json.dumps(item, ensure_ascii=False))
            out.write("\n]}\n")
        files.paths["crossref"].append(path)

    files.paths["semantic_scholar"] = _write_s2_papers(out_dir, ctx, keys, as_of, part_records)
    return files


def _write_dblp(out_dir: Path, universe: Universe, keys: set[str]) -> Path:
    dblp_dir = out_dir / "dblp"
    dblp_dir.mkdir(parents=True, exist_ok=True)
    (dblp_dir / "dblp.dtd").write_text(dblp_dtd(), encoding="ascii")
    dblp_path = dblp_dir / "dblp.xml.gz"
    with gzip.open(dblp_path, "wt", encoding="iso-8859-1") as out:
        out.write('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n<dblp>\n')
        for work in universe.catalog("dblp").works:
            if work.key in keys:
                found = _RECORD.search(sim_dblp.render_xml(work))
                if found is not None:
                    out.write(_dblp_entities(found.group(1)) + "\n")
        out.write("</dblp>\n")
    return dblp_path


def s2_dataset_line(paper: dict[str, Any]) -> dict[str, Any]:
    """A Graph API paper as Semantic Scholar's papers dataset writes it: its fields, in its
    spelling (`sources/dumps/s2_dump.py`, `s2_lines.py`)."""
    venue = paper.get("publicationVenue")
    return {
        "corpusid": paper.get("corpusId"),
        "externalids": dict(paper.get("externalIds") or {}),
        "url": paper.get("url"),
        "title": paper.get("title"),
        "authors": [
            {"authorId": a.get("authorId"), "name": a.get("name")} for a in paper.get("authors") or []
        ],
        "venue": paper.get("venue"),
        "publicationvenueid": venue.get("id") if isinstance(venue, dict) else None,
        "year": paper.get("year"),
        "referencecount": paper.get("referenceCount"),
        "citationcount": paper.get("citationCount"),
        "influentialcitationcount": paper.get("influentialCitationCount"),
        "isopenaccess": paper.get("isOpenAccess"),
        "s2fieldsofstudy": paper.get("s2FieldsOfStudy"),
        "publicationtypes": paper.get("publicationTypes"),
        "publicationdate": paper.get("publicationDate"),
        "journal": paper.get("journal"),
    }


def _write_s2_papers(
    out_dir: Path, context: SimContext, keys: set[str], as_of: date | None, part_records: int
) -> list[Path]:
    papers = [
        sim_s2.render_paper(w) for w in context.universe.catalog("semantic_scholar").works if w.key in keys
    ]
    if context.semantic_scholar_corpus:
        corpus = sim_s2.corpus(context)
        for index in range(len(corpus)):
            paper = corpus.render(index)
            if as_of is None or _recorded_in(paper["year"], paper["paperId"]) <= as_of:
                papers.append(paper)
    folder = out_dir / "semantic_scholar" / "papers"
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    # No papers, no file: an empty file is no dataset's (its loader refuses it).
    for part, start in enumerate(range(0, len(papers), part_records)):
        path = folder / f"papers-{part:03d}.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for paper in papers[start : start + part_records]:
                out.write(json.dumps(s2_dataset_line(paper), ensure_ascii=False) + "\n")
        paths.append(path)
    return paths
