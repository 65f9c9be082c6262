"""URLs in user input are recorded, never fetched: a bibliography full of links to a loopback canary
is verified end to end (files read by the real input parsers, sources at the simulator), and the
canary hears nothing; every request that left the process went to a configured source."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.reports.formats import CollectingSink
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.verify import verify_to_sink
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import make_works, sim_settings, universe


class Canary(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Canary.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"message": {"title": ["a trap"]}}')

    do_POST = do_HEAD = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def canary() -> Iterator[str]:
    Canary.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Canary)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def bibliography_of_links(canary: str, works: list[dict[str, Any]]) -> dict[str, str]:
    """Every place a URL can hide in each input format, all pointing at the canary."""
    w = works[0]
    bib = "\n".join(
        [
            f"@article{{url_field, title = {{{w['title']}}}, author = {{Okafor, Imani}},",
            f"  year = {{{w['year']}}}, url = {{{canary}/paper.pdf}}, doi = {{{w['doi']}}}}}",
            f"@misc{{howpublished, title = {{A web page}}, howpublished = {{\\url{{{canary}/page}}}}}}",
            "@article{doi_as_url, title = {Something}, author = {Nobody, A.},",
            f"  doi = {{{canary}/10.5555/x}}}}",
            f"@online{{online, title = {{Blog}}, url = {{{canary}/blog}}, urldate = {{2021-01-01}}}}",
            "@article{eprint_url, title = {Preprint}, author = {Nobody, B.},",
            f"  eprint = {{{canary}/abs/2101.00001}}}}",
            "",
        ]
    )
    markdown = f"""# References

1. Okafor, I. (2019). [Seasonal variation]({canary}/md-link). Journal of Field Observations.
2. <{canary}/autolink>
3. Moreau, J. (2020). Tidal energy. https://doi.org/10.5555/fault.1 and {canary}/bare
[^1]: See {canary}/footnote
"""
    plain = f"""[1] I. Okafor, "A study," 2019. Available: {canary}/plain-1
[2] J. Moreau. Tidal energy. {canary}/plain-2 (accessed 2020).
"""
    csl = (
        f'[{{"id": "c1", "type": "webpage", "title": "Page", "URL": "{canary}/csl"}},'
        f' {{"id": "c2", "type": "article-journal", "title": "Art", "DOI": "{canary}/10.5555/y"}}]'
    )
    return {"refs.bib": bib, "refs.md": markdown, "refs.txt": plain, "refs.json": csl}


def test_urls_in_the_input_are_never_fetched(
    canary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    works = make_works(5)
    files = bibliography_of_links(canary, works)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    sent: list[httpx.URL] = []
    original = httpx.AsyncClient.send

    async def recording_send(
        self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any
    ) -> httpx.Response:
        sent.append(request.url)
        return await original(self, request, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", recording_send)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    with SimulatorServer(universe(works), SimulatorConfig.unlimited()) as sim:
        settings = sim_settings(tmp_path, sim)
        runtime = Runtime.open(settings)
        refs = list(
            iter_references([str(tmp_path / n) for n in files], max_bytes=1_000_000, max_pdf_pages=10)
        )
        sink = CollectingSink()
        verify_to_sink(runtime, refs, sink, input_description={"inputs": list(files)})
        sim_base = sim.base_url
    assert Canary.hits == [], f"the canary was fetched: {Canary.hits}"
    assert sent, "no request was made at all"
    foreign = [str(u) for u in sent if not str(u).startswith(sim_base)]
    assert foreign == []
    # The URLs are recorded as the user gave them.
    report = str(sink.document())
    assert f"{canary}/paper.pdf" in report and f"{canary}/md-link" in report
