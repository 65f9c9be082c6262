"""Secrets never reach an error message or a log line: API keys in query strings and headers,
passwords in URLs. Split out of `transport` (which re-exports these names)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

import httpx

# Query parameters and headers whose values are credentials (compared lower-cased). `mailto` is not
# one: Crossref and OpenAlex ask for it in the open to reach their polite pools.
SECRET_PARAMS = frozenset({"api_key", "apikey", "api-key", "key", "token", "access_token"})
SECRET_HEADERS = frozenset(
    {"x-api-key", "api-key", "authorization", "proxy-authorization", "x-subscription-token"}
)
REDACTED = "REDACTED"
_SECRET_ASSIGNMENT = re.compile(r"(?i)\b(api[_-]?key|apikey|key|token|access_token)=([^&\s\"'<>]+)")
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*):([^@\s/]+)@")
# Secrets shorter than this are not scrubbed by value: replacing "1" everywhere would garble text.
_MIN_SECRET_LENGTH = 4


def redact_url(url: str | httpx.URL) -> str:
    """The URL with the values of credential parameters (and any password) replaced."""
    parsed = httpx.URL(url)
    if parsed.password:
        parsed = parsed.copy_with(username=parsed.username, password=REDACTED)
    if not parsed.query:
        return str(parsed)
    pairs = [
        (name, REDACTED if name.lower() in SECRET_PARAMS else value)
        for name, value in parsed.params.multi_items()
    ]
    return str(parsed.copy_with(params=pairs))


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret value, every `key=value` credential assignment and every
    password in a `scheme://user:password@host` URL replaced."""
    for secret in secrets:
        if len(secret) >= _MIN_SECRET_LENGTH:
            text = text.replace(secret, REDACTED)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{REDACTED}@", text)
    return _SECRET_ASSIGNMENT.sub(lambda m: f"{m.group(1)}={REDACTED}", text)


class RedactingLogFilter(logging.Filter):
    """Rewrites a log record's message through `redact_text` (never drops a record).

    httpx logs every request's URL at INFO, query string included, and OpenAlex and PubMed take
    their API keys in the query string: without this filter a worker logging at INFO writes the
    keys to its log (docs/reliability.md, "Secrets")."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def install_log_redaction(loggers: Iterable[str] = ("httpx",)) -> None:
    """Put one `RedactingLogFilter` on each named logger (idempotent)."""
    for name in loggers:
        target = logging.getLogger(name)
        if not any(isinstance(f, RedactingLogFilter) for f in target.filters):
            target.addFilter(RedactingLogFilter())


# Every source client imports `transport`, which imports this module, so no request is made before
# the filter is in place.
install_log_redaction()


def secret_values(params: Mapping[str, Any], headers: Mapping[str, str]) -> tuple[str, ...]:
    values = [str(v) for k, v in params.items() if k.lower() in SECRET_PARAMS]
    values += [v for k, v in headers.items() if k.lower() in SECRET_HEADERS]
    # "Bearer abc..." : scrub the token itself too, wherever it appears without its scheme.
    values += [v.split(" ", 1)[1] for k, v in headers.items() if k.lower() == "authorization" and " " in v]
    return tuple(sorted(set(values), key=len, reverse=True))
