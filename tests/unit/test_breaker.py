"""The circuit breaker's states, on a fake clock."""

from __future__ import annotations

import pickle

import pytest

from aletheia.config.settings import Settings
from aletheia.sources.base import SourceUnavailableError
from aletheia.sources.transport.breaker import BreakerState, CircuitBreaker
from tests.unit.fake_clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock: FakeClock) -> CircuitBreaker:
    return CircuitBreaker("crossref", failure_threshold=3, reset_seconds=30.0, clock=clock)


def state_of(breaker: CircuitBreaker) -> BreakerState:
    """Read afresh each time (a direct `breaker.state` would be narrowed by mypy after a check)."""
    return breaker.state


def fail(breaker: CircuitBreaker, times: int) -> None:
    for _ in range(times):
        breaker.before_call()
        breaker.record_failure()


def test_opens_after_the_threshold_of_consecutive_failures(breaker: CircuitBreaker) -> None:
    fail(breaker, 2)
    assert state_of(breaker) is BreakerState.CLOSED
    fail(breaker, 1)
    assert state_of(breaker) is BreakerState.OPEN
    with pytest.raises(SourceUnavailableError, match="circuit open") as raised:
        breaker.before_call()
    assert raised.value.source == "crossref"


def test_a_success_resets_the_count(breaker: CircuitBreaker) -> None:
    fail(breaker, 2)
    breaker.record_success()
    fail(breaker, 2)
    assert state_of(breaker) is BreakerState.CLOSED
    assert breaker.consecutive_failures == 2


def test_half_open_after_the_reset_period_lets_one_probe_through(
    breaker: CircuitBreaker, clock: FakeClock
) -> None:
    fail(breaker, 3)
    clock.advance(29.9)
    assert state_of(breaker) is BreakerState.OPEN
    clock.advance(0.2)
    assert state_of(breaker) is BreakerState.HALF_OPEN
    breaker.before_call()  # the probe
    with pytest.raises(SourceUnavailableError, match="probe"):
        breaker.before_call()


def test_a_successful_probe_closes_the_circuit(breaker: CircuitBreaker, clock: FakeClock) -> None:
    fail(breaker, 3)
    clock.advance(30)
    breaker.before_call()
    breaker.record_success()
    assert state_of(breaker) is BreakerState.CLOSED
    breaker.before_call()
    breaker.before_call()


def test_a_failed_probe_opens_it_for_another_full_period(breaker: CircuitBreaker, clock: FakeClock) -> None:
    fail(breaker, 3)
    clock.advance(30)
    breaker.before_call()
    breaker.record_failure()
    assert state_of(breaker) is BreakerState.OPEN
    clock.advance(29)
    assert state_of(breaker) is BreakerState.OPEN
    clock.advance(1)
    assert state_of(breaker) is BreakerState.HALF_OPEN


def test_a_probe_that_never_reports_back_is_replaced(breaker: CircuitBreaker, clock: FakeClock) -> None:
    fail(breaker, 3)
    clock.advance(30)
    breaker.before_call()  # its caller was cancelled and never recorded an outcome
    clock.advance(30)
    breaker.before_call()  # a new probe is allowed rather than the breaker staying wedged


def test_thresholds_come_from_settings(clock: FakeClock) -> None:
    config = Settings(_env_file=None, circuit_failure_threshold=2, circuit_reset_seconds=5.0)
    breaker = CircuitBreaker.from_settings("openalex", config, clock=clock)
    fail(breaker, 2)
    assert state_of(breaker) is BreakerState.OPEN
    clock.advance(5)
    assert state_of(breaker) is BreakerState.HALF_OPEN


@pytest.mark.parametrize(("threshold", "reset"), [(0, 1.0), (1, 0.0)])
def test_nonsense_settings_are_refused(threshold: int, reset: float) -> None:
    with pytest.raises(ValueError, match="must be"):
        CircuitBreaker("x", failure_threshold=threshold, reset_seconds=reset)


def test_the_open_circuit_error_survives_pickling(breaker: CircuitBreaker) -> None:
    fail(breaker, 3)
    with pytest.raises(SourceUnavailableError) as raised:
        breaker.before_call()
    copy = pickle.loads(pickle.dumps(raised.value))  # noqa: S301 (our own bytes)
    assert type(copy) is SourceUnavailableError
    assert (copy.source, copy.detail, copy.status_code) == ("crossref", raised.value.detail, None)
