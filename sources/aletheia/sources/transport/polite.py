"""Polite HTTP to one source: the `Transport` every source client is written against.

Per attempt: the circuit breaker is asked first; then a slot of the source's global concurrency
cap is taken and, inside it, the source's global GCRA bucket admits it, so a request leaves right
after it was admitted (admission first and then queueing for a slot would let requests pile up and
burst out when slots free). Requests are paced evenly at N per (window + jitter allowance + send
margin + late-wake slack), so a source counting "N per second" over a sliding window never sees
N + 1 (`politeness.request_pacing`, `gcra.pace`). `X-Rate-Limit-Limit` / `-Interval` headers lower the
pace to what the source advertises. Then the answer is classified:

    2xx                      the body (JSON that does not decode is a transient "malformed body")
    404                      None: not found is a result, not an error, when the body has the
                             shape the source documents for it (`not_found`); any other 404 is a
                             route the source does not have (wrong base URL): PermanentSourceError
    429                      RateLimitedError; the bucket is penalised for Retry-After seconds (or
                             one window) so every process holds off, and its shared rate is lowered
                             (`ratelimit`); the attempt is retried after that delay
    408, 5xx except 501      TransientSourceError: retried with full-jitter exponential backoff
    timeouts, resets, ...    TransientSourceError, likewise
    any other status         PermanentSourceError at once

Retries are bounded by attempts and by a total deadline; after the last attempt the last
TransientSourceError is raised. A Retry-After longer than `max_retry_after` is not slept through:
the RateLimitedError (with `retry_after`) is raised at once so a queue can retry with a countdown
(the policy: `retry_policy`).

Secrets never reach an error message: API-key query parameters are redacted from every URL shown,
and the values of secret parameters and headers are scrubbed from any text that is
(`request.Request.describe`). Transports are built from settings by `factory`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from tenacity.wait import wait_random_exponential

from aletheia.core.records import SourceName
from aletheia.sources.base import (
    BodyKind,
    PermanentSourceError,
    RateLimitedError,
    RequestKind,
    SourceError,
    SourceStats,
    SourceUnavailableError,
    TransientSourceError,
    Transport,
)
from aletheia.sources.transport.breaker import BreakerState, CircuitBreaker
from aletheia.sources.transport.gcra import JITTER_ALLOWANCE
from aletheia.sources.transport.item_stats import count, count_extra
from aletheia.sources.transport.not_found import documented_not_found
from aletheia.sources.transport.politeness import (
    PRIORITY,
    PriorityGate,
    parse_rate_limit_headers,
    parse_retry_after,
    request_pacing,
)
from aletheia.sources.transport.precedence import order_key
from aletheia.sources.transport.redaction import secret_values
from aletheia.sources.transport.request import (
    Request,
    exception_text,
    is_name_resolution_failure,
    read_bytes,
    read_json,
    read_text,
    reported_kind,
)
from aletheia.sources.transport.retry_policy import retrying
from aletheia.sources.transport.send_delay import SEND_GATE, Pacing, SentAt, acquire_in_time

# Bodies larger than this are decoded in a worker thread (see `_body`).
LARGE_BODY_BYTES = 256 * 1024

if TYPE_CHECKING:
    from aletheia.config.settings import SourceLimits
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = ["LARGE_BODY_BYTES", "PoliteTransport"]

T = TypeVar("T")

_READERS: dict[BodyKind, Callable[[httpx.Response], Any]] = {
    "json": read_json,
    "text": read_text,
    "bytes": read_bytes,
}

_TRANSIENT_STATUS = frozenset({408, 500, 502, 503, 504})
_PERMANENT_SERVER_STATUS = frozenset({501, 505})


class PoliteTransport(Transport):
    """`Transport` over one shared `httpx.AsyncClient` for one source (see the module docstring).

    `deadline` bounds the whole call, attempts and waits together (default: twice
    `timeout * attempts`); `max_retry_after` is the longest Retry-After slept through in place.
    `params` values of None are dropped, so clients can pass optional parameters as they are.
    """

    def __init__(
        self,
        source: SourceName | str,
        http: httpx.AsyncClient,
        *,
        base_url: str,
        limits: SourceLimits,
        limiter: RateLimiter,
        breaker: CircuitBreaker | None = None,
        headers: dict[str, str] | None = None,
        default_params: dict[str, str] | None = None,
        attempts: int = 4,
        timeout: float = 20.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        enabled: bool = True,
        deadline: float | None = None,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 120.0,
        jitter_allowance: float = JITTER_ALLOWANCE,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts!r}")
        self.source = SourceName(source)
        self.base_url = base_url.rstrip("/")
        self.stats = SourceStats(status="ok" if enabled else "disabled", source=self.source.value)
        self.enabled = enabled
        self.limits = limits
        self.limiter = limiter
        self._gate = PriorityGate(max(1, limits.concurrency))
        self.breaker = breaker
        self.attempts = attempts
        self.timeout = timeout
        self.deadline = deadline if deadline is not None else 2 * timeout * attempts
        self.max_retry_after = max_retry_after
        self.jitter_allowance = jitter_allowance
        self.advertised_rate: float | None = None  # from X-Rate-Limit-* headers, the latest seen
        self._http = http
        self._headers = dict(headers or {})
        self._default_params = dict(default_params or {})
        self._sleep = sleep
        self._backoff = wait_random_exponential(multiplier=backoff_initial, max=backoff_max)

    # --- one call: retries around attempts ----------------------------------------------------------

    async def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        kind: RequestKind,
        body: BodyKind,
        json: Any = None,
    ) -> Any | None:
        """The one call of the `Transport` protocol, whose `get_json`, `get_text`, `get_bytes` and
        `post_json` ask it."""
        if not self.enabled:
            self.stats.status = "disabled"
            raise SourceUnavailableError(self.source.value, "turned off (disabled in settings or offline)")
        merged_params = {k: v for k, v in {**self._default_params, **(params or {})}.items() if v is not None}
        merged_headers = {**self._headers, **(headers or {})}
        request = Request(
            method=method,
            url=self.base_url + path,
            params=merged_params,
            headers=merged_headers,
            json_body=json,
            kind=kind,
            secrets=secret_values(merged_params, merged_headers),
        )
        retry = retrying(
            attempts=self.attempts,
            deadline=self.deadline,
            max_retry_after=self.max_retry_after,
            backoff=self._backoff,
            sleep=self._sleep,
        )
        return await retry(self._attempt, request, _READERS[body])

    async def _attempt(self, request: Request, read: Callable[[httpx.Response], T]) -> T | None:
        if self.breaker is not None:
            try:
                self.breaker.before_call()
            except SourceUnavailableError as refused:
                self.stats.status = "unavailable"
                self.stats.last_error = str(refused)
                count_extra(self.stats, "circuit_refused")
                raise
        margin = await self.limiter.send_delays.margin(self.source.value)
        bucket, rate, burst, window = request_pacing(
            self.source.value,
            request.kind,
            self.limits,
            advertised=self.advertised_rate,
            jitter=self.jitter_allowance,
            send_margin=margin,
        )
        await self._gate.acquire(PRIORITY.get(request.kind, 1), order_key())
        try:
            return await self._send_in_slot(request, read, Pacing(bucket, rate, burst, window, margin))
        finally:
            self._gate.release()

    async def _send_in_slot(
        self, request: Request, read: Callable[[httpx.Response], T], pacing: Pacing
    ) -> T | None:
        async with self.limiter.slot(self.source.value, self.limits.concurrency):
            asked_at = await acquire_in_time(self.limiter, pacing, self.deadline, self.stats)
            count(self.stats, "requests")
            count_extra(self.stats, f"requests_{reported_kind(request.kind, request.params)}")
            sent = SentAt(SEND_GATE)
            try:
                response = await self._send(request, sent)
            finally:
                sent.release()  # headers written (the trace released it already) or failed
            if asked_at is not None and sent.at is not None:
                delay = sent.at - asked_at
                await self.limiter.send_delays.observe(self.source.value, delay)
                if delay > pacing.margin:
                    # Left later than paced for (a new connection on a busy loop: measured 0.25 s
                    # at a run's start): the next grant moves back as far, or the next request
                    # could arrive less than a window after this one (a 429). Before the slot is
                    # freed, so a source with one slot never grants its next request first.
                    await self.limiter.hold_back(pacing.bucket, delay - pacing.margin)
        return await self._classify(request, response, read, pacing.bucket, pacing.window)

    async def _send(self, request: Request, sent: SentAt) -> httpx.Response:
        """The request on the wire; a request that got no answer is a SourceError."""
        try:
            return await self._http.request(
                request.method,
                request.url,
                params=request.params,
                headers=request.headers,
                json=request.json_body,
                timeout=self.timeout,
                follow_redirects=True,
                extensions={"trace": sent.trace},
            )
        except (
            httpx.TooManyRedirects,
            httpx.UnsupportedProtocol,
            httpx.LocalProtocolError,
            httpx.InvalidURL,
        ) as exc:
            # Our request or the redirect chain is wrong: asking again cannot help, and the
            # source itself did not fail. (`from None`: httpx exceptions carry the request,
            # credentials included, and the message here says what happened.)
            raise self._failed(
                PermanentSourceError(self.source.value, request.describe(exception_text(exc)))
            ) from None
        except httpx.ConnectError as exc:
            if is_name_resolution_failure(exc):
                raise self._host_does_not_resolve(request) from None
            raise self._failed(
                TransientSourceError(self.source.value, request.describe(exception_text(exc))),
                source_failed=True,
            ) from None
        except httpx.RequestError as exc:  # timeouts, connection errors, resets, protocol errors
            raise self._failed(
                TransientSourceError(self.source.value, request.describe(exception_text(exc))),
                source_failed=True,
            ) from None

    def _host_does_not_resolve(self, request: Request) -> SourceUnavailableError:
        # The host does not resolve: no network here, or a wrong base URL. Retrying cannot help
        # for a while, so the circuit opens at once and every caller fails fast.
        if self.breaker is not None:
            self.breaker.trip()
        count(self.stats, "errors")
        self.stats.status = "unavailable"
        self.stats.last_error = "host does not resolve"
        return SourceUnavailableError(
            self.source.value, request.describe("host does not resolve (no network?)")
        )

    # --- one answer: a body, None, or an error --------------------------------------------------------

    async def _classify(
        self,
        request: Request,
        response: httpx.Response,
        read: Callable[[httpx.Response], T],
        bucket: str,
        window: float,
    ) -> T | None:
        status = response.status_code
        advertised = parse_rate_limit_headers(response.headers)
        if advertised is not None:
            self.advertised_rate = advertised
        if 200 <= status < 300:
            return await self._body(request, response, read)
        if status == 404:
            if documented_not_found(self.source, request.kind, response):
                self._succeeded()
                return None
            raise self._wrong_route(request)
        if status == 429:
            raise await self._rate_limited(request, response, bucket, window)
        if status in _TRANSIENT_STATUS or (status >= 500 and status not in _PERMANENT_SERVER_STATUS):
            raise self._failed(
                TransientSourceError(self.source.value, request.describe("server error"), status_code=status),
                source_failed=True,
            )
        self._record_answer()
        raise self._failed(
            PermanentSourceError(self.source.value, request.describe("request refused"), status_code=status)
        )

    async def _body(
        self, request: Request, response: httpx.Response, read: Callable[[httpx.Response], T]
    ) -> T | None:
        """A 2xx answer's body (None for a 204); one that does not decode is a transient error."""
        if response.status_code == 204:
            self._succeeded()
            return None
        try:
            # A large body (a page of 200 works: megabytes) is decoded off the event loop: held
            # on it, the decode would delay requests already admitted by the limiter and make
            # them reach the source closer together than paced (issue 11).
            if len(response.content) > LARGE_BODY_BYTES:
                async with SEND_GATE.decode():  # not while a granted request is on its way
                    body = await asyncio.to_thread(read, response)
            else:
                body = read(response)
        except ValueError as exc:  # JSON (and Unicode) decode errors are ValueErrors
            raise self._failed(
                TransientSourceError(
                    self.source.value,
                    request.describe(f"malformed body ({type(exc).__name__})"),
                    status_code=response.status_code,
                ),
                source_failed=True,
            ) from None
        self._succeeded()
        return body

    def _wrong_route(self, request: Request) -> SourceError:
        """A 404 that is not the source's own "no such record": a route it does not have (`not_found`)."""
        error = self._failed(
            PermanentSourceError(
                self.source.value,
                request.describe(
                    f'a 404 that is not {self.source.value}\'s own "no such record": '
                    f"is the base URL {self.base_url} right?"
                ),
                status_code=404,
            ),
            source_failed=True,
        )
        self.stats.status = "degraded"
        return error

    async def _rate_limited(
        self, request: Request, response: httpx.Response, bucket: str, window: float
    ) -> SourceError:
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        count(self.stats, "rate_limited")
        # Every process holds off, for what the source asked or else one window, and slows down.
        await self.limiter.penalize(bucket, retry_after if retry_after is not None else window)
        self._record_answer()  # a 429 shows the source is up; the penalty does the slowing down
        wait = f"retry after {retry_after:g}s" if retry_after is not None else "no Retry-After"
        return self._failed(
            RateLimitedError(
                self.source.value,
                request.describe(f"rate limited, {wait}"),
                status_code=429,
                retry_after=retry_after,
            )
        )

    # --- bookkeeping -----------------------------------------------------------------------------

    def _record_answer(self) -> None:
        if self.breaker is not None:
            self.breaker.record_success()

    def _succeeded(self) -> None:
        self._record_answer()
        self.stats.status = "ok"

    def _failed(self, error: SourceError, *, source_failed: bool = False) -> SourceError:
        """Count a failed attempt; `source_failed` marks failures that count toward the breaker."""
        count(self.stats, "errors")
        self.stats.last_error = str(error)
        if source_failed and self.breaker is not None:
            self.breaker.record_failure()
        if isinstance(error, TransientSourceError):
            open_now = self.breaker is not None and self.breaker.state is BreakerState.OPEN
            self.stats.status = "unavailable" if open_now else "degraded"
        return error
