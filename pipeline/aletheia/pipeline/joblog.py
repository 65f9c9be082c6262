"""Structured logs: one JSON object per line, each carrying the id of the job it is about.

The job id lives in a context variable, set by the service functions as soon as they know which
job they work for (`with job_context(job_id):`), and copied onto every record by `JobIdFilter`.
Asyncio tasks copy the context they were created in, so lines logged from inside the pipeline's
coroutines carry it too. Lines outside any job carry `"job_id": null`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from aletheia.sources.transport.redaction import redact_text

current_job_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("aletheia_job_id", default=None)

# Attributes every LogRecord has; anything else was passed with `extra=` and goes into the line.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "job_id",
}


@contextmanager
def job_context(job_id: str | None) -> Iterator[None]:
    token = current_job_id.set(job_id)
    try:
        yield
    finally:
        current_job_id.reset(token)


class JobIdFilter(logging.Filter):
    """Puts the current job id on the record (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "job_id"):
            record.job_id = current_job_id.get()
        return True


class JsonLineFormatter(logging.Formatter):
    def __init__(self, *, process_role: str | None = None) -> None:
        super().__init__()
        self.process_role = process_role

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "job_id": getattr(record, "job_id", current_job_id.get()),
            "msg": record.getMessage(),
            "pid": record.process,
        }
        if self.process_role:
            line["role"] = self.process_role
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        # Credentials in a message (a DSN with its password in an exception, a key in a URL) are
        # scrubbed from the whole line, whatever logger it came from.
        return redact_text(json.dumps(line, ensure_ascii=False, default=str))


def configure_json_logging(level: int | str = logging.INFO, *, role: str | None = None) -> None:
    """Replace the root handlers with one JSON-lines handler on stderr (idempotent)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_aletheia_json", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter(process_role=role))
    handler.addFilter(JobIdFilter())
    handler._aletheia_json = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
