"""The web tier's address settings: a malformed `ALETHEIA_WEB_TIER_ALLOW_NETWORKS` (or `_PORTS`) is
an error naming the setting and the value when the settings are read with the tier on, or with the
open-access full text on (it fetches through the same fetcher); with both off they are never read,
and the gateway builds with no fetcher."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from aletheia.config import Settings
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.base import SourceUnavailableError
from aletheia.sources.transport.ratelimit import LocalRateLimiter


@pytest.mark.parametrize("value", ["not-a-network", "127.0.0.0/8,10.0.0.0/33", "::1/129", "localhost"])
def test_a_malformed_allow_list_is_a_clear_error_with_the_tier_on(value: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(_env_file=None, web_tier=True, web_tier_allow_networks=value)
    message = str(caught.value)
    assert "ALETHEIA_WEB_TIER_ALLOW_NETWORKS" in message
    bad = next(n.strip() for n in value.split(",") if n.strip() not in ("127.0.0.0/8",))
    assert repr(bad) in message


def test_the_same_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALETHEIA_WEB_TIER", "true")
    monkeypatch.setenv("ALETHEIA_WEB_TIER_ALLOW_NETWORKS", "127.0.0.1/8, fe80::/10 , bogus")
    with pytest.raises(ValidationError, match=r"ALETHEIA_WEB_TIER_ALLOW_NETWORKS: 'bogus'"):
        Settings(_env_file=None)


@pytest.mark.parametrize("value", ["80,http", "0", "70000", "443,-1"])
def test_a_malformed_port_list_is_a_clear_error_with_the_tier_on(value: str) -> None:
    with pytest.raises(ValidationError, match="ALETHEIA_WEB_TIER_PORTS"):
        Settings(_env_file=None, web_tier=True, web_tier_ports=value)


def test_well_formed_lists_are_accepted() -> None:
    s = Settings(
        _env_file=None,
        web_tier=True,
        web_tier_allow_networks=" 127.0.0.0/8, ::1/128 ,",
        web_tier_ports="80, 8443",
    )
    assert s.web_tier_allow_networks.startswith(" 127")  # kept as given; the policy reads it


def test_the_open_access_full_text_reads_the_lists_too() -> None:
    # On by default, and its fetcher has the web tier's rules: a bad entry is the same error.
    with pytest.raises(ValidationError, match="ALETHEIA_WEB_TIER_ALLOW_NETWORKS: 'bogus'"):
        Settings(_env_file=None, web_tier=False, web_tier_allow_networks="bogus")
    with pytest.raises(ValidationError, match="ALETHEIA_WEB_TIER_PORTS"):
        Settings(_env_file=None, web_tier=False, oa_fulltext=True, web_tier_ports="http")


async def test_with_the_tier_off_the_lists_are_never_read(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path,
        web_tier=False,
        oa_fulltext=False,
        web_tier_allow_networks="not-a-network",
        web_tier_ports="http",
    )
    async with httpx.AsyncClient() as http:
        gateway = SourceGateway(settings, http, LocalRateLimiter())
    page = gateway.web_tiers.page
    assert page.fetcher is None and not page.enabled
    with pytest.raises(SourceUnavailableError, match="ALETHEIA_WEB_TIER"):
        await page.check("https://example.org/")
    assert gateway.open_access.fetcher is None and not gateway.open_access.enabled
    with pytest.raises(SourceUnavailableError, match="ALETHEIA_OA_FULLTEXT"):
        await gateway.open_access.fetch("https://example.org/paper.pdf")
