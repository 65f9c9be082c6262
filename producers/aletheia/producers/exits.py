"""The exit codes of the `aletheia` commands, one meaning each (README "Exit codes"; issue 30: an
outage exited 1, the code of a refusal or a flagged reference, and Ctrl-C exited 1 too)."""

from __future__ import annotations

from typing import Final

OK: Final = 0
# Something was found wrong: a flagged reference, a refused claim, a failed job.
FLAGGED: Final = 1
# Usage or input error: nothing was done.
USAGE: Final = 2
# Nothing flagged, but some things could not be checked (`verify`); the broker did not answer (`submit`).
UNCHECKED: Final = 3
# The sources (or the model) could not be reached: an outage, not a verdict; try again later.
SOURCES_UNREACHABLE: Final = 4
# The database could not be reached (the job itself may be healthy); try again when it is back.
DATABASE_UNREACHABLE: Final = 5
# Gave up waiting for a queued job (`--timeout`).
TIMED_OUT: Final = 124
# Interrupted (Ctrl-C): 128 + SIGINT, as a shell reports it.
INTERRUPTED: Final = 130
