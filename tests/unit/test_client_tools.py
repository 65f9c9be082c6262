"""The Python client and the agents' tool definitions, in the embedded mode (no broker, SQLite,
offline: the sources are never asked, so every reference ends unverifiable or out of scope)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from aletheia.config import Settings
from aletheia.pipeline.runtime import Runtime
from aletheia.producers.client import AletheiaClient, AsyncAletheiaClient
from aletheia.producers.tools import TOOLS, ToolError, call_tool

BIB = "@article{k1, title={A title nobody wrote}, author={Doe, Jane}, year={2020}, doi={10.1000/none.1}}\n"


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AletheiaClient:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        offline=True,
        broker_url=None,
    )
    return AletheiaClient(settings, submitted_by="tester")


def test_embedded_submit_runs_the_job_before_returning(client: AletheiaClient, tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(BIB)
    job_id = client.submit([path])
    status = client.wait(job_id, timeout=5)
    assert status["status"] == "done" and status["total"] == 1 and status["submitted_by"] == "tester"
    result = client.result(job_id)
    assert [r["key"] for r in result["references"]] == ["k1"]
    assert result["references"][0]["verdict"] != "verified"  # offline: nothing can be proven


def test_the_async_client_does_the_same(client: AletheiaClient) -> None:
    async def scenario() -> dict[str, object]:
        async_client = AsyncAletheiaClient(client.settings)
        job_id = await async_client.submit_text(BIB, name="refs.bib")
        await async_client.wait(job_id, timeout=5)
        return await async_client.result(job_id)

    assert len(asyncio.run(scenario())["references"]) == 1  # type: ignore[arg-type]


def test_tool_definitions_are_well_formed() -> None:
    names = [tool["name"] for tool in TOOLS]
    assert len(names) == len(set(names))
    for tool in TOOLS:
        schema = tool["input_schema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema.get("required", [])) <= set(schema["properties"])
        assert tool["description"].strip()
        json.dumps(tool)  # plain JSON, as tool APIs take it


def test_call_tool_runs_and_validates(client: AletheiaClient) -> None:
    submitted = call_tool(client, "submit_bibliography", {"text": BIB, "filename": "refs.bib"})
    job_id = submitted["job_id"]
    assert call_tool(client, "wait_for_job", {"job_id": job_id, "timeout_seconds": 5})["status"] == "done"
    assert call_tool(client, "job_status", {"job_id": job_id})["total"] == 1
    assert len(call_tool(client, "job_result", {"job_id": job_id})["references"]) == 1

    assert "error" in call_tool(client, "submit_bibliography", {"text": BIB, "paths": ["x.bib"]})
    assert "error" in call_tool(client, "job_status", {"job_id": "0" * 32})
    with pytest.raises(ToolError, match="unknown tool"):
        call_tool(client, "delete_everything", {})
    with pytest.raises(ToolError, match="missing"):
        call_tool(client, "verify_claim", {})
    with pytest.raises(ToolError, match="unknown argument"):
        call_tool(client, "job_status", {"job_id": job_id, "force": True})
