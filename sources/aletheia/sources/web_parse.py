"""A fetched web page as a `WorkRecord` (pure): its `<title>`, `og:title` and first `<h1>`.

The parser is the standard library's `html.parser`: a tokenizer that resolves only HTML's own
character references, never loads a DTD, an external entity or anything else, and survives any
malformed markup. It reads at most what the fetcher kept (`ALETHEIA_WEB_TIER_MAX_BYTES`) and
keeps at most `MAX_TITLE_CHARS` of each title; it stops at `</head>` once it has a title and an
`og:title`, and at the first `</h1>` in any case.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, Final

from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.core.web import CONTENT_TYPE_WEB_PAGE, snapshot_date

MAX_TITLE_CHARS: Final = 500
_META_CHARSET: Final = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I)
_TITLE_META: Final = frozenset({"og:title", "twitter:title", "citation_title", "dc.title"})


class _Titles(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: str | None = None
        self.meta: dict[str, str] = {}
        self.h1: str | None = None
        self._in: str | None = None
        self._text: list[str] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if tag == "meta":
            values = {k.lower(): (v or "") for k, v in attrs}
            name = (values.get("property") or values.get("name") or "").strip().lower()
            content = values.get("content", "")
            if name in _TITLE_META and content.strip() and name not in self.meta:
                self.meta[name] = _clip(content)
        elif self._in is None and (
            (tag == "title" and self.title is None) or (tag == "h1" and self.h1 is None)
        ):
            self._in, self._text = tag, []

    def handle_data(self, data: str) -> None:
        if self._in is not None and sum(map(len, self._text)) < MAX_TITLE_CHARS * 2:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            text = _clip("".join(self._text))
            if tag == "title":
                self.title = text or None
            else:
                self.h1 = text or None
                self.done = True  # everything a title can come from is before the first </h1>
            self._in = None
        elif tag == "head" and self.title is not None and "og:title" in self.meta:
            self.done = True


def _clip(text: str) -> str:
    return normalize_whitespace(text)[:MAX_TITLE_CHARS].strip()


def decode_body(body: bytes, content_type: str | None) -> str:
    """The body as text: the charset the header names, else a `<meta charset>`, else UTF-8."""
    charset = None
    if content_type:
        m = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", content_type, re.I)
        charset = m.group(1) if m else None
    if charset is None:
        m2 = _META_CHARSET.search(body[:4096])
        charset = m2.group(1).decode("ascii") if m2 else None
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except (LookupError, UnicodeError):
        # A charset Python does not know, or a codec that refuses `errors="replace"` (a page may
        # name any codec: `idna`, `punycode`, `undefined` raise UnicodeError whatever the bytes).
        return body.decode("utf-8", errors="replace")


def page_titles_of(html: str) -> tuple[str | None, tuple[str, ...]]:
    """The page's `<title>` and its other titles (`og:title` and the like, the first `<h1>`)."""
    parser = _Titles()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # html.parser's few hard failures on broken markup
        pass
    others = [*parser.meta.values(), *([parser.h1] if parser.h1 else [])]
    title = parser.title or (others[0] if others else None)
    return title, tuple(t for t in dict.fromkeys(others) if t and t != title)


def parse_web_page(
    *, url: str, final_url: str, status: int, content_type: str | None, body: bytes
) -> tuple[WorkRecord, dict[str, Any]]:
    """The page's record (`work_type` "web_page") and the raw payload kept beside it (and cached:
    everything the record is read from, never the body)."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    html_like = not kind or kind in ("text/html", "application/xhtml+xml")
    title, others = page_titles_of(decode_body(body, content_type)) if html_like and body else (None, ())
    snapshot = snapshot_date(final_url)
    raw = {
        "url": url,
        "final_url": final_url,
        "status": status,
        "content_type": content_type,
        "title": title,
        "alternate_titles": list(others),
        "archive_date": snapshot.isoformat() if snapshot is not None else None,
        "bytes_read": len(body),
    }
    return page_record(raw), raw


def page_record(raw: dict[str, Any]) -> WorkRecord:
    """The page's record from its raw payload (`parse_web_page`'s, fresh or from the cache)."""
    title = raw.get("title")
    others = raw.get("alternate_titles") or ()
    final_url = str(raw.get("final_url") or raw.get("url") or "")
    return WorkRecord(
        source=SourceName.WEB,
        source_id=final_url,
        title=title if isinstance(title, str) else None,
        alternate_titles=tuple(t for t in others if isinstance(t, str)),
        work_type=CONTENT_TYPE_WEB_PAGE,
        urls={"cited": str(raw.get("url") or final_url), "final": final_url},
    )
