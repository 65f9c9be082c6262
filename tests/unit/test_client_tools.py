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

    assert (
        "exactly one of"
        in call_tool(client, "submit_bibliography", {"text": BIB, "paths": ["x.bib"]})["error"]
    )
    assert "error" in call_tool(client, "job_status", {"job_id": "0" * 32})
    with pytest.raises(ToolError, match="unknown tool"):
        call_tool(client, "delete_everything", {})
    assert "missing argument(s) claim" in call_tool(client, "verify_claim", {})["error"]
    assert (
        "unknown argument(s) force"
        in call_tool(client, "job_status", {"job_id": job_id, "force": True})["error"]
    )


def test_no_tool_schema_has_a_top_level_combinator() -> None:
    """The Anthropic Messages API refuses `oneOf`/`anyOf`/`allOf` at the top of `input_schema`
    (issue 22: `submit_bibliography` had a `oneOf`): plain object schemas only."""
    for tool in TOOLS:
        schema = tool["input_schema"]
        assert not {"oneOf", "anyOf", "allOf", "not", "if", "then", "else"} & set(schema), tool["name"]
        assert schema["type"] == "object" and isinstance(schema["properties"], dict)
    submit = next(t for t in TOOLS if t["name"] == "submit_bibliography")
    assert "exactly one of `paths`" in submit["description"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"paths": "/x.bib"}, "paths: '/x.bib' is not of type 'array'"),  # was IsADirectoryError: '/'
        ({"paths": []}, "paths: [] should be non-empty"),
        ({"paths": [3]}, "paths.0: 3 is not of type 'string'"),
        ({"paths": ["/"]}, "paths[0]: not a regular file"),
        ({"paths": ["/no/such/refs.bib"]}, "paths[0]: no such file"),
        ({"text": ""}, "text: '' should be non-empty"),  # was a job of 0 references, `done`
        ({"text": " \n\t"}, "no references found"),
        ({}, "exactly one of `paths`"),
        ({"text": BIB, "filename": 7}, "filename: 7 is not of type 'string'"),
    ],
)
def test_submit_bibliography_refuses_bad_arguments_without_a_job(
    client: AletheiaClient, args: dict[str, object], expected: str
) -> None:
    result = call_tool(client, "submit_bibliography", args)
    assert set(result) == {"error"} and expected in result["error"], result
    assert result["error"].startswith("submit_bibliography: ")
    assert client.runtime.jobs.unfinished_jobs() == []
    with client.runtime.jobs.sessions() as s:
        from sqlalchemy import func, select

        from aletheia.storage.models import Job

        assert s.scalar(select(func.count()).select_from(Job)) == 0  # nothing was created


def test_every_tool_checks_types_and_bounds(client: AletheiaClient) -> None:
    assert (
        "is not of type 'boolean'" in call_tool(client, "verify_claim", {"claim": "x", "wait": "no"})["error"]
    )
    too_long = call_tool(client, "wait_for_job", {"job_id": "0" * 32, "timeout_seconds": 0})
    assert "timeout_seconds: 0 is less than the minimum of 1" in too_long["error"]
    assert "does not match" in call_tool(client, "job_status", {"job_id": "../etc"})["error"]
    assert "must be a JSON object" in call_tool(client, "job_status", ["x"])["error"]  # type: ignore[arg-type]


def test_verify_claim_carries_a_human_override(client: AletheiaClient, tmp_path: Path) -> None:
    """Issue 29: the override is not only `aletheia cite`'s: the client and the agent tool take
    it, and it travels in the claim job's input to the stage that writes the artifact."""
    reason = "S2 lists the workshop version; AJ confirmed the journal one"
    args = {"claim": "Norm clipping fails against coordinated poisoning", "override_reason": reason}
    submitted = call_tool(client, "verify_claim", {**args, "wait": False})
    job = client.runtime.jobs.job(submitted["job_id"])
    assert job is not None and job.input["override_reason"] == reason
    direct = client.verify_claim(args["claim"], override_reason=reason, into=tmp_path, wait=False)
    job = client.runtime.jobs.job(direct["job_id"])
    assert job is not None and job.input["override_reason"] == reason
    assert job.input["repository"] == str(tmp_path.resolve())
    assert "does not match" in call_tool(client, "verify_claim", {**args, "override_reason": "  "})["error"]
    with pytest.raises(ValueError, match="override_reason"):
        client.verify_claim(args["claim"], override_reason=" ", wait=False)
