"""`python -m aletheia.workers.flower`: Flower on the loopback address, behind basic auth — every
page, the API, and also `/metrics` and `/healthcheck`.

Refuses to start without `ALETHEIA_FLOWER_PASSWORD`. The credentials reach Flower through its
environment (`FLOWER_BASIC_AUTH`), never on the command line where `ps` would show them.

Flower serves `/metrics` (Prometheus: task names, worker names, queue lengths) and `/healthcheck`
without asking for credentials, whatever `--basic-auth` says, and has no option to change that
(its handlers carry no `@authenticated`, as of Flower 2.2). So Flower is run in this process with
those two handlers wrapped in Tornado's `authenticated` first (`require_auth_everywhere`): the same
basic-auth check as every other page, 401 without credentials.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from aletheia.config import get_settings

UNGUARDED_HANDLERS = ("Metrics", "Healthcheck")  # flower.views.monitor


def flower_command() -> tuple[list[str], dict[str, str]]:
    settings = get_settings()
    if settings.flower_password is None or not settings.flower_password.get_secret_value():
        raise SystemExit("aletheia: refusing to start Flower without ALETHEIA_FLOWER_PASSWORD (basic auth)")
    if ":" in settings.flower_user:
        raise SystemExit("aletheia: ALETHEIA_FLOWER_USER may not contain ':'")
    argv = [
        sys.executable, "-m", "aletheia.workers.flower", "--serve",
        f"--address={settings.flower_address}", f"--port={settings.flower_port}",
    ]  # fmt: skip
    env = dict(os.environ)
    env["FLOWER_BASIC_AUTH"] = f"{settings.flower_user}:{settings.flower_password.get_secret_value()}"
    return argv, env


def require_auth_everywhere() -> None:
    """Wrap Flower's unauthenticated handlers (`UNGUARDED_HANDLERS`) in Tornado's `authenticated`."""
    import tornado.web
    from flower.views import monitor

    for name in UNGUARDED_HANDLERS:
        handler: Any = getattr(monitor, name)
        if not getattr(handler.get, "_aletheia_guarded", False):
            guarded: Any = tornado.web.authenticated(handler.get)
            guarded._aletheia_guarded = True
            handler.get = guarded


def serve(options: list[str]) -> None:
    """Flower itself, in this process, once every handler asks for credentials."""
    if not os.environ.get("FLOWER_BASIC_AUTH"):  # only ever started by main(), which sets it
        raise SystemExit("aletheia: refusing to start Flower without basic auth")
    require_auth_everywhere()
    from celery.bin.celery import main as celery_main

    sys.argv = ["celery", "-A", "aletheia.workers.app", "flower", *options]
    celery_main()


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2:])
        return
    argv, env = flower_command()
    sys.stdout.flush()
    os.execvpe(argv[0], argv, env)  # noqa: S606 - replaces this process with Flower, no shell


if __name__ == "__main__":
    main()
