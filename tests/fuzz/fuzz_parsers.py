"""Coverage-guided fuzzing of every input parser with atheris (libFuzzer), outside the test suite.

    pip install atheris
    python tests/fuzz/fuzz_parsers.py -atheris_runs=200000            # all parsers, in turn
    python tests/fuzz/fuzz_parsers.py -max_total_time=600 corpus/      # keep a corpus
    ALETHEIA_FUZZ_TARGET=artifact python tests/fuzz/fuzz_parsers.py    # one target

The first byte picks the target (each bibliography format, format detection, artifact frontmatter,
and each parser of a source's answer: `source:NAME` for the text parsers of tests/fuzz/
source_targets.py, `json:NAME` for its JSON parsers, fed the input decoded as JSON when it is JSON
and as a string otherwise); the rest is the input. What counts as a failure is what the Hypothesis
suite checks (tests/unit/test_hostile_inputs.py): any exception but `InputError` / `ArtifactFormatError`, an
`InputError` that does not name the file, a problem without a position in it, a source parser
raising anything but `SourceParseError` (tests/unit/test_source_parsers_hostile.py), or a slow input
(libFuzzer's `-timeout`, default 20 s here). Not run in CI: it runs until stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from aletheia.core.artifacts import ArtifactFormatError, parse_artifact
    from aletheia.core.bibliography import InputError, InputFormat, parse_text
    from aletheia.core.bibliography.problems import InputProblem

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for `tests.fuzz`
    from tests.fuzz.source_targets import JSON_TARGETS, TEXT_TARGETS, check

ORIGIN = "fuzz/input"
FORMATS: list[InputFormat | None] = [None, *(f for f in InputFormat if f is not InputFormat.PDF)]
TARGETS = [
    *(f"bibliography:{f.value if f else 'detect'}" for f in FORMATS),
    "artifact",
    *(f"source:{name}" for name in sorted(TEXT_TARGETS)),
    *(f"json:{name}" for name in sorted(JSON_TARGETS)),
]


def check_bibliography(text: str, fmt: InputFormat | None) -> None:
    try:
        items = list(parse_text(text, origin=ORIGIN, fmt=fmt))
    except InputError as exc:
        if not str(exc).startswith(ORIGIN):
            raise AssertionError(f"InputError does not name the file: {exc}") from exc
        return
    for item in items:
        if isinstance(item, InputProblem) and (
            item.origin != ORIGIN or (item.line is not None and item.line < 1)
        ):
            raise AssertionError(f"problem without a usable position: {item!r}")


def check_artifact(text: str) -> None:
    with contextlib.suppress(ArtifactFormatError):
        parse_artifact(text)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    chosen = os.environ.get("ALETHEIA_FUZZ_TARGET")
    target = chosen if chosen else TARGETS[data[0] % len(TARGETS)]
    text = atheris.FuzzedDataProvider(data[1:]).ConsumeUnicodeNoSurrogates(len(data))
    if target == "artifact":
        check_artifact("---\n" + text if not text.startswith("---") else text)
        return
    if target.startswith("source:"):
        check(TEXT_TARGETS[target.split(":", 1)[1]], text)
        return
    if target.startswith("json:"):
        try:
            payload = json.loads(text)
        except (ValueError, RecursionError):
            payload = text
        check(JSON_TARGETS[target.split(":", 1)[1]], payload)
        return
    name = target.split(":", 1)[1]
    check_bibliography(text, None if name == "detect" else InputFormat(name))


def main() -> None:
    args = sys.argv if any(a.startswith("-timeout") for a in sys.argv) else [*sys.argv, "-timeout=20"]
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
