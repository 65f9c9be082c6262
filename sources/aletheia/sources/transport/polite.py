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
the RateLimitedError (with `retry_after`) is raised at once so a queue can retry with a countdown.

Secrets never reach an error message: API-key query parameters are redacted from every URL shown,
and the values of secret parameters and headers are scrubbed from any text that is.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base
from tenacity.wait import wait_base, wait_random_exponential

from aletheia.core.records import SourceName
from aletheia.sources.base import (
    PermanentSourceError,
    RateLimitedError,
    RequestKind,
    SourceError,
    SourceStats,
    SourceUnavailableError,
    TransientSourceError,
)
from aletheia.sources.transport.breaker import BreakerState, CircuitBreaker
from aletheia.sources.transport.gcra import JITTER_ALLOWANCE
from aletheia.sources.transport.item_stats import count, count_extra
from aletheia.sources.transport.not_found import documented_not_found
from aletheia.sources.transport.politeness import (
    PRIORITY,
    PriorityGate,
    bucket_for,
    parse_rate_limit_headers,
    parse_retry_after,
    request_pacing,
)
from aletheia.sources.transport.redaction import (
    REDACTED,
    SECRET_HEADERS,
    SECRET_PARAMS,
    RedactingLogFilter,
    install_log_redaction,
    redact_text,
    redact_url,
    secret_values,
)
from aletheia.sources.transport.send_delay import SEND_GATE, Pacing, SentAt, acquire_in_time

# Bodies larger than this are decoded in a worker thread (see `_classify`).
LARGE_BODY_BYTES = 256 * 1024

if TYPE_CHECKING:
    from aletheia.config.settings import Settings, SourceLimits
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = [  # the politeness and redaction helpers moved out but stay importable from here
    "PRIORITY",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "PoliteTransport",
    "PriorityGate",
    "RedactingLogFilter",
    "bucket_for",
    "install_log_redaction",
    "parse_rate_limit_headers",
    "parse_retry_after",
    "redact_text",
    "redact_url",
    "request_pacing",
    "secret_values",
]

T = TypeVar("T")

_TRANSIENT_STATUS = frozenset({408, 500, 502, 503, 504})
_PERMANENT_SERVER_STATUS = frozenset({501, 505})


def _worth_retrying(error: BaseException) -> bool:
    # Our own bucket having no token in time (RateLimitedError without an HTTP status) is not the
    # source failing: retrying here would only queue longer. The caller decides (e.g. a countdown).
    if isinstance(error, RateLimitedError) and error.status_code is None:
        return False
    return isinstance(error, TransientSourceError)


class _StopOnLongRetryAfter(stop_base):
    """Give up at once when the source asks us to wait longer than we are willing to sleep."""

    def __init__(self, max_retry_after: float) -> None:
        self.max_retry_after = max_retry_after

    def __call__(self, retry_state: RetryCallState) -> bool:
        error = retry_state.outcome.exception() if retry_state.outcome is not None else None
        return (
            isinstance(error, RateLimitedError)
            and error.retry_after is not None
            and error.retry_after > self.max_retry_after
        )


class _StopPastDeadline(stop_base):
    """Stop before a wait that would end past the call's time budget.

    Like tenacity's `stop_before_delay`, but the time spent counts what was slept through the
    injected sleep too (`idle_for`), so the budget holds under a fake clock in tests as well.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        spent = max(retry_state.seconds_since_start or 0.0, retry_state.idle_for)
        return spent + retry_state.upcoming_sleep >= self.deadline


class _RetryAfterOrJitter(wait_base):
    """Wait what the source asked for (429 with Retry-After), else full-jitter exponential backoff."""

    def __init__(self, backoff: wait_base) -> None:
        self.backoff = backoff

    def __call__(self, retry_state: RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome is not None else None
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return error.retry_after
        return float(self.backoff(retry_state))


class PoliteTransport:
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

    @classmethod
    def from_settings(
        cls,
        source: SourceName | str,
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        *,
        base_url: str | None = None,
        headers: dict[str, str] | None = None,
        default_params: dict[str, str] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> PoliteTransport:
        """Limits, breaker, attempts, timeout and on/off from settings; base URL `<source>_url`."""
        name = SourceName(source)
        return cls(
            name,
            http,
            base_url=base_url if base_url is not None else getattr(settings, f"{name.value}_url"),
            limits=settings.limits_for(name.value),
            limiter=limiter,
            breaker=CircuitBreaker.from_settings(name.value, settings),
            headers=headers,
            default_params=default_params,
            attempts=settings.http_attempts,
            timeout=settings.http_timeout,
            sleep=sleep,
            enabled=not settings.offline and name.value not in settings.disabled,
        )

    # --- the Transport protocol -------------------------------------------------------------------

    async def get_json(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> Any | None:
        return await self._call("GET", path, params=params, headers=headers, kind=kind, read=_read_json)

    async def get_text(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> str | None:
        return await self._call("GET", path, params=params, headers=headers, kind=kind, read=_read_text)

    async def get_bytes(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "fulltext",
    ) -> bytes | None:
        return await self._call("GET", path, params=params, headers=headers, kind=kind, read=_read_bytes)

    async def post_json(
        self,
        path: str,
        *,
        json: Any,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "batch",
    ) -> Any | None:
        return await self._call(
            "POST", path, params=params, headers=headers, kind=kind, read=_read_json, json_body=json
        )

    # --- one call: retries around attempts ----------------------------------------------------------

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        kind: RequestKind,
        read: Callable[[httpx.Response], T],
        json_body: Any = None,
    ) -> T | None:
        if not self.enabled:
            self.stats.status = "disabled"
            raise SourceUnavailableError(self.source.value, "turned off (disabled in settings or offline)")
        merged_params = {k: v for k, v in {**self._default_params, **(params or {})}.items() if v is not None}
        merged_headers = {**self._headers, **(headers or {})}
        request = _Request(
            method=method,
            url=self.base_url + path,
            params=merged_params,
            headers=merged_headers,
            json_body=json_body,
            kind=kind,
            secrets=secret_values(merged_params, merged_headers),
        )
        retrying = AsyncRetrying(
            stop=(
                stop_after_attempt(self.attempts)
                | _StopPastDeadline(self.deadline)
                | _StopOnLongRetryAfter(self.max_retry_after)
            ),
            wait=_RetryAfterOrJitter(self._backoff),
            retry=retry_if_exception(_worth_retrying),
            sleep=self._sleep,
            reraise=True,
        )
        return await retrying(self._attempt, request, read)

    async def _attempt(self, request: _Request, read: Callable[[httpx.Response], T]) -> T | None:
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
        await self._gate.acquire(PRIORITY.get(request.kind, 1))
        try:
            return await self._send_in_slot(request, read, Pacing(bucket, rate, burst, window, margin))
        finally:
            self._gate.release()

    async def _send_in_slot(
        self, request: _Request, read: Callable[[httpx.Response], T], pacing: Pacing
    ) -> T | None:
        async with self.limiter.slot(self.source.value, self.limits.concurrency):
            asked_at = await acquire_in_time(self.limiter, pacing, self.deadline, self.stats)
            count(self.stats, "requests")
            count_extra(self.stats, f"requests_{reported_kind(request.kind, request.params)}")
            sent = SentAt(SEND_GATE)
            try:
                response = await self._http.request(
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
                    PermanentSourceError(self.source.value, self._describe(request, _exception_text(exc)))
                ) from None
            except httpx.ConnectError as exc:
                if _is_name_resolution_failure(exc):
                    # The host does not resolve: no network here, or a wrong base URL. Retrying cannot
                    # help for a while, so the circuit opens at once and every caller fails fast.
                    if self.breaker is not None:
                        self.breaker.trip()
                    count(self.stats, "errors")
                    self.stats.status = "unavailable"
                    self.stats.last_error = "host does not resolve"
                    raise SourceUnavailableError(
                        self.source.value, self._describe(request, "host does not resolve (no network?)")
                    ) from None
                raise self._failed(
                    TransientSourceError(self.source.value, self._describe(request, _exception_text(exc))),
                    source_failed=True,
                ) from None
            except httpx.RequestError as exc:  # timeouts, connection errors, resets, protocol errors
                raise self._failed(
                    TransientSourceError(self.source.value, self._describe(request, _exception_text(exc))),
                    source_failed=True,
                ) from None
            finally:
                sent.release()  # headers written (the trace released it already) or failed
            if asked_at is not None and sent.at is not None:
                await self.limiter.send_delays.observe(self.source.value, sent.at - asked_at)
        return await self._classify(request, response, read, pacing.bucket, pacing.window)

    async def _classify(
        self,
        request: _Request,
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
            if status == 204:
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
                        self._describe(request, f"malformed body ({type(exc).__name__})"),
                        status_code=status,
                    ),
                    source_failed=True,
                ) from None
            self._succeeded()
            return body
        if status == 404:
            if documented_not_found(self.source, request.kind, response):
                self._succeeded()
                return None
            # Not the source's own "no such record": a route it does not have (`not_found`).
            error = self._failed(
                PermanentSourceError(
                    self.source.value,
                    self._describe(
                        request,
                        f'a 404 that is not {self.source.value}\'s own "no such record": '
                        f"is the base URL {self.base_url} right?",
                    ),
                    status_code=404,
                ),
                source_failed=True,
            )
            self.stats.status = "degraded"
            raise error
        if status == 429:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            count(self.stats, "rate_limited")
            # Every process holds off, for what the source asked or else one window, and slows down.
            await self.limiter.penalize(bucket, retry_after if retry_after is not None else window)
            self._record_answer()  # a 429 shows the source is up; the penalty does the slowing down
            wait = f"retry after {retry_after:g}s" if retry_after is not None else "no Retry-After"
            raise self._failed(
                RateLimitedError(
                    self.source.value,
                    self._describe(request, f"rate limited, {wait}"),
                    status_code=429,
                    retry_after=retry_after,
                )
            )
        if status in _TRANSIENT_STATUS or (status >= 500 and status not in _PERMANENT_SERVER_STATUS):
            raise self._failed(
                TransientSourceError(
                    self.source.value, self._describe(request, "server error"), status_code=status
                ),
                source_failed=True,
            )
        self._record_answer()
        raise self._failed(
            PermanentSourceError(
                self.source.value, self._describe(request, "request refused"), status_code=status
            )
        )

    # --- bookkeeping -----------------------------------------------------------------------------

    def _describe(self, request: _Request, what: str) -> str:
        try:
            shown = redact_url(httpx.URL(request.url, params=request.params))
        except (httpx.InvalidURL, TypeError, ValueError):
            shown = request.url
        return redact_text(f"{request.method} {shown}: {what}", request.secrets)

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


def _is_name_resolution_failure(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(6):  # httpx -> httpcore -> socket.gaierror
        if seen is None:
            return False
        if isinstance(seen, socket.gaierror):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def reported_kind(kind: RequestKind, params: Mapping[str, Any] | None) -> str:
    """A request's kind as reported (`stats.extra["requests_<kind>"]`, one per request sent,
    retries included): `single` is a lookup; Crossref's `filter=doi:a,doi:b` list query is a batch
    of lookups even though it draws from the search bucket."""
    if kind == "single":
        return "lookup"
    if kind == "search" and params and str(params.get("filter", "")).startswith("doi:"):
        return "batch"
    return kind


class _Request:
    """One call's fixed parts, shared by its attempts."""

    __slots__ = ("headers", "json_body", "kind", "method", "params", "secrets", "url")

    def __init__(
        self,
        *,
        method: str,
        url: str,
        params: dict[str, Any],
        headers: dict[str, str],
        json_body: Any,
        kind: RequestKind,
        secrets: tuple[str, ...],
    ) -> None:
        self.method = method
        self.url = url
        self.params = params
        self.headers = headers
        self.json_body = json_body
        self.kind = kind
        self.secrets = secrets


def _exception_text(exc: Exception) -> str:
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _read_json(response: httpx.Response) -> Any:
    return jsonlib.loads(response.content)


def _read_text(response: httpx.Response) -> str:
    return response.text


def _read_bytes(response: httpx.Response) -> bytes:
    return response.content
