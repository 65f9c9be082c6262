"""`aletheia fix FILE.bib`, its file side: the text decoded as it will be written back, and the
fixed text written atomically (`pipeline/fix.py` verifies the entries, `aletheia.core.bib_fix`
decides the edits).

The fixed text is the original with value spans replaced and comment lines inserted: nothing else
changes, so a file with nothing to fix comes out byte for byte the same.
"""

from __future__ import annotations

from pathlib import Path

from aletheia.pipeline import atomic_files


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
