"""PoliteTransport against scripted answers (httpx.MockTransport), on a fake clock."""

from __future__ import annotations

import pickle
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.base import (
    PermanentSourceError,
    RateLimitedError,
    SourceError,
    SourceParseError,
    SourceUnavailableError,
    TransientSourceError,
    Transport,
)
from aletheia.sources.transport.breaker import BreakerState, CircuitBreaker
from aletheia.sources.transport.factory import transport_from_settings
from aletheia.sources.transport.gcra import SEND_MARGIN
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.politeness import bucket_for, parse_rate_limit_headers, parse_retry_after
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.transport.redaction import redact_text, redact_url
from tests.unit.fake_clock import FakeClock

LIMITS = SourceLimits(rate=10, burst=10, concurrency=3, search_rate=3)
BASE = "https://api.example.org/"

Answer = httpx.Response | Exception


class Script:
    """Answers requests in order (the last answer repeats) and keeps every request it saw."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


class RecordingLimiter(LocalRateLimiter):
    """The in-process limiter, noting which buckets and slots were asked for."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock, sleep=clock.sleep)
        self.buckets: list[tuple[str, float, int]] = []
        self.slots: list[tuple[str, int]] = []

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> float:
        self.buckets.append((bucket, rate, burst))  # once per request, however long it waits
        return await super().acquire(bucket, rate, burst, max_wait=max_wait)

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        self.slots.append((source, limit))
        return super().slot(source, limit)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def limiter(clock: FakeClock) -> RecordingLimiter:
    return RecordingLimiter(clock)


Factory = Callable[..., PoliteTransport]


@pytest.fixture
async def make(clock: FakeClock, limiter: RecordingLimiter) -> AsyncIterator[Factory]:
    clients: list[httpx.AsyncClient] = []

    def build(script: Script, **overrides: Any) -> PoliteTransport:
        http = httpx.AsyncClient(transport=httpx.MockTransport(script))
        clients.append(http)
        options: dict[str, Any] = {
            "base_url": BASE,
            "limits": LIMITS,
            "limiter": limiter,
            "sleep": clock.sleep,
            "default_params": {"mailto": "team@example.org"},
        }
        options.update(overrides)
        return PoliteTransport("crossref", http, **options)

    yield build
    for http in clients:
        await http.aclose()


def state_of(breaker: CircuitBreaker) -> BreakerState:
    """Read afresh each time (a direct `breaker.state` would be narrowed by mypy after a check)."""
    return breaker.state


def ok(body: Any) -> httpx.Response:
    return httpx.Response(200, json=body)


# --- answers --------------------------------------------------------------------------------------


async def test_a_record_is_fetched_from_base_url_plus_path_with_default_params(make: Factory) -> None:
    script = Script(ok({"message": {"DOI": "10.1/x"}}))
    transport = make(script)
    body = await transport.get_json("/works/10.1/x", params={"select": "DOI", "rows": None})
    assert body == {"message": {"DOI": "10.1/x"}}
    sent = script.requests[0]
    assert str(sent.url) == "https://api.example.org/works/10.1/x?mailto=team%40example.org&select=DOI"
    assert (transport.stats.requests, transport.stats.errors, transport.stats.status) == (1, 0, "ok")


async def test_a_doi_list_query_is_counted_as_a_batch(make: Factory) -> None:
    transport = make(Script(ok({}), ok({})))
    await transport.get_json("/works", params={"filter": "doi:10.1/a,doi:10.1/b"}, kind="search")
    await transport.get_json("/works", params={"query.bibliographic": "x"}, kind="search")
    assert transport.stats.extra == {"requests_batch": 1, "requests_search": 1}


async def test_the_transport_satisfies_the_protocol(make: Factory) -> None:
    transport: Transport = make(Script(ok({})))
    assert transport.base_url == "https://api.example.org"


async def test_not_found_is_none_not_an_error(make: Factory) -> None:
    transport = make(Script(httpx.Response(404, text="Resource not found.")))  # Crossref's own
    assert await transport.get_json("/works/10.1/missing") is None
    assert (transport.stats.requests, transport.stats.errors) == (1, 0)


async def test_a_404_in_another_shape_is_a_route_the_source_lacks(make: Factory) -> None:
    """Issue 20 (`not_found`): a wrong base URL's 404 is a failed request, never "no such work"."""
    transport = make(Script(httpx.Response(404, json={"status": "error"})))
    with pytest.raises(PermanentSourceError) as raised:
        await transport.get_json("/works/10.1/missing")
    assert raised.value.status_code == 404
    assert (transport.stats.errors, transport.stats.status) == (1, "degraded")


async def test_no_content_is_none(make: Factory) -> None:
    assert await make(Script(httpx.Response(204))).get_json("/x") is None


async def test_text_bytes_and_post(make: Factory) -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, content=b'{"echo": ' + request.content + b"}")
        return httpx.Response(
            200, content="Zoë <b>".encode(), headers={"Content-Type": "text/html; charset=utf-8"}
        )

    transport = make(Script(httpx.Response(500)))
    transport._http = httpx.AsyncClient(transport=httpx.MockTransport(echo))
    assert await transport.get_text("/abs/2502.03801") == "Zoë <b>"
    assert await transport.get_bytes("/pdf/2502.03801") == "Zoë <b>".encode()
    assert await transport.post_json("/paper/batch", json={"ids": ["a"]}) == {"echo": {"ids": ["a"]}}
    await transport._http.aclose()


# --- retries --------------------------------------------------------------------------------------


async def test_429_is_honoured_the_bucket_penalised_and_the_call_retried(
    make: Factory, clock: FakeClock, limiter: RecordingLimiter
) -> None:
    script = Script(httpx.Response(429, headers={"Retry-After": "7"}), ok({"n": 1}))
    transport = make(script)
    assert await transport.get_json("/works") == {"n": 1}
    assert clock.sleeps == [7.0]
    assert (transport.stats.requests, transport.stats.rate_limited, transport.stats.errors) == (2, 1, 1)
    assert transport.stats.status == "ok"


async def test_429_penalty_reaches_other_callers_of_the_bucket(
    make: Factory, clock: FakeClock, limiter: RecordingLimiter
) -> None:
    transport = make(Script(httpx.Response(429, headers={"Retry-After": "500"})))
    with pytest.raises(RateLimitedError) as raised:
        await transport.get_json("/works")
    # Longer than max_retry_after (120 s): not slept through here, handed to the queue instead.
    assert raised.value.retry_after == 500.0
    assert raised.value.status_code == 429
    assert clock.sleeps == []
    assert await limiter.try_acquire("crossref:single", 10, 10) == pytest.approx(500.0)


async def test_429_without_retry_after_backs_off_with_jitter(make: Factory, clock: FakeClock) -> None:
    transport = make(Script(httpx.Response(429), ok([])), backoff_initial=0.5)
    assert await transport.get_json("/works") == []
    # A jittered backoff first; the penalty (one second at least) then holds the next token
    # until it lifts, whatever the jitter drew.
    assert 0.0 <= clock.sleeps[0] <= 0.5
    assert sum(clock.sleeps) >= 1.0 - 1e-9


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408])
async def test_transient_statuses_are_retried_with_full_jitter(
    make: Factory, clock: FakeClock, status: int
) -> None:
    script = Script(httpx.Response(status), httpx.Response(status), ok({"ok": True}))
    # A bucket so fast that it never adds a wait of its own to the backoff's.
    fast = SourceLimits(rate=1e7, burst=1, concurrency=3)
    transport = make(script, backoff_initial=0.5, backoff_max=30.0, limits=fast)
    assert await transport.get_json("/works/10.1/x") == {"ok": True}
    assert len(script.requests) == 3
    first, second = clock.sleeps
    assert 0.0 <= first <= 0.5 and 0.0 <= second <= 1.0  # random within a doubling window
    assert (transport.stats.requests, transport.stats.errors, transport.stats.status) == (3, 2, "ok")
    assert transport.stats.last_error is not None and f"HTTP {status}" in transport.stats.last_error
    assert transport.stats.extra["requests_lookup"] == 3  # by kind, retries included


async def test_a_malformed_body_on_200_is_retried(make: Factory) -> None:
    script = Script(httpx.Response(200, content=b'{"message": {"DOI"'), ok({"message": {}}))
    transport = make(script)
    assert await transport.get_json("/works/10.1/x") == {"message": {}}
    assert len(script.requests) == 2


@pytest.mark.parametrize(
    "failure",
    [
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("read timed out"),
        httpx.ConnectTimeout("connect timed out"),
        httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
        httpx.ReadError("connection reset by peer"),
    ],
)
async def test_network_failures_are_retried(make: Factory, failure: Exception) -> None:
    script = Script(failure, ok({"ok": 1}))
    assert await make(script).get_json("/works") == {"ok": 1}
    assert len(script.requests) == 2


async def test_retries_are_bounded_and_the_last_transient_error_is_raised(make: Factory) -> None:
    script = Script(httpx.Response(503))
    transport = make(script, attempts=4)
    with pytest.raises(TransientSourceError) as raised:
        await transport.get_json("/works")
    assert raised.value.status_code == 503
    assert len(script.requests) == 4
    assert (transport.stats.requests, transport.stats.errors, transport.stats.status) == (4, 4, "degraded")


async def test_the_deadline_stops_retries_early(make: Factory) -> None:
    script = Script(httpx.Response(429, headers={"Retry-After": "50"}))
    transport = make(script, attempts=10, deadline=60.0)
    with pytest.raises(RateLimitedError):
        await transport.get_json("/works")
    assert len(script.requests) == 2  # a third wait would end past the 60 s budget


@pytest.mark.parametrize("status", [400, 401, 403, 410, 422])
async def test_other_4xx_fail_at_once(make: Factory, clock: FakeClock, status: int) -> None:
    script = Script(httpx.Response(status))
    transport = make(script)
    with pytest.raises(PermanentSourceError) as raised:
        await transport.get_json("/works")
    assert raised.value.status_code == status
    assert len(script.requests) == 1 and clock.sleeps == []
    assert (transport.stats.errors, transport.stats.status) == (1, "ok")


@pytest.mark.parametrize(
    "failure", [httpx.TooManyRedirects("too many"), httpx.UnsupportedProtocol("ftp"), httpx.InvalidURL("bad")]
)
async def test_request_side_failures_are_permanent(make: Factory, failure: Exception) -> None:
    script = Script(failure)
    with pytest.raises(PermanentSourceError):
        await make(script).get_json("/works")
    assert len(script.requests) == 1


async def test_no_token_in_time_from_our_own_bucket_is_not_retried(
    make: Factory, clock: FakeClock, limiter: RecordingLimiter
) -> None:
    await limiter.penalize("crossref:single", 1000.0)
    script = Script(ok({}))
    with pytest.raises(RateLimitedError) as raised:
        await make(script, deadline=10.0).get_json("/works")
    assert raised.value.status_code is None and raised.value.retry_after == pytest.approx(1000.0)
    assert script.requests == [] and clock.sleeps == []


# --- politeness -----------------------------------------------------------------------------------


async def test_buckets_and_slots_by_kind(make: Factory, limiter: RecordingLimiter) -> None:
    transport = make(Script(ok({})))
    await transport.get_json("/works", kind="search")
    await transport.get_json("/works/10.1/x")
    await transport.get_bytes("/pdf")
    # N per (1 s + 50 ms jitter allowance + 20 ms send margin + 20 ms late-wake slack), evenly
    # spaced with a tolerance of the 20 ms slack only: 3/s searches, 10/s the rest.
    assert limiter.buckets == [
        ("crossref:search", pytest.approx(3 / 1.09), pytest.approx(1 + 0.02 * 3 / 1.09)),
        ("crossref:single", pytest.approx(10 / 1.09), pytest.approx(1 + 0.02 * 10 / 1.09)),
        ("crossref:single", pytest.approx(10 / 1.09), pytest.approx(1 + 0.02 * 10 / 1.09)),
    ]
    assert limiter.slots == [("crossref", 3)] * 3


def test_a_source_without_a_search_rate_searches_from_its_one_bucket() -> None:
    assert bucket_for("openalex", "search", SourceLimits(rate=10)) == ("openalex:single", 10.0)
    assert bucket_for("semantic_scholar", "batch", SourceLimits(rate=1)) == ("semantic_scholar:single", 1.0)


async def test_one_request_per_window_is_paced_at_the_window_plus_the_jitter_margin(
    make: Factory, clock: FakeClock
) -> None:
    transport = make(Script(ok({})), limits=SourceLimits(rate=1 / 3, burst=1, concurrency=1))
    for _ in range(3):
        await transport.get_json("/api/query")
    # arXiv: one per 3 s, paced at one per 3 s + the jitter allowance (50 ms) + the send margin
    # (20 ms), with no late-wake slack.
    assert sum(clock.sleeps) == pytest.approx(2 * 3.07, abs=1e-5)


async def test_requests_are_evenly_spaced_with_no_undocumented_burst(make: Factory, clock: FakeClock) -> None:
    transport = make(Script(ok({})), limits=SourceLimits(rate=10, burst=10, concurrency=3))
    start = clock.now
    for _ in range(10):
        await transport.get_json("/works/1")
    # A token bucket let ten go at once and ten more within the same second; now one every 0.109 s
    # (the second 20 ms early: the late-wake slack, counted in the interval).
    assert clock.sleeps == [pytest.approx(0.089, abs=1e-5)] + [pytest.approx(0.109, abs=1e-5)] * 8
    assert clock.now - start == pytest.approx(0.961, abs=1e-4)


async def test_a_burst_above_the_rate_is_taken_as_documented(
    make: Factory, limiter: RecordingLimiter
) -> None:
    transport = make(Script(ok({})), limits=SourceLimits(rate=10, burst=15, concurrency=3))
    await transport.get_json("/works/1")
    assert limiter.buckets == [
        ("crossref:single", pytest.approx(10 / 1.09), pytest.approx(6 + 0.02 * 10 / 1.09))
    ]


async def test_the_jitter_allowance_is_a_parameter(make: Factory, limiter: RecordingLimiter) -> None:
    await make(Script(ok({})), jitter_allowance=0.0).get_json("/works/1")
    # Only the send margin and the slack are left (`gcra.SEND_MARGIN`, `gcra.LATE_WAKE_SLACK`).
    assert limiter.buckets == [
        ("crossref:single", pytest.approx(10 / 1.04), pytest.approx(1 + 0.02 * 10 / 1.04))
    ]


async def test_advertised_rate_limit_headers_lower_the_pace(
    make: Factory, clock: FakeClock, limiter: RecordingLimiter
) -> None:
    lower = {"X-Rate-Limit-Limit": "5", "X-Rate-Limit-Interval": "1s"}
    higher = {"X-Rate-Limit-Limit": "50", "X-Rate-Limit-Interval": "1s"}
    answers = [httpx.Response(200, json={}, headers=h) for h in (lower, lower, higher, higher)]
    script = Script(*answers)
    transport = make(script)
    await transport.get_json("/works/1")
    assert transport.advertised_rate == 5.0
    await transport.get_json("/works/2", kind="search")  # 3/s stays below the advertised 5/s
    await transport.get_json("/works/3")  # Crossref now says 50/s: never above the documented 10/s
    await transport.get_json("/works/4")
    assert [b[1] for b in limiter.buckets] == [
        pytest.approx(10 / 1.09),
        pytest.approx(3 / 1.09),
        pytest.approx(5 / 1.09),
        pytest.approx(10 / 1.09),
    ]


@pytest.mark.parametrize(
    ("headers", "rate"),
    [
        ({"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"}, 50.0),
        ({"x-rate-limit-limit": "3", "x-rate-limit-interval": "1"}, 3.0),
        ({"x-rate-limit-limit": "60", "x-rate-limit-interval": "1m"}, 1.0),
        ({"x-rate-limit-limit": "5", "x-rate-limit-interval": "500ms"}, 10.0),
        ({"x-rate-limit-limit": "50"}, None),
        ({"x-rate-limit-limit": "lots", "x-rate-limit-interval": "1s"}, None),
        ({"x-rate-limit-limit": "0", "x-rate-limit-interval": "1s"}, None),
        ({"x-rate-limit-limit": "5", "x-rate-limit-interval": "soon"}, None),
        ({"x-rate-limit-limit": "5", "x-rate-limit-interval": "0s"}, None),
    ],
)
def test_rate_limit_headers_are_read(headers: dict[str, str], rate: float | None) -> None:
    assert parse_rate_limit_headers(httpx.Headers(headers)) == rate


async def test_a_429_lowers_the_shared_rate_and_blocks_one_window_without_retry_after(
    make: Factory, clock: FakeClock, limiter: RecordingLimiter
) -> None:
    transport = make(Script(httpx.Response(429), ok({})), limits=SourceLimits(rate=1 / 3, concurrency=1))
    started = clock.now
    assert await transport.get_json("/api/query") == {}
    assert await limiter.rate_fraction("crossref:single") == pytest.approx(0.5, abs=1e-3)
    assert clock.now - started >= 3.0 - 1e-9  # one window of "one per 3 s"
    with pytest.raises(RateLimitedError):  # the next request waits for the halved rate: 6.2 s
        await make(Script(ok({})), limits=SourceLimits(rate=1 / 3, concurrency=1), deadline=6.0).get_json(
            "/q"
        )


# --- circuit breaker and switches -----------------------------------------------------------------


async def test_the_circuit_opens_after_the_threshold_and_stops_sending(
    make: Factory, clock: FakeClock
) -> None:
    breaker = CircuitBreaker("crossref", failure_threshold=3, reset_seconds=30.0, clock=clock)
    script = Script(httpx.Response(503))
    transport = make(script, breaker=breaker, attempts=1)
    for _ in range(3):
        with pytest.raises(TransientSourceError):
            await transport.get_json("/works")
    assert state_of(breaker) is BreakerState.OPEN and transport.stats.status == "unavailable"
    with pytest.raises(SourceUnavailableError):
        await transport.get_json("/works")
    assert len(script.requests) == 3
    assert transport.stats.extra["circuit_refused"] == 1
    clock.advance(30)
    script.answers = [ok({"back": True})]
    assert await transport.get_json("/works") == {"back": True}  # the half-open probe
    assert state_of(breaker) is BreakerState.CLOSED and transport.stats.status == "ok"


async def test_a_circuit_opening_mid_call_ends_the_retries(make: Factory, clock: FakeClock) -> None:
    breaker = CircuitBreaker("crossref", failure_threshold=2, reset_seconds=30.0, clock=clock)
    script = Script(httpx.Response(502))
    with pytest.raises(SourceUnavailableError):
        await make(script, breaker=breaker, attempts=4).get_json("/works")
    assert len(script.requests) == 2


async def test_4xx_and_429_answers_keep_the_circuit_closed(make: Factory, clock: FakeClock) -> None:
    breaker = CircuitBreaker("crossref", failure_threshold=2, reset_seconds=30.0, clock=clock)
    not_found = httpx.Response(404, text="Resource not found.")
    script = Script(httpx.Response(503), httpx.Response(400), httpx.Response(503), not_found)
    transport = make(script, breaker=breaker, attempts=1)
    for _ in range(3):
        with pytest.raises(SourceError):
            await transport.get_json("/works")
    assert await transport.get_json("/works") is None
    assert breaker.state is BreakerState.CLOSED


async def test_a_disabled_source_sends_nothing(make: Factory) -> None:
    script = Script(ok({}))
    transport = make(script, enabled=False)
    assert transport.stats.status == "disabled"
    with pytest.raises(SourceUnavailableError, match="turned off"):
        await transport.get_json("/works")
    assert script.requests == []


async def test_from_settings(limiter: RecordingLimiter) -> None:
    async with httpx.AsyncClient() as http:
        default = transport_from_settings("crossref", http, Settings(_env_file=None), limiter)
        assert default.enabled and default.base_url == "https://api.crossref.org"
        assert default.limits.search_rate == 3 and default.breaker is not None
        turned_off = Settings(_env_file=None, disabled_sources="pubmed, crossref")
        assert not transport_from_settings("crossref", http, turned_off, limiter).enabled
        offline = Settings(_env_file=None, offline=True)
        assert not transport_from_settings("openalex", http, offline, limiter).enabled


# --- secrets --------------------------------------------------------------------------------------

SECRET_PARAM = "sekrit-param-4711"
SECRET_HEADER = "hdr-secret-0815"


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(403),
        httpx.Response(503),
        httpx.ConnectError(f"cannot reach https://api.example.org/works?api_key={SECRET_PARAM}"),
        httpx.ReadError(f"reset while sending x-api-key: {SECRET_HEADER}"),
    ],
)
async def test_secrets_never_reach_error_messages(make: Factory, answer: Answer) -> None:
    transport = make(
        Script(answer),
        attempts=1,
        default_params={"api_key": SECRET_PARAM, "mailto": "team@example.org"},
        headers={"x-api-key": SECRET_HEADER},
    )
    with pytest.raises(SourceError) as raised:
        await transport.get_json("/works", params={"filter": "doi:10.1/x"})
    shown = [str(raised.value), repr(raised.value), transport.stats.last_error or ""]
    for text in shown:
        assert SECRET_PARAM not in text and SECRET_HEADER not in text
    assert "mailto=team%40example.org" in str(raised.value)  # not a secret, useful when debugging


def test_redact_url_keeps_everything_but_credentials() -> None:
    url = "https://u:pw@api.example.org/x?api_key=abc123&q=graph+theory&ApiKey=zzz&key=k1k1"
    assert redact_url(url) == (
        "https://u:REDACTED@api.example.org/x?api_key=REDACTED&q=graph+theory&ApiKey=REDACTED&key=REDACTED"
    )
    assert redact_url("https://api.example.org/x") == "https://api.example.org/x"


@given(st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-_", min_size=6, max_size=40))
def test_redact_url_never_shows_an_api_key(secret: str) -> None:
    url = httpx.URL("https://api.example.org/works", params={"api_key": secret, "q": "a b"})
    shown = redact_url(url)
    assert httpx.URL(shown).params["api_key"] == "REDACTED"
    assert secret not in shown.replace("REDACTED", " ")


def test_redact_text_scrubs_known_values_and_key_assignments() -> None:
    text = "failed: token=abcdef monkey=banana; header carried s3cr3t-value"
    expected = "failed: token=REDACTED monkey=banana; header carried REDACTED"
    assert redact_text(text, ["s3cr3t-value"]) == expected


# --- Retry-After ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("120", 120.0),
        (" 3 ", 3.0),
        ("1.5", 1.5),
        ("-4", 0.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 30.0),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", 30.0),
        ("Wed Oct 21 07:28:00 2015", 30.0),
        ("Wed, 21 Oct 2015 07:00:00 GMT", 0.0),
        ("soon", None),
        ("nan", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_as_seconds_or_http_date(header: str | None, seconds: float | None) -> None:
    now = datetime(2015, 10, 21, 7, 27, 30, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == seconds


# --- errors cross process boundaries --------------------------------------------------------------

ERRORS: list[SourceError] = [
    SourceError("crossref", "odd", 418),
    TransientSourceError("openalex", "GET https://api.openalex.org/works: server error", 503),
    RateLimitedError("semantic_scholar", "rate limited", 429, retry_after=12.5),
    RateLimitedError("crossref", "no token in bucket", status_code=None, retry_after=None),
    PermanentSourceError("pubmed", "request refused", 400),
    SourceParseError("arxiv", "feed without entries"),
    SourceUnavailableError("crossref", "circuit open"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_every_error_survives_pickling(error: SourceError) -> None:
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 (our own bytes, as Celery carries them)
    assert type(copy) is type(error)
    assert vars(copy) == vars(error)
    assert str(copy) == str(error)


async def test_errors_raised_by_the_transport_survive_pickling(make: Factory) -> None:
    raised: list[SourceError] = []
    for answer in [
        httpx.Response(429, headers={"Retry-After": "999"}),
        httpx.Response(500),
        httpx.Response(401),
    ]:
        with pytest.raises(SourceError) as caught:
            await make(Script(answer), attempts=1).get_json("/works")
        raised.append(caught.value)
    for error in raised:
        copy = pickle.loads(pickle.dumps(error))  # noqa: S301 (our own bytes)
        assert type(copy) is type(error) and vars(copy) == vars(error)


def _unresolvable() -> httpx.ConnectError:
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as cause:
            raise httpx.ConnectError("[Errno -2] Name or service not known") from cause
    except httpx.ConnectError as exc:
        return exc


async def test_a_host_that_does_not_resolve_fails_fast_and_opens_the_circuit(
    make: Factory, clock: FakeClock
) -> None:
    breaker = CircuitBreaker("crossref", failure_threshold=5, reset_seconds=30, clock=clock)
    script = Script(_unresolvable())
    transport = make(script, breaker=breaker, attempts=4)
    with pytest.raises(SourceUnavailableError, match="does not resolve"):
        await transport.get_json("/works/10.1/x")
    assert len(script.requests) == 1  # no retries against a name that does not resolve
    assert state_of(breaker) is BreakerState.OPEN
    with pytest.raises(SourceUnavailableError):  # later callers do not even try
        await transport.get_json("/works/10.1/y")
    assert len(script.requests) == 1


async def test_a_large_body_is_decoded_off_the_event_loop_to_the_same_value(make: Factory) -> None:
    # Issue 11: a page of 200 works decoded on the loop held admitted requests back.
    from aletheia.sources.transport.polite import LARGE_BODY_BYTES

    big = {"results": [{"title": "x" * 1000, "n": n} for n in range(LARGE_BODY_BYTES // 1000 + 10)]}
    broken = httpx.Response(200, content=b"{" + b" " * LARGE_BODY_BYTES)
    transport = make(Script(ok(big), broken))
    assert await transport.get_json("/works") == big
    with pytest.raises(TransientSourceError, match="malformed body"):
        await transport.get_json("/works")


class LateGrantLimiter(RecordingLimiter):
    """Its first grant comes back long after it was asked for (a busy event loop or GIL)."""

    def __init__(self, clock: FakeClock, late: int) -> None:
        super().__init__(clock)
        self.late = late

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> float:
        asked_at = await super().acquire(bucket, rate, burst, max_wait=max_wait)
        if self.late:
            self.late -= 1
            return asked_at - 10 * SEND_MARGIN
        return asked_at


async def test_a_grant_older_than_the_send_margin_is_given_up_for_a_new_one(
    make: Factory, clock: FakeClock
) -> None:
    late = LateGrantLimiter(clock, late=2)
    script = Script(ok({"ok": True}))
    transport = make(script, limiter=late)
    assert await transport.get_json("works/10.1/x") == {"ok": True}
    # Three grants, one request: the two stale grants were not used to send.
    assert len(late.buckets) == 3
    assert len(script.requests) == 1
    assert transport.stats.extra["late_grants"] == 2
    assert transport.stats.requests == 1


async def test_a_grant_used_in_time_is_used_once(make: Factory, limiter: RecordingLimiter) -> None:
    script = Script(ok({"ok": True}))
    transport = make(script)
    await transport.get_json("works/10.1/x")
    assert len(limiter.buckets) == 1 and "late_grants" not in transport.stats.extra
