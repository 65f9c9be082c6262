"""No module is over 450 lines and no function over 60 (issue 31: a house a newcomer can walk; issue
14 set 600 lines first).

The limits are a symptom, never a target: a module is split where its responsibilities part, a
function where its steps have names. Migrations are left out (generated, append-only history).
The allow-lists name what is not split yet, each with its size when it was listed: they can only
shrink. A listed module or function may not grow past its recorded size, and one that drops to the
limit must leave its list."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "config", "sources", "storage", "pipeline", "workers", "producers", "bench")
MAX_LINES = 450
MAX_FUNCTION_LINES = 60

# module (relative to the repository) -> its line count when listed. Remove a line once it is split.
ALLOWED: dict[str, int] = {}
# "module:function" -> its line count when listed.
ALLOWED_FUNCTIONS: dict[str, int] = {}


def _sources() -> dict[str, str]:
    found = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" in path.parts or ".venv" in path.parts:
                continue
            found[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return found


def _modules() -> dict[str, int]:
    return {name: text.count("\n") for name, text in _sources().items()}


def _functions(sources: dict[str, str] | None = None) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for name, text in (_sources() if sources is None else sources).items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                key = f"{name}:{node.name}"
                sizes[key] = max(sizes.get(key, 0), node.end_lineno - node.lineno + 1)
    return sizes


def test_no_module_is_over_the_limit() -> None:
    too_long = {name: size for name, size in _modules().items() if size > MAX_LINES and name not in ALLOWED}
    assert too_long == {}, f"split these modules (at most {MAX_LINES} lines each): {too_long}"


def test_no_function_is_over_the_limit() -> None:
    too_long = {
        name: size
        for name, size in _functions().items()
        if size > MAX_FUNCTION_LINES and name not in ALLOWED_FUNCTIONS
    }
    assert too_long == {}, f"split these functions (at most {MAX_FUNCTION_LINES} lines each): {too_long}"


def test_the_allow_lists_only_shrink() -> None:
    for sizes, allowed, limit in (
        (_modules(), ALLOWED, MAX_LINES),
        (_functions(), ALLOWED_FUNCTIONS, MAX_FUNCTION_LINES),
    ):
        for name, listed in allowed.items():
            assert name in sizes, f"{name} is gone: remove it from its allow-list"
            assert sizes[name] <= listed, f"{name} grew from {listed} to {sizes[name]} lines: split it"
            assert sizes[name] > limit, f"{name} is {sizes[name]} lines now: remove it from its allow-list"


def test_every_function_is_measured_nested_and_async_ones_too() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    nested = "class C:\n    async def short(self):\n        def inner():\n            pass\n"
    text = f"def long():\n{body}\n\n{nested}"
    sizes = _functions({"m.py": text})
    assert sizes == {"m.py:long": MAX_FUNCTION_LINES + 1, "m.py:short": 3, "m.py:inner": 2}
