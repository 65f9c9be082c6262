"""The simulator's universe: the works it knows (`work.SimWork`), read from a JSONL file (schema:
docs/simulator.md), and what each source knows of them (`SourceCatalog`: its view of each work,
the identifier maps and the search indexes). A retracted work's Crossref notice is synthesised
here when the universe does not list it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import ValidationError

from aletheia.core.errors import AletheiaError
from aletheia.sources.simulator.ids import normalize_doi, normalize_pmcid, split_arxiv_id, stable_hex
from aletheia.sources.simulator.search import FieldIndex, tokenize
from aletheia.sources.simulator.work import WORK_SOURCES, SimWork, WorkSource

_T = TypeVar("_T")


class UniverseError(ValueError, AletheiaError):
    """A universe file that cannot be read: the line number and what is wrong."""


def validation_problems(exc: ValidationError) -> str:
    """pydantic's errors as one line: `field: problem; ...` (issue 30: its multi-line message,
    with the whole input and a link per error, ended a 40-line traceback)."""
    problems = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems) or str(exc).splitlines()[0]


def _retraction_notice(work: SimWork) -> SimWork | None:
    """The Crossref notice that retracts `work` (synthesised when the universe does not list it)."""
    if not work.retracted or not work.doi:
        return None
    notice_doi = work.retraction_notice_doi or _synthetic_notice_doi(work.doi)
    return SimWork(
        title=f"Retraction Note: {work.title}",
        authors=(),
        year=work.retraction_year or ((work.year + 1) if work.year else None),
        venue=work.venue,
        type="journal-article",
        doi=notice_doi,
        publisher=work.publisher,
        sources=("crossref",),
        meta={"retraction_of": work.doi},
    )


def _synthetic_notice_doi(doi: str) -> str:
    prefix = doi.split("/", 1)[0]
    return f"{prefix}/retraction.{stable_hex('notice', doi)[:10]}"


class SourceCatalog:
    """What one source knows: its view of each work, the identifier maps and the search indexes."""

    def __init__(self, source: WorkSource, works: list[SimWork]) -> None:
        self.source = source
        self.works = works
        self._derived: dict[str, Any] = {}
        self._derived_lock = threading.Lock()
        self.by_doi: dict[str, int] = {}
        self.by_arxiv: dict[str, int] = {}
        self.by_pmid: dict[str, int] = {}
        self.by_pmcid: dict[str, int] = {}
        self.by_openalex: dict[str, int] = {}
        self.by_s2: dict[str, int] = {}
        self.by_corpus: dict[int, int] = {}
        # Identifiers a work has in its own right win over those it only relates to.
        for index, work in enumerate(works):
            self._own(index, work)
        for index, work in enumerate(works):
            if work.related is not None and work.related.preprint_arxiv_id:
                self.by_arxiv.setdefault(work.related.preprint_arxiv_id.lower(), index)
        self.notices_for: dict[str, list[int]] = {}
        for index, work in enumerate(works):
            target = work.meta.get("retraction_of")
            if isinstance(target, str):
                self.notices_for.setdefault(target, []).append(index)
        self.title = FieldIndex([tokenize(w.display_title) for w in works])
        self.abstract = FieldIndex([tokenize(w.abstract or "") for w in works])
        # OpenAlex's `search` and arXiv's `all:` without authors: title and abstract.
        self.text = FieldIndex([tokenize(f"{w.display_title} {w.abstract or ''}") for w in works])
        self.authors = FieldIndex([tokenize(" ".join(a.display for a in w.authors)) for w in works])
        self.venue = FieldIndex([tokenize(w.venue or "") for w in works])
        self.all = FieldIndex(
            [
                tokenize(" ".join([w.display_title, w.abstract or "", *(a.display for a in w.authors)]))
                for w in works
            ]
        )
        # Crossref's query.bibliographic: title, authors, venue and year in one field.
        self.bibliographic = FieldIndex(
            [
                tokenize(
                    " ".join(
                        [w.display_title, *(a.display for a in w.authors), w.venue or "", str(w.year or "")]
                    )
                )
                for w in works
            ]
        )

    def _own(self, index: int, work: SimWork) -> None:
        if work.doi:
            self.by_doi.setdefault(work.doi, index)
        if work.arxiv_id:
            self.by_arxiv.setdefault(work.arxiv_id.lower(), index)
        if work.pmid:
            self.by_pmid.setdefault(work.pmid, index)
        if work.pmcid:
            self.by_pmcid.setdefault(work.pmcid, index)
        self.by_openalex.setdefault(work.derived_openalex_id, index)
        self.by_s2.setdefault(work.derived_s2_id, index)
        self.by_corpus.setdefault(work.derived_corpus_id, index)

    def derived(self, name: str, build: Callable[[SourceCatalog], _T]) -> _T:
        """An index a source's routes derive from this catalogue (`name` unique to it), built on
        first use and kept with the catalogue; under a lock, as answers may render in threads."""
        with self._derived_lock:
            if name not in self._derived:
                self._derived[name] = build(self)
            return cast("_T", self._derived[name])

    def __len__(self) -> int:
        return len(self.works)

    def doi(self, value: str) -> SimWork | None:
        index = self.by_doi.get(normalize_doi(value))
        return self.works[index] if index is not None else None

    def arxiv(self, value: str) -> SimWork | None:
        parsed = split_arxiv_id(value)
        if parsed is None:
            return None
        index = self.by_arxiv.get(parsed[0].lower())
        return self.works[index] if index is not None else None

    def pmid(self, value: str) -> SimWork | None:
        text = value.strip()
        index = self.by_pmid.get(str(int(text))) if text.isdigit() else None
        return self.works[index] if index is not None else None

    def pmcid(self, value: str) -> SimWork | None:
        index = self.by_pmcid.get(normalize_pmcid(value))
        return self.works[index] if index is not None else None


class Universe:
    """Every work the simulator knows, and one `SourceCatalog` per source."""

    def __init__(self, works: Iterable[SimWork], *, base_dir: Path | None = None) -> None:
        self.works: tuple[SimWork, ...] = tuple(works)
        # Relative `fulltext_pdf_path`s are resolved against the universe file's folder.
        self.base_dir = base_dir
        listed = {w.doi for w in self.works if w.doi}
        # A notice the universe lists itself is marked as the notice of the work it retracts.
        retracts = {
            w.retraction_notice_doi: w.doi
            for w in self.works
            if w.retracted and w.doi and w.retraction_notice_doi
        }
        self.works = tuple(
            w.model_copy(update={"meta": {**w.meta, "retraction_of": retracts[w.doi]}})
            if w.doi in retracts and "retraction_of" not in w.meta
            else w
            for w in self.works
        )
        notices = [
            notice
            for work in self.works
            if (notice := _retraction_notice(work)) is not None and notice.doi not in listed
        ]
        self.notices: tuple[SimWork, ...] = tuple(notices)
        self.by_doi: dict[str, SimWork] = {}
        for work in (*self.works, *self.notices):
            if work.doi:
                self.by_doi.setdefault(work.doi, work)
        self.catalogs: dict[WorkSource, SourceCatalog] = {}
        for source in WORK_SOURCES:
            views = [w.view(source) for w in self.works if source in w.known_by]
            if source == "crossref":
                views.extend(self.notices)
            self.catalogs[source] = SourceCatalog(source, views)

    def __len__(self) -> int:
        return len(self.works)

    def __iter__(self) -> Iterator[SimWork]:
        return iter(self.works)

    def catalog(self, source: WorkSource) -> SourceCatalog:
        return self.catalogs[source]

    def resolve_path(self, path: str) -> Path:
        candidate = Path(path)
        if not candidate.is_absolute() and self.base_dir is not None:
            candidate = self.base_dir / candidate
        return candidate

    @classmethod
    def from_jsonl(cls, path: str | Path) -> Universe:
        """Read a universe file; a bad line is a `UniverseError` naming the line."""
        file = Path(path)
        works: list[SimWork] = []
        with file.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                text = line.strip()
                if not text or text.startswith("#"):
                    continue
                try:
                    works.append(SimWork.model_validate_json(text))
                except ValidationError as exc:
                    raise UniverseError(f"{file}:{number}: {validation_problems(exc)}") from exc
        return cls(works, base_dir=file.resolve().parent)

    @classmethod
    def from_records(
        cls, records: Iterable[Mapping[str, Any] | SimWork], *, base_dir: Path | None = None
    ) -> Universe:
        return cls(_validated(records), base_dir=base_dir)


def _validated(records: Iterable[Mapping[str, Any] | SimWork]) -> list[SimWork]:
    works: list[SimWork] = []
    for number, record in enumerate(records, start=1):
        if isinstance(record, SimWork):
            works.append(record)
            continue
        try:
            works.append(SimWork.model_validate(record))
        except ValidationError as exc:
            raise UniverseError(f"record {number}: {validation_problems(exc)}") from exc
    return works


def work_to_json(work: SimWork) -> str:
    """One universe line: only the fields that differ from their defaults."""
    data = work.model_dump(mode="json", exclude_defaults=True)
    return json.dumps(data, ensure_ascii=False, sort_keys=False)


def write_universe(works: Iterable[SimWork], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8") as handle:
        for work in works:
            handle.write(work_to_json(work) + "\n")


def universe_from_records(
    records: Iterable[Mapping[str, Any] | SimWork], path: str | Path | None = None
) -> Universe:
    """A universe from Python dicts (validated against the schema); written to `path` as JSONL
    when a path is given, so a subprocess or the CLI can serve the same universe."""
    works = _validated(records)
    base_dir = None
    if path is not None:
        write_universe(works, path)
        base_dir = Path(path).resolve().parent
    return Universe(works, base_dir=base_dir)
