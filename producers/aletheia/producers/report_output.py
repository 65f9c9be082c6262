"""Where `aletheia verify` writes its report, and in which format (issue 20).

- The format follows `--format`, else the `-o` file's extension (`report.html` is HTML, not JSON),
  else a table on a terminal and JSON otherwise.
- `-o` into a folder that does not exist is one line and exit 2, never a traceback.
- A document is whole or absent: the report goes to a temporary file beside `-o` and is renamed
  into place at the end, or (on stdout) is held back until every input was read, so an input
  error half-way leaves neither `{"references": [` on stdout nor half a file. Line formats meant
  to be followed as they come (`jsonl`, `github`, a table on a terminal) are streamed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Final, TextIO

from aletheia.core.errors import AletheiaError

# Held in memory up to this size, then in a temporary file.
_SPOOL_BYTES: Final = 8 * 1024 * 1024


def _streamed(fmt: str) -> bool:
    """Written as decided, one whole line at a time (its record says): streamed, never held back."""
    from aletheia.pipeline.report_formats import REPORT_FORMATS

    record = REPORT_FORMATS.get(fmt)
    return record is not None and record.streamed


class OutputError(AletheiaError):
    """The report cannot be written where asked (one line for the user; exit 2)."""


def format_for(fmt: str | None, output: Path | None, *, tty: bool) -> str:
    """`--format` when given, else the format the `-o` file's extension names, else a table on a
    terminal and JSON otherwise. An `-o` extension no format owns is refused (`OutputError`):
    `-o out.csv` once wrote JSON under a spreadsheet's name (issue 30)."""
    if fmt:
        return fmt
    from aletheia.pipeline.report_formats import REPORT_FORMATS, format_for_filename

    if output is not None:
        known = format_for_filename(output.name)
        if known is not None:
            return known
        if output.suffix:
            known_suffixes = ", ".join(ext for f in REPORT_FORMATS.values() for ext in f.extensions)
            raise OutputError(
                f"cannot tell the report format from {output.name!r}: {output.suffix} is not an extension "
                f"a format owns ({known_suffixes}); name the format with --format"
            )
    return "table" if tty else "json"


def check_output(output: Path) -> None:
    """Refuse at once what cannot be written: a missing folder, a folder given as the file."""
    folder = output.parent if str(output.parent) else Path()
    if not folder.is_dir():
        raise OutputError(f"cannot write {output}: the folder {folder} does not exist")
    if output.is_dir():
        raise OutputError(f"cannot write {output}: it is a folder")


def check_not_an_input(output: Path, inputs: Sequence[str]) -> None:
    """Refuse an output that is one of the inputs: the report would replace what it was read from
    (`@string`, `@preamble`, comments and every hand-written line of a .bib gone; issue 30).
    `aletheia fix` refuses the same without --in-place. An input folder counts by the files in it
    a run would read."""
    if not output.exists():
        return
    from aletheia.pipeline.documents.inputs import files_in_folder

    for name in inputs:
        if name == "-":
            continue
        given = Path(name)
        candidates = files_in_folder(given) if given.is_dir() else [given]
        for candidate in candidates:
            with contextlib.suppress(OSError):
                if Path(candidate).samefile(output):
                    raise OutputError(
                        f"refusing to write the report over the input {candidate} "
                        "(choose another -o; `aletheia fix` rewrites a .bib in place)"
                    )


class ReportOutput:
    """The stream a sink writes to; `commit()` publishes the whole report, `discard()` drops it."""

    def __init__(self, output: Path | None, fmt: str, *, stdout: TextIO | None = None) -> None:
        self.output = output
        self.stdout = stdout or sys.stdout
        self._temporary: Path | None = None
        self._buffer: IO[str] | None = None
        if output is not None:
            check_output(output)
            from aletheia.pipeline.atomic_files import temporary_beside

            # The mode `open(path, "w")` gives, not mkstemp's 0600 (and no umask race with threads).
            handle, name = temporary_beside(output)
            self._temporary = Path(name)
            self.stream: TextIO = os.fdopen(handle, "w", encoding="utf-8")
        elif _streamed(fmt) or (fmt == "table" and self.stdout.isatty()):
            self.stream = self.stdout
        else:
            # Closed by commit() or discard(), whichever ends the run.
            self._buffer = tempfile.SpooledTemporaryFile(  # noqa: SIM115
                max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8"
            )
            self.stream = self._buffer  # type: ignore[assignment]

    def isatty(self) -> bool:
        return self.stream is self.stdout and self.stdout.isatty()

    def commit(self) -> None:
        if self._temporary is not None and self.output is not None:
            self.stream.close()
            self._temporary.replace(self.output)
            self._temporary = None
        elif self._buffer is not None:
            self._buffer.seek(0)
            shutil.copyfileobj(self._buffer, self.stdout)
            self.stdout.flush()
            self._buffer.close()
            self._buffer = None

    def discard(self) -> None:
        if self._temporary is not None:
            with contextlib.suppress(OSError):
                self.stream.close()
            self._temporary.unlink(missing_ok=True)
            self._temporary = None
        if self._buffer is not None:
            self._buffer.close()
            self._buffer = None
