"""The base of every exception Aletheia raises on purpose (issue 31).

`except AletheiaError` catches what the project itself signals (a source that failed, an input it
cannot read, a job that does not exist, a refused write) and nothing that a library or a bug
raises. Each exception keeps the built-in base its callers also catch it by (`ValueError` for an
input that cannot be read, `LookupError` for a missing job, `ConnectionError` for a broker that
does not answer), so adding this base changed no `except` clause.
"""

from __future__ import annotations


class AletheiaError(Exception):
    """An exception the project raises on purpose (see the module docstring)."""


class JobNotFound(LookupError, AletheiaError):
    """No job has this id. Here, below every layer, because every reader of a job by id raises
    it: the steps (`pipeline/jobs/rows.py`), `status`, the client, and `aletheia audit replay`
    (`pipeline/audit/replay.py`, a layer below the jobs)."""
