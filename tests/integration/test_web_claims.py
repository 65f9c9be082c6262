"""Generic web claims (issue 29; seed 000 §2, seed 001 `verify_claim_with_search`): a claim about
an RFC checked against the page itself, through the SSRF-safe web tier, with the verbatim rule.
The loopback simulator serves the page (`/pages/<name>`, tests/fixtures/claims/pages/)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from aletheia.config import Settings
from aletheia.pipeline.claims.judge import RuleJudge
from aletheia.pipeline.claims.reasoner import LexicalReasoner
from aletheia.pipeline.claims.web_claims import WebClaimResult, verify_claim_with_search
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from aletheia.sources.transport.ratelimit import build_rate_limiter

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "universe.jsonl"
PAGE = (UNIVERSE.parent / "pages" / "rfc-widget-transfer.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
async def gateway(simulator: SimulatorServer, tmp_path: Path) -> AsyncIterator[SourceGateway]:
    port = urlsplit(simulator.base_url).port
    settings = Settings(
        data_dir=tmp_path / "data",
        oa_fulltext=True,
        # The test-only allow-list lets the fetcher reach the loopback simulator; nothing else is.
        web_tier_allow_networks="127.0.0.1/32",
        web_tier_ports=f"80,443,{port}",
    )
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings, http, build_rate_limiter(settings))


async def _check(gateway: SourceGateway, claim: str, *urls: str) -> WebClaimResult:
    return await verify_claim_with_search(
        claim, gateway=gateway, reasoner=LexicalReasoner(), judge=RuleJudge(), urls=urls
    )


def _page(simulator: SimulatorServer) -> str:
    return f"{simulator.base_url}/pages/rfc-widget-transfer.html"


async def test_a_claim_the_page_says_is_supported_with_a_verbatim_excerpt(
    simulator: SimulatorServer, gateway: SourceGateway
) -> None:
    result = await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411", _page(simulator))
    assert result.verdict == "supported", result.as_json()
    assert result.url == _page(simulator) and result.exit_code() == 0
    (excerpt, *_) = result.excerpts
    assert excerpt["text"] in " ".join(PAGE.split())  # the page's own words
    assert "port 7411" in excerpt["text"] and excerpt["location"] == "Section 4. Transport, paragraph 1"


async def test_the_page_is_converted_under_the_gateways_settings(
    simulator: SimulatorServer, gateway: SourceGateway
) -> None:
    # Its conversion is cached in the gateway's data folder (it went to the process's before).
    await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411", _page(simulator))
    assert list((gateway.settings.data_dir / "fulltext").rglob("*.json"))
    small = gateway.settings.model_copy(update={"max_input_bytes": 64})
    gateway.settings = small
    result = await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411", _page(simulator))
    assert result.verdict == "unreachable" and "the limit is 64" in result.pages[0]["why"], result.as_json()


async def test_a_claim_the_page_denies_is_contradicted(
    simulator: SimulatorServer, gateway: SourceGateway
) -> None:
    result = await _check(gateway, "A WTP/2 client may reuse a nonce within one connection", _page(simulator))
    assert result.verdict == "contradicted", result.as_json()
    assert "MUST NOT reuse a nonce" in result.excerpts[0]["text"] and result.exit_code() == 1


async def test_a_claim_the_page_does_not_make_is_not_supported(
    simulator: SimulatorServer, gateway: SourceGateway
) -> None:
    result = await _check(gateway, "WTP/2 mirrors cache widget thumbnails for seven days", _page(simulator))
    assert result.verdict == "not_supported" and result.excerpts == [] and result.exit_code() == 1
    assert result.pages[0]["read"] is True


async def test_a_refused_address_is_never_fetched(simulator: SimulatorServer, gateway: SourceGateway) -> None:
    result = await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411", "http://10.0.0.8/rfc.html")
    assert result.verdict == "unreachable" and result.exit_code() == 3
    assert "10.0.0.8" in result.pages[0]["why"] and result.pages[0]["read"] is False
    gone = await _check(gateway, "WTP/2 runs over TLS 1.3", f"{simulator.base_url}/pages/missing.html")
    assert gone.verdict == "unreachable" and "404" in gone.pages[0]["why"]


async def test_without_a_url_or_a_web_search_there_is_no_page(gateway: SourceGateway) -> None:
    result = await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411")
    assert result.verdict == "no_pages" and "no web search" in (result.why or "")


def test_the_cli_and_the_agent_tool(
    simulator: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from aletheia.config.settings import reset_settings_cache
    from aletheia.pipeline.runtime import Runtime
    from aletheia.producers.cli import main
    from aletheia.producers.client import AletheiaClient
    from aletheia.producers.tools import call_tool

    port = urlsplit(simulator.base_url).port
    env = {
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
        "ALETHEIA_OA_FULLTEXT": "true",
        "ALETHEIA_WEB_TIER_ALLOW_NETWORKS": "127.0.0.1/32",
        "ALETHEIA_WEB_TIER_PORTS": f"80,443,{port}",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    reset_settings_cache()
    try:
        claim = "WTP/2 runs over TLS 1.3 on TCP port 7411"
        shown = CliRunner().invoke(main, ["web-claim", claim, "--url", _page(simulator)])
        assert shown.exit_code == 0, shown.output
        assert shown.stdout.startswith(f"supported: {_page(simulator)}")
        assert '"WTP/2 runs over TLS 1.3 on TCP port 7411."' in shown.stdout
        refused = CliRunner().invoke(main, ["web-claim", claim, "--url", "ftp://example.org/x"])
        assert refused.exit_code == 2
        answer = call_tool(
            AletheiaClient(), "verify_claim_with_search", {"claim": claim, "urls": [_page(simulator)]}
        )
        assert answer["verdict"] == "supported" and answer["ok"] is True
        assert "error" in call_tool(
            AletheiaClient(), "verify_claim_with_search", {"claim": claim, "urls": ["x"]}
        )
    finally:
        reset_settings_cache()


async def test_without_a_url_the_web_search_s_pages_are_read(
    simulator: SimulatorServer, gateway: SourceGateway
) -> None:
    import dataclasses
    from datetime import UTC, datetime

    from aletheia.core.records import SourceName, WorkRecord
    from aletheia.sources.base import SourceRecord

    asked: list[str] = []

    class Search:
        source = SourceName.TAVILY

        async def search(self, query: str, *, limit: int = 10) -> list[SourceRecord]:
            asked.append(query)
            page = _page(simulator)
            hit = WorkRecord(
                source=SourceName.TAVILY, title="RFC 9990", source_id=page, urls={"result": page}
            )
            return [SourceRecord(hit, None, datetime.now(UTC))]

    gateway.web_tiers = dataclasses.replace(gateway.web_tiers, search=Search())  # type: ignore[arg-type]
    result = await _check(gateway, "WTP/2 runs over TLS 1.3 on TCP port 7411")
    assert result.verdict == "supported" and result.url == _page(simulator), result.as_json()
    assert asked and "TLS" in asked[0]
