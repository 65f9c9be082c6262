"""OpenAlex author records for the `authorship_not_found_elsewhere` indicator (issue 13): the
parser on a payload modelled on the documented Author object, the author ids kept from a work's
`authorships`, the client's one batched `/authors` request against the simulator (cache, failure),
and the pipeline rule: asked only when another paper-mill indicator fired."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.authorship import AuthorshipCheck, AuthorWorks
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.pipeline.evidence.authorship import author_ids, with_authorship
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.reports.signals import reference_signals
from aletheia.sources.base import SourceError, SourceParseError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.openalex import OpenAlexClient, openalex_transport, parse_openalex_work
from aletheia.sources.openalex_authors import parse_openalex_author, parse_openalex_authors
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records
from aletheia.sources.transport.ratelimit import LocalRateLimiter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openalex"
AUTHOR_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openalex_authors"


def test_the_documented_author_list_parses_to_ids_and_counts() -> None:
    payload = json.loads((AUTHOR_FIXTURES / "authors_list.json").read_text())
    assert parse_openalex_authors(payload) == [
        AuthorWorks(id="A5023888391", name="Jason Priem", works_count=53),
        AuthorWorks(id="A5100000001", name="Q. Newcomer", works_count=1),
    ]  # the third has no works_count: left out, never read as zero
    assert parse_openalex_author({"id": "not an id", "works_count": 3}) is None
    assert parse_openalex_author({"id": "A1", "works_count": True}) is None
    with pytest.raises(SourceParseError):
        parse_openalex_authors({"error": "no results here"})


def test_a_works_author_ids_are_kept_in_the_parsed_record() -> None:
    record = parse_openalex_work(json.loads((FIXTURES / "work_retracted.json").read_text()))
    assert [a.source_id for a in record.authors] == ["A9"]
    assert author_ids([record]) == ("A9",)
    assert author_ids([record.model_copy(update={"source": SourceName.CROSSREF})]) == ()


# --- the client against the simulator --------------------------------------------------------------

SOLO = {"title": "Irregular woodland ensembles", "doi": "10.5555/solo", "year": 2021}
PROLIFIC = [{"given": "Bert", "family": "Prolific"}]
WORKS = [
    {**SOLO, "authors": [{"given": "Ada", "family": "Solo"}, *PROLIFIC]},
    *(
        {"title": f"Prolific paper {n}", "doi": f"10.5555/p{n}", "year": 2020, "authors": PROLIFIC}
        for n in range(3)
    ),
]


def _client(server: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> OpenAlexClient:
    settings = Settings(
        openalex_url=server.url_for("openalex"),
        openalex_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    return OpenAlexClient(
        openalex_transport(http, settings, LocalRateLimiter()), coalesce_window=None, **kwargs
    )


async def test_one_request_for_the_author_set_then_the_cache() -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    with SimulatorServer(universe_from_records(WORKS), SimulatorConfig.unlimited()) as server:
        async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
            client = _client(server, http, cache=MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60))
            work = await client.work_by_doi("10.5555/solo")
            assert work is not None
            ids = author_ids([work.record])
            assert len(ids) == 2
            sent.clear()
            found = await client.authors([*ids, "A1"])  # A1: no such author
            assert [sent[0].url.path, len(sent)] == ["/openalex/authors", 1]
            assert sent[0].url.params["filter"] == "openalex_id:" + "|".join([*ids, "A1"])
            counts = {i: a.works_count if a else None for i, a in found.items()}
            assert counts == {ids[0]: 1, ids[1]: 4, "A1": None}
            assert found[ids[0]] is not None and found[ids[0]].name == "Ada Solo"
            again = await client.authors(ids)
            assert len(sent) == 1 and again == {i: found[i] for i in ids}  # from the cache


async def test_a_failing_source_leaves_the_indicator_absent() -> None:
    failing = SimulatorConfig.unlimited().with_source("openalex", faults={"error_503": 1.0})
    with SimulatorServer(universe_from_records(WORKS), failing) as server:
        async with httpx.AsyncClient() as http:
            client = _client(server, http)
            with pytest.raises(SourceError):
                await client.authors(["A5000000001"])
            outcome = _outcome("Irregular woodland ensembles")
            unchanged = await _ask(outcome, SimpleNamespace(openalex=client))
    assert unchanged.evidence.authorship is None


# --- when the authors are asked about ------------------------------------------------------------


async def _ask(outcome: ReferenceOutcome, gateway: Any) -> ReferenceOutcome:
    """What `verify_reference` does last: the evidence with the authorship answer, if asked."""
    evidence = await with_authorship(outcome.verdict, outcome.evidence, gateway)
    return ReferenceOutcome(cited=outcome.cited, verdict=outcome.verdict, evidence=evidence, raw=[])


class CountingOpenAlex:
    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.calls: list[tuple[str, ...]] = []

    async def authors(self, ids: Any) -> dict[str, AuthorWorks | None]:
        asked = tuple(ids)
        self.calls.append(asked)
        return {i: AuthorWorks(id=i, works_count=self.counts[i]) if i in self.counts else None for i in asked}


def _outcome(title: str) -> ReferenceOutcome:
    authors = (
        Author(given="Ada", family="Solo", source_id="A10"),
        Author(given="Bo", family="Lee", source_id="A11"),
    )
    match = WorkRecord(source=SourceName.OPENALEX, title=title, authors=authors, doi="10.5555/solo")
    answer = SourceAnswer(
        source=SourceName.OPENALEX,
        kind=QueryKind.DOI,
        query="10.5555/solo",
        outcome=Outcome.FOUND,
        records=(match,),
    )
    cited = CitedReference(key="a", title=title, doi="10.5555/solo")
    verdict = Verdict(status=VerdictStatus.VERIFIED, match=match)
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=(answer,)), raw=[])


async def test_no_request_when_no_other_indicator_fired() -> None:
    openalex = CountingOpenAlex({"A10": 1, "A11": 1})
    genuine = _outcome("Random forest ensembles for breast cancer detection")
    assert (await _ask(genuine, SimpleNamespace(openalex=openalex))).evidence is genuine.evidence
    assert openalex.calls == []
    assert [s.kind for s in reference_signals(genuine)] == []


async def test_one_phrase_and_an_unknown_author_set_fire_with_the_counts() -> None:
    openalex = CountingOpenAlex({"A10": 1, "A11": 0})
    spun = _outcome("Irregular woodland ensembles")
    assert reference_signals(spun) == []  # one tortured phrase alone says nothing
    asked = await _ask(spun, SimpleNamespace(openalex=openalex))
    assert openalex.calls == [("A10", "A11")]  # the whole author set in one call
    assert asked.evidence.authorship == AuthorshipCheck(
        source="openalex",
        asked=("A10", "A11"),
        found=(AuthorWorks(id="A10", works_count=1), AuthorWorks(id="A11", works_count=0)),
    )
    [signal] = reference_signals(asked)
    assert signal.evidence["indicators"] == ["tortured_phrases", "authorship_not_found_elsewhere"]
    assert [a["works_count"] for a in signal.evidence["authors"]] == [1, 0]
    # Stored and read back (the writer of a queued job), the evidence is the same.
    stored = Evidence.model_validate(asked.evidence.model_dump(mode="json"))
    assert stored.authorship == asked.evidence.authorship
    # Asked once: a second pass does not ask again.
    assert (await _ask(asked, SimpleNamespace(openalex=openalex))).evidence is asked.evidence
    assert len(openalex.calls) == 1


async def test_an_established_author_in_the_set_keeps_it_silent() -> None:
    openalex = CountingOpenAlex({"A10": 1, "A11": 42})
    asked = await _ask(_outcome("Irregular woodland ensembles"), SimpleNamespace(openalex=openalex))
    assert asked.evidence.authorship is not None and asked.evidence.authorship.found_elsewhere() is True
    assert reference_signals(asked) == []
