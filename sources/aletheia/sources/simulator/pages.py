"""Web pages (`GET /pages/<name>`): the pages a generic web claim is checked against (an RFC, a
standard, a piece of software's documentation; issue 29), served from the `pages/` folder beside
the universe file, as a web server would: `text/html` for `.html`, `application/pdf` for `.pdf`,
404 for anything else. No rate limit and no fault: these stand for any host on the web, which the
web tier's own limiter paces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from aletheia.sources.simulator.http import Response, text_response

PREFIX: Final = "/pages"
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(?:html|pdf)")
_TYPES: Final = {"html": "text/html; charset=utf-8", "pdf": "application/pdf"}


def serve_page(base_dir: Path | None, path: str) -> Response:
    """The page `path` names (one plain file name: no folders, no `..`), or 404."""
    name = path.strip("/")
    if base_dir is None or not _NAME.fullmatch(name) or ".." in name:
        return text_response("Not Found", status=404)
    file = base_dir / "pages" / name
    if not file.is_file():
        return text_response("Not Found", status=404)
    return Response(200, file.read_bytes(), _TYPES[name.rsplit(".", 1)[1]])
