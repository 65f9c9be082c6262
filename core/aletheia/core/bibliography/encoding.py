"""Which encoding an input's bytes are in, decided one way for every input (issue 30).

Every reader of bytes (files of every format, stdin, the document given to `aletheia claims`, a
bibliography submitted to the service) decodes through `TextDecoder`, so a file is read or
refused the same way whatever its extension:

- a byte-order mark names the encoding (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE);
- without one, UTF-16 is recognised by its pattern of NUL bytes (ASCII text saved as UTF-16 LE
  has a NUL in every second byte; binary data has NULs anywhere): Windows tools save so;
- anything else is UTF-8; a byte sequence that is not UTF-8 is read as Windows-1252 (the bytes
  Windows-1252 leaves undefined, as Latin-1), and the input gets one problem naming the first
  such byte. Bytes that do form UTF-8 are read as UTF-8, so a UTF-8 file with one stray byte reads
  right (and Windows-1252 text reads right unless it holds UTF-8's own pairs, like "Ã©").
  Windows-1252 is Latin-1 with printable characters where Latin-1 has C1 controls (curly quotes,
  dashes), so it reads Latin-1 files the same and Windows files right.

Binary data is refused (`InputError`): a NUL character in the decoded text, or an input read with
the fallback whose first decoded chunk is more than `_CONTROL_SHARE` control characters (random
bytes are about 11% C0 controls; text has none but tabs and line ends).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final

from aletheia.core.bibliography.problems import InputError, InputProblem

__all__ = ["Encoding", "TextDecoder", "decode_bytes", "sniff_encoding"]

_FALLBACK: Final = "aletheia-windows-1252-fallback"
# Byte-order marks, longest first (UTF-32 LE's starts with UTF-16 LE's).
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# UTF-16 without a BOM: of the first `_PAIRS_SAMPLED` byte pairs, at least this share must be an
# ASCII character (one NUL, on the same side every time) and none may be two NULs.
_PAIRS_SAMPLED: Final = 2048
_UTF16_SHARE: Final = 0.6
_CONTROL_SHARE: Final = 0.02
_MIN_CONTROLS: Final = 8
_ALLOWED_CONTROLS: Final = frozenset("\t\n\r\f\v\x1a")  # \x1a: DOS's end-of-file mark


def _windows_1252_fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    chunk = error.object[error.start : error.end]
    # Windows-1252 leaves five bytes undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D): Latin-1 reads them.
    return "".join(
        bytes([b]).decode("cp1252", errors="strict")
        if b not in b"\x81\x8d\x8f\x90\x9d"
        else bytes([b]).decode("latin-1")
        for b in chunk
    ), error.end


codecs.register_error(_FALLBACK, _windows_1252_fallback)


@dataclass(frozen=True, slots=True)
class Encoding:
    """An input's encoding: the codec and the length of its byte-order mark."""

    codec: str
    bom: int = 0

    @property
    def label(self) -> str:
        return {"utf-8": "UTF-8", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE"}.get(
            self.codec, self.codec.upper()
        )


def sniff_encoding(head: bytes) -> Encoding:
    """The encoding of an input from its first bytes (see the module docstring)."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return Encoding(codec, len(bom))
    pairs = min(len(head) // 2, _PAIRS_SAMPLED)
    if pairs >= 2 and b"\x00" in head[: 2 * pairs]:
        low_nul = high_nul = 0
        for index in range(pairs):
            first, second = head[2 * index], head[2 * index + 1]
            if first == 0 and second == 0:
                return Encoding("utf-8")  # two NULs: no UTF-16 text of a bibliography has them
            if second == 0:
                low_nul += 1
            elif first == 0:
                high_nul += 1
        if low_nul >= _UTF16_SHARE * pairs and high_nul == 0:
            return Encoding("utf-16-le")
        if high_nul >= _UTF16_SHARE * pairs and low_nul == 0:
            return Encoding("utf-16-be")
    return Encoding("utf-8")


class TextDecoder:
    """Incremental decoding of one input in the encoding `sniff_encoding` told from its first
    chunk, with the absolute byte offset of the first byte that was not UTF-8 (read as
    Windows-1252) and of any NUL (refused as binary data)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.encoding: Encoding | None = None
        self.offset = 0  # bytes consumed before the current chunk
        self.first_invalid: int | None = None
        self._decoder: codecs.IncrementalDecoder | None = None
        self._checked_controls = False

    def _start(self, data: bytes) -> bytes:
        self.encoding = sniff_encoding(data)
        self._decoder = codecs.getincrementaldecoder(self.encoding.codec)(errors="strict")
        self.offset += self.encoding.bom
        return data[self.encoding.bom :]

    def decode(self, data: bytes, *, final: bool = False) -> str:
        if self._decoder is None:
            if not data and not final:
                return ""
            data = self._start(data)
        assert self._decoder is not None and self.encoding is not None
        unicode = self.encoding.codec != "utf-8"
        if not unicode:
            nul = data.find(b"\x00")
            if nul >= 0:
                raise InputError(self.origin, "binary data, not text (a NUL byte)", offset=self.offset + nul)
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as error:
            pending = len(self._decoder.getstate()[0])
            position = max(self.offset - pending + error.start, 0)
            if unicode:
                raise InputError(
                    self.origin, f"not {self.encoding.label} text ({error.reason})", offset=position
                ) from None
            if self.first_invalid is None:
                self.first_invalid = position
            self._decoder = codecs.getincrementaldecoder("utf-8")(errors=_FALLBACK)
            text = error.object[: error.start].decode("utf-8", _FALLBACK)
            text += self._decoder.decode(error.object[error.start :], final)
        if unicode and "\x00" in text:
            raise InputError(self.origin, "binary data, not text (a NUL character)", offset=self.offset)
        if self.first_invalid is not None and not self._checked_controls and text:
            self._checked_controls = True
            controls = sum(
                1 for c in text if (c < " " or "\x7f" <= c < "\xa0") and c not in _ALLOWED_CONTROLS
            )
            if controls > _MIN_CONTROLS and controls > _CONTROL_SHARE * len(text):
                raise InputError(
                    self.origin,
                    f"binary data, not text ({controls} control characters in {len(text)}; "
                    "neither UTF-8, UTF-16 nor Windows-1252 text)",
                )
        self.offset += len(data)
        return text

    def problem(self) -> InputProblem | None:
        """The caveat of an input that was not all UTF-8, or None."""
        if self.first_invalid is None:
            return None
        return InputProblem(
            origin=self.origin,
            message=f"not valid UTF-8 (first invalid byte at offset {self.first_invalid}); "
            "invalid bytes were read as Windows-1252 (Latin-1)",
        )


def decode_bytes(data: bytes, origin: str) -> tuple[str, InputProblem | None]:
    """A whole input as text (see `TextDecoder`) and the problem of an input not all UTF-8."""
    decoder = TextDecoder(origin)
    text = decoder.decode(data, final=True)
    return text, decoder.problem()
