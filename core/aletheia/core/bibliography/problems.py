"""What goes wrong while reading a bibliography, in two sizes.

`InputProblem` is one entry that could not be read (or was read with a caveat): it is yielded in the
stream beside the references, and reading goes on with the next entry, so nothing already accepted
is lost. `InputError` is the whole input failing (binary garbage, an unknown format, a file over the
size limit): it is raised, and its message names the file.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from aletheia.core.errors import AletheiaError


class InputProblem(BaseModel):
    """One entry that could not be read, or was read with a caveat, and where it is.

    `line` and `column` are 1-based positions in the input `origin` names; either is None when the
    format has no useful notion of it (a CSL-JSON item, a PDF page).
    """

    model_config = ConfigDict(frozen=True)

    origin: str
    line: int | None = None
    column: int | None = None
    message: str
    key: str | None = None  # the entry's key, when it could be read

    @property
    def position(self) -> str:
        """`origin:line:column`, as compilers print it, with the parts that are known."""
        parts = [self.origin]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        return f"{self.position}: {self.message}"


class InputError(ValueError, AletheiaError):
    """The whole input cannot be read; the message names the file (and the position, if any)."""

    def __init__(self, origin: str, message: str, *, offset: int | None = None) -> None:
        self.origin = origin
        self.offset = offset
        where = origin if offset is None else f"{origin} (byte {offset})"
        super().__init__(f"{where}: {message}")
        self.detail = message

    def __reduce__(self) -> tuple[object, ...]:
        # Picklable with its keyword argument (errors cross process boundaries in the workers).
        return (_rebuild_input_error, (self.origin, self.detail, self.offset))


def _rebuild_input_error(origin: str, message: str, offset: int | None) -> InputError:
    return InputError(origin, message, offset=offset)
