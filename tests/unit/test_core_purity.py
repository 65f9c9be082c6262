"""The core imports no I/O library: checked on the import graph of every core module, in a fresh
interpreter so that nothing imported by other tests hides a violation."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = (
    "httpx",
    "redis",
    "sqlalchemy",
    "celery",
    "psycopg",
    "anthropic",
    "docling",
    "pypdfium2",
    "requests",
    "aiohttp",
    "aletheia.sources",
    "aletheia.storage",
    "aletheia.pipeline",
    "aletheia.workers",
    "aletheia.producers",
    "aletheia.config",
    # socket and ssl are not listed: pydantic loads them through importlib.metadata -> email;
    # the import-linter contract forbids the core itself from importing them.
    "urllib.request",
)

PROBE = """
import json, pkgutil, importlib, sys
import aletheia.core as core
for info in pkgutil.walk_packages(core.__path__, "aletheia.core."):
    importlib.import_module(info.name)
print(json.dumps(sorted(sys.modules)))
"""


def test_core_modules_import_no_io_library() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    offenders = sorted(
        name for name in loaded if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    )
    assert offenders == [], f"the pure core pulled in I/O modules: {offenders}"
