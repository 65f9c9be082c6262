"""`python -m aletheia.workers.flower`: Flower on the loopback address, behind basic auth.

Refuses to start without `ALETHEIA_FLOWER_PASSWORD`. The credentials reach Flower through its
environment (`FLOWER_BASIC_AUTH`), never on the command line where `ps` would show them.
"""

from __future__ import annotations

import os
import sys

from aletheia.config import get_settings


def flower_command() -> tuple[list[str], dict[str, str]]:
    settings = get_settings()
    if settings.flower_password is None or not settings.flower_password.get_secret_value():
        raise SystemExit("aletheia: refusing to start Flower without ALETHEIA_FLOWER_PASSWORD (basic auth)")
    if ":" in settings.flower_user:
        raise SystemExit("aletheia: ALETHEIA_FLOWER_USER may not contain ':'")
    argv = [
        sys.executable, "-m", "celery", "-A", "aletheia.workers.app", "flower",
        f"--address={settings.flower_address}", f"--port={settings.flower_port}",
    ]  # fmt: skip
    env = dict(os.environ)
    env["FLOWER_BASIC_AUTH"] = f"{settings.flower_user}:{settings.flower_password.get_secret_value()}"
    return argv, env


def main() -> None:
    argv, env = flower_command()
    sys.stdout.flush()
    os.execvpe(argv[0], argv, env)  # noqa: S606 - replaces this process with Flower, no shell


if __name__ == "__main__":
    main()
