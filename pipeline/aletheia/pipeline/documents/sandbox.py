"""PDF text extraction in a child process with hard limits: wall time, memory, CPU.

pdfium is native code reading hostile files. Its page and time checks (`pdf_reading.pdf_text`) run
between pages, so one page can still take all the memory or time there is: a 2 KB PDF whose
content stream is compressed twice inflates to 2 GB, and a 300 KB one holding 100 MB of text
operators takes 1.4 GB and seconds per page (docs/reliability.md, "Decompression bombs"). So the
extraction runs in a fresh interpreter under `RLIMIT_AS` and `RLIMIT_CPU`, killed at the
deadline; whatever happens to it, the caller gets the text or an `InputError` naming the file, and
every other document of the job is read as usual.

A subprocess rather than `multiprocessing`: Celery's prefork children are daemonic and may not
have children of their own, and the result comes back as plain UTF-8 text (an error as one JSON
line), never as a pickle a compromised child could use against its parent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Final

from aletheia.core.bibliography import InputError

# The child's own exit codes: 0 text on stdout, 2 an error message (JSON) on stdout, 4 a limit of
# the document's own (pages, time between pages) with its message.
_EXIT_ERROR: Final = 2
_EXIT_LIMIT: Final = 4


class SandboxLimitError(InputError):
    """The document hit a limit (time, memory, CPU, pages): an error for that document only."""


_MESSAGE_LIMIT: Final = 500


def _limit_child(
    memory_bytes: int | None, cpu_seconds: int | None
) -> None:  # pragma: no cover - in the child
    import resource

    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    # No core files of hostile input's crashes.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def pdf_text_isolated(
    data: bytes,
    *,
    origin: str,
    max_pages: int,
    timeout: float,
    memory_bytes: int | None,
) -> str:
    """`pdf_reading.pdf_text(data, ...)` run in a child process; raises `InputError` for the document on
    a bad PDF (as `pdf_text` does), a limit hit (time, memory), or a crash of the reader."""
    return _run_child(
        "references", data, origin=origin, max_pages=max_pages, timeout=timeout, memory_bytes=memory_bytes
    )


def paper_text_isolated(
    data: bytes,
    *,
    origin: str,
    max_pages: int,
    timeout: float,
    memory_bytes: int | None,
) -> str:
    """The claim pipeline's full-text reading of a PDF (`fulltext` blocks with sections and pages)
    in a child process under the same limits; returns the `PaperText` as JSON (validated by the
    caller, never unpickled)."""
    return _run_child(
        "paper", data, origin=origin, max_pages=max_pages, timeout=timeout, memory_bytes=memory_bytes
    )


def _run_child(
    mode: str,
    data: bytes,
    *,
    origin: str,
    max_pages: int,
    timeout: float,
    memory_bytes: int | None,
) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ALETHEIA_", "OPENALEX_", "NCBI_", "SEMANTIC_"))
    }
    env["ALETHEIA_SANDBOX_ARGS"] = json.dumps(
        {"mode": mode, "origin": origin, "max_pages": max_pages, "timeout": timeout}
    )
    cpu = max(1, int(timeout) + 1)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "aletheia.pipeline.documents.sandbox"],
            input=data,
            capture_output=True,
            timeout=timeout + 5.0,  # interpreter start-up and imports on top of the reader's own budget
            env=env,
            preexec_fn=lambda: _limit_child(memory_bytes, cpu),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SandboxLimitError(
            origin, f"reading took longer than {timeout:.0f} s (ALETHEIA_PDF_TIMEOUT_SECONDS)"
        ) from None
    if done.returncode == 0:
        return done.stdout.decode("utf-8")
    if done.returncode in (_EXIT_ERROR, _EXIT_LIMIT):
        try:
            message = str(json.loads(done.stdout.decode("utf-8"))["error"])
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            message = "the PDF reader failed"
        error = SandboxLimitError if done.returncode == _EXIT_LIMIT else InputError
        raise error(origin, message[:_MESSAGE_LIMIT])
    death = _death(done.returncode, done.stderr, memory_bytes, cpu)
    raise type(death)(origin, death.detail)


def _death(returncode: int, stderr: bytes, memory_bytes: int | None, cpu: int) -> InputError:
    """What killed the child, as the error for the document: a limit hit, or a crash."""
    message, limit = _death_cause(returncode, stderr, memory_bytes, cpu)
    return (SandboxLimitError if limit else InputError)("", message)


def _death_cause(returncode: int, stderr: bytes, memory_bytes: int | None, cpu: int) -> tuple[str, bool]:
    tail = stderr.decode("utf-8", "replace")
    if returncode == -signal.SIGXCPU or (returncode == -signal.SIGKILL and "CPU" in tail):
        return f"reading used more than {cpu} s of CPU (ALETHEIA_PDF_TIMEOUT_SECONDS)", True
    if (
        "MemoryError" in tail
        or "bad_alloc" in tail
        or "std::bad_alloc" in tail
        or returncode == -signal.SIGABRT
    ):
        limit = f" of {memory_bytes // (1024 * 1024)} MB" if memory_bytes else ""
        return f"reading exceeded the memory limit{limit} (ALETHEIA_PDF_MEMORY_LIMIT_MB)", True
    if returncode < 0:
        return f"the PDF reader crashed (signal {-returncode})", False
    return f"the PDF reader failed (exit status {returncode})", False


def _child() -> int:  # pragma: no cover - runs in the child process
    args = json.loads(os.environ["ALETHEIA_SANDBOX_ARGS"])
    data = sys.stdin.buffer.read()
    try:
        if args.get("mode") == "paper":
            from aletheia.pipeline.documents.pdf_reading import (
                ConversionError,
                DocumentLimitError,
                read_pdf_paper,
            )

            try:
                text = read_pdf_paper(
                    data, max_pages=args["max_pages"], timeout=args["timeout"]
                ).model_dump_json()
            except DocumentLimitError as exc:
                sys.stdout.write(json.dumps({"error": str(exc)}))
                return _EXIT_LIMIT
            except ConversionError as exc:
                raise InputError(args["origin"], str(exc)) from None
        else:
            from aletheia.pipeline.documents.pdf_reading import pdf_text

            text = pdf_text(data, origin=args["origin"], max_pages=args["max_pages"], timeout=args["timeout"])
    except InputError as exc:
        sys.stdout.write(json.dumps({"error": exc.detail}))
        return _EXIT_ERROR
    except MemoryError:
        sys.stderr.write("MemoryError\n")
        return 3
    sys.stdout.buffer.write(text.encode("utf-8"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_child())
