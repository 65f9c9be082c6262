"""Atomic writes with the mode a plain `open(path, "w")` would give (issue 22).

A file is written to a temporary file beside it and renamed over it, so a reader sees the old
content or the new, never half. `tempfile.mkstemp` creates the temporary file 0600 whatever the
umask, and the rename kept that mode: reports, corrected BibTeX and citation artifacts in a user's
repository came out unreadable to their group. The temporary file now takes the mode of the file
it replaces, or 0666 less the umask for a new one.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

_UMASK_GUARD = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it where the kernel tells it (Linux); elsewhere
    set and restored at once under a lock (`os.umask` has no read-only form)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_GUARD:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def mode_for(path: Path) -> int:
    """The mode `open(path, "w")` leaves: an existing file's own, else 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def temporary_beside(path: Path, *, prefix: str | None = None, suffix: str = ".tmp") -> tuple[int, str]:
    """A temporary file in `path`'s folder, open for writing, with the mode `path` is to have;
    the caller writes it and renames it over `path` (or unlinks it on failure)."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}.", suffix=suffix)
    try:
        os.fchmod(fd, mode_for(path))
    except BaseException:
        os.close(fd)
        Path(name).unlink(missing_ok=True)
        raise
    return fd, name


def write_atomically(path: Path, data: bytes, *, prefix: str | None = None) -> None:
    """Write `data` to `path` through a synced temporary file renamed over it (see module doc)."""
    fd, temporary = temporary_beside(path, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
