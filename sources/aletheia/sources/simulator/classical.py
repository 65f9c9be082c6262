"""Perseus (CTS `GetPassage`) and CCEL (section pages), simulated over a few passages (Tier 3).

The passages are a fixed table here: the canonical structure of each work is the product's own
data (`core/data/canonical_works.json`); the simulator only serves text. A passage of a known
work that is not in the table answers as CTS does for a passage it cannot find (a `CTSError`,
`InvalidPassageReference`, HTTP 200); an unknown work's URN is a 404, as is a CCEL page not here.
"""

from __future__ import annotations

import html
from typing import Final

from aletheia.sources.simulator.common import xml_attr, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, text_response, xml_response

CTS_PASSAGES: Final[dict[str, tuple[str, str]]] = {
    # urn -> (citation scheme element, text)
    "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1": ("l", "μῆνιν ἄειδε θεὰ Πηληϊάδεω Ἀχιλῆος"),
    "urn:cts:greekLit:tlg0031.tlg004.perseus-grc2:3.16": (
        "p",
        "οὕτως γὰρ ἠγάπησεν ὁ θεὸς τὸν κόσμον, ὥστε τὸν υἱὸν τὸν μονογενῆ ἔδωκεν, ἵνα πᾶς ὁ πιστεύων "
        "εἰς αὐτὸν μὴ ἀπόληται ἀλλ᾽ ἔχῃ ζωὴν αἰώνιον.",
    ),
    "urn:cts:greekLit:tlg0059.tlg030.perseus-grc2:514a": (
        "p",
        "μετὰ ταῦτα δή, εἶπον, ἀπείκασον τοιούτῳ πάθει τὴν ἡμετέραν φύσιν παιδείας τε πέρι καὶ ἀπαιδευσίας.",
    ),
}
CCEL_PAGES: Final[dict[str, tuple[str, str]]] = {
    "/ccel/augustine/confess.x.xxvii.html": (
        "Confessions, Book X, Chapter XXVII",
        "Too late loved I Thee, O Thou Beauty of ancient days, yet ever new! too late I loved Thee! "
        "And behold, Thou wert within, and I abroad, and there I searched for Thee;",
    ),
}
CTS_PATH: Final = "/api/cts"


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    urn = request.param("urn")
    return "single", [urn] if urn else [path]


def _cts_error(code: str, message: str, status: int = 200) -> Response:
    body = (
        '<CTSError xmlns="http://chs.harvard.edu/xmlns/cts">'
        f"<message>{xml_text(message)}</message><code>{xml_text(code)}</code></CTSError>"
    )
    return xml_response(body, status=status)


def handle_perseus(request: Request, path: str) -> Response:
    if path != CTS_PATH:
        return text_response("Not Found", status=404)
    if request.param("request") != "GetPassage":
        return _cts_error("InvalidRequest", "only GetPassage is simulated", status=400)
    urn = request.param("urn") or ""
    work_urn = urn.rsplit(":", 1)[0] if urn.count(":") >= 4 else urn
    if not any(u.startswith(work_urn + ":") for u in CTS_PASSAGES):
        return _cts_error("InvalidURN", f"no text {work_urn}", status=404)
    found = CTS_PASSAGES.get(urn)
    if found is None:
        return _cts_error("InvalidPassageReference", f"no passage {urn}")
    element, text = found
    passage = urn.rsplit(":", 1)[1]
    body = (
        '<GetPassage xmlns="http://chs.harvard.edu/xmlns/cts">'
        f"<request><requestName>GetPassage</requestName><requestUrn>{xml_text(urn)}</requestUrn></request>"
        f"<reply><urn>{xml_text(urn)}</urn><passage>"
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><body><div type="edition">'
        f'<div type="textpart" n={xml_attr(passage)}><{element}>{xml_text(text)}</{element}></div>'
        "</div></body></text></TEI></passage></reply></GetPassage>"
    )
    return xml_response(body)


def handle_ccel(request: Request, path: str) -> Response:
    page = CCEL_PAGES.get(path)
    if page is None:
        return text_response("Not Found", status=404)
    title, text = page
    body = (
        f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title><script>var x = 1;</script></head>"
        "<body><nav>Previous | Next</nav>"
        f'<div class="book-content"><p>{html.escape(text)}</p></div></body></html>'
    )
    return text_response(body, content_type="text/html; charset=utf-8")
