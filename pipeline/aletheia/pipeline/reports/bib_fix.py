"""`aletheia fix FILE.bib`: verify every entry, then write the file with the values the sources
contradict replaced (`aletheia.core.bib_fix` decides; this module asks the sources and writes).

The fixed text is the original with value spans replaced and comment lines inserted: nothing else
changes, so a file with nothing to fix comes out byte for byte the same.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from aletheia.core.bib_fix import FixPlan, plan_fix
from aletheia.core.bibliography import InputProblem, iter_bibtex
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION, Verdict
from aletheia.pipeline import atomic_files
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.verify import DEFAULT_CONCURRENCY
from aletheia.pipeline.verify import verify_references as through_the_engine


def read_bibtex(text: str, origin: str) -> tuple[list[CitedReference], list[InputProblem]]:
    refs: list[CitedReference] = []
    problems: list[InputProblem] = []
    for item in iter_bibtex([text], origin=origin):
        (problems if isinstance(item, InputProblem) else refs).append(item)  # type: ignore[arg-type]
    return refs, problems


def verify_references(
    runtime: Runtime, refs: list[CitedReference], *, origin: str, concurrency: int = DEFAULT_CONCURRENCY
) -> tuple[list[tuple[CitedReference, Verdict]], dict[str, int]]:
    """Each reference's verdict, in input order, and the count by verdict: verified through the
    engine (a bibliography job run in this process: item rows, the audit trail, the steps'
    failure policy), as `aletheia verify` does."""
    run = through_the_engine(
        runtime, refs, input_description={"fix": origin}, concurrency=concurrency, submitted_by="fix"
    )
    results = [(outcome.cited, outcome.verdict) for outcome in run.outcomes]
    counts = Counter(verdict.status.value for _, verdict in results)
    return results, dict(sorted(counts.items()))


def fix_bibtex_text(
    runtime: Runtime, text: str, *, origin: str, concurrency: int = DEFAULT_CONCURRENCY
) -> tuple[FixPlan, dict[str, Any]]:
    """The plan (edits, changes, marks) and a report document for `text`."""
    refs, problems = read_bibtex(text, origin)
    results, by_verdict = verify_references(runtime, refs, origin=origin, concurrency=concurrency)
    plan = plan_fix(text, results, problems)
    report = {
        "input": origin,
        **plan.as_json(),
        "by_verdict": by_verdict,
        "problems": [p.model_dump(mode="json") for p in problems],
        "logic_version": LOGIC_VERSION,
    }
    return plan, report


def decode(data: bytes) -> tuple[str, str]:
    """The text and the encoding to write it back in, told as every input's is
    (`core.bibliography.encoding.sniff_encoding`): UTF-16/32 by its byte-order mark or its NULs
    (a mark is kept in the text, so it is written back), else UTF-8, else Windows-1252, else
    Latin-1 (which never fails). Unlike the readers, `fix` decodes a file in one encoding whole:
    it writes the file back byte for byte where nothing changed."""
    from aletheia.core.bibliography.encoding import sniff_encoding

    codec = sniff_encoding(data[:65536]).codec
    for candidate in (codec, "cp1252") if codec == "utf-8" else (codec,):
        try:
            return data.decode(candidate), candidate
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def write_atomically(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write `text` as bytes exactly (no newline translation), replacing `path` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_files.write_atomically(path, text.encode(encoding, errors="strict"))
