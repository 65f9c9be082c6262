"""Every exception the project raises derives from `core/errors.AletheiaError` (issue 31), and
keeps the built-in base its callers catch it by. Checked on the source of every shipped module, so
a new exception class without the base fails here."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from aletheia.core.errors import AletheiaError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("core", "config", "sources", "storage", "pipeline", "workers", "producers", "bench")
BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
# pipeline/claims/ is being rewritten in another change of issue 31; its exceptions get the base there.
NOT_YET = frozenset({"SourcesFailed", "ConversionNeeded", "LLMError"})
# Besides these, a private class is exempt: a signal inside its module, never raised to a caller.
EXEMPT = NOT_YET | {"AletheiaError"}


def _base_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def test_every_exception_class_derives_from_aletheia_error() -> None:
    missing = []
    for folder in SHIPPED:
        for path in sorted((ROOT / folder / "aletheia").rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef) or node.name.startswith("_") or node.name in EXEMPT:
                    continue
                bases = {_base_name(base) for base in node.bases}
                if bases & BUILTIN_EXCEPTIONS and "AletheiaError" not in bases:
                    missing.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert missing == []


def test_the_base_is_added_beside_the_one_callers_catch() -> None:
    from aletheia.core.bibliography.problems import InputError
    from aletheia.core.errors import JobNotFound
    from aletheia.pipeline.jobs.enqueue import BrokerUnavailable
    from aletheia.sources.base import RateLimitedError, SourceError

    assert issubclass(RateLimitedError, SourceError) and issubclass(SourceError, AletheiaError)
    assert issubclass(InputError, ValueError) and issubclass(InputError, AletheiaError)
    assert issubclass(JobNotFound, LookupError) and issubclass(JobNotFound, AletheiaError)
    assert issubclass(BrokerUnavailable, ConnectionError) and issubclass(BrokerUnavailable, AletheiaError)
    assert not issubclass(KeyError, AletheiaError)
