"""Faults injected into a named step, the same way in this process and in a Celery worker
(`tests/integration/faulty_worker.py` installs them from `FAULT_ENV` before the worker starts).

A transient fault fails the step's first run on each set of arguments and lets every later one
through; a permanent fault fails every run. The error raised is one the step's failure policy
retries (its first `retry_on` type; a `RuntimeError` for a policy that retries any `Exception` or
none), raised before the step does anything, so the policy alone decides what follows.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from aletheia.pipeline.jobs.kinds import STEPS, FailurePolicy

FAULT_ENV = "ALETHEIA_TEST_STEP_FAULT"  # "aletheia.retrieval.verify_item=transient"
MODES = ("transient", "permanent")
TEST_BACKOFF = 0.05  # seconds: every retry's countdown in a test, on the queue and in process

Setter = Callable[[Any, str, Any], None]


def injected_error(name: str) -> Exception:
    kinds = STEPS[name].failure.retry_on
    kind = kinds[0] if kinds and kinds[0] is not Exception else RuntimeError
    return kind(f"injected fault in {name}")


def install(name: str, mode: str, *, setter: Setter = setattr) -> list[tuple[Any, ...]]:
    """Replace step `name`'s function (the module attribute its record names) by a faulty one;
    returns the list of the arguments of every run it saw."""
    if mode not in MODES:
        raise ValueError(f"unknown fault mode {mode!r}")
    module_name, _, attribute = STEPS[name].function.partition(":")
    module = importlib.import_module(module_name)
    real = getattr(module, attribute)
    runs: list[tuple[Any, ...]] = []
    guard = threading.Lock()

    def faulty(ctx: Any, *args: Any) -> Any:
        with guard:
            first = args not in runs
            runs.append(args)
        if mode == "permanent" or first:
            raise injected_error(name)
        return real(ctx, *args)

    faulty.__name__ = attribute
    setter(module, attribute, faulty)
    return runs


def fast_backoff(*, setter: Setter = setattr) -> None:
    """Every policy's countdown shortened to `TEST_BACKOFF` (the policies' counts are kept)."""
    setter(FailurePolicy, "backoff", lambda _policy, _retries: TEST_BACKOFF)


def install_from_env(environ: dict[str, str]) -> None:
    spec = environ.get(FAULT_ENV)
    if spec:
        name, _, mode = spec.partition("=")
        install(name, mode)
        fast_backoff()
