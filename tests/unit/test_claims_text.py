"""The claims-text pipeline without sources: bibliography discovery, marker resolution, the report
with a stand-in suggester, the job kind through the inline dispatcher, and the agent tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aletheia.config import Settings
from aletheia.core.bibliography import parse_text
from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.model import NoCandidates
from aletheia.pipeline.claims.research_document import discover_bibliographies
from aletheia.pipeline.claims.research_text import (
    NO_SUGGESTION,
    ReferenceIndex,
    check_claims_text,
    claims_exit_code,
)
from aletheia.pipeline.jobs.kinds import CHECK_CLAIMS_TEXT, TASK_NAMES, JobKind
from aletheia.pipeline.jobs.submission import InputDocument
from aletheia.pipeline.runtime import Runtime
from aletheia.producers.client import AletheiaClient
from aletheia.producers.tools import TOOLS, call_tool

BIB = (
    "@article{vaswani2017, author={Vaswani, Ashish and Shazeer, Noam}, title={Attention Is All You Need},"
    " year={2017}}\n@article{knuth, author={Knuth, Donald}, title={Sorting}, year={1998}}\n"
)
PAPER = (
    "# Intro\n\nTransformers are the state of the art in translation (Vaswani et al., 2017).\n"
    "Sorting needs O(n log n) comparisons [@knuth]. Heapsort is optimal [@missing].\n"
    "Studies have shown that sleep improves memory.\n"
)


def _refs(text: str) -> list[CitedReference]:
    return [r for r in parse_text(text, origin="refs.bib") if isinstance(r, CitedReference)]


def test_reference_index_resolves_each_kind_of_marker() -> None:
    index = ReferenceIndex(_refs(BIB))
    assert index.resolve("key", "knuth")[0].key == "knuth"  # type: ignore[union-attr]
    assert index.resolve("position", "2")[0].key == "knuth"  # type: ignore[union-attr]
    assert index.resolve("author_year", "Vaswani 2017")[0].key == "vaswani2017"  # type: ignore[union-attr]
    assert index.resolve("position", "3") == (None, "no reference number 3 in the bibliography")
    assert "no reference by Vaswani in 2018" in (index.resolve("author_year", "Vaswani 2018")[1] or "")
    twice = ReferenceIndex(_refs(BIB + "@misc{k2, author={Knuth, D.}, title={Other}, year={1998}}\n"))
    assert twice.resolve("author_year", "Knuth 1998") == (None, "2 references by Knuth in 1998: ambiguous")


def test_discover_bibliographies(tmp_path: Path) -> None:
    tex = tmp_path / "paper.tex"
    (tmp_path / "refs.bib").write_text(BIB)
    (tmp_path / "other.bib").write_text(BIB)
    assert discover_bibliographies(tex, "\\bibliography{refs}") == ([tmp_path / "refs.bib"], [])
    md = tmp_path / "paper.md"
    front = "---\nbibliography: other.bib\n---\n# T\n"
    assert discover_bibliographies(md, front) == ([tmp_path / "other.bib"], [])
    assert discover_bibliographies(md, "# T\n") == ([], [])  # two candidates: neither is taken
    (tmp_path / "paper.bib").write_text(BIB)
    # Only beside the document: used when it has no reference list of its own.
    assert discover_bibliographies(md, "# T\n") == ([], [tmp_path / "paper.bib"])


async def _refusing(claim: str, **_: Any) -> tuple[None, NoCandidates]:
    return None, NoCandidates(claim=claim, detail="no candidate fits")


def test_report_without_checking(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", offline=True)
    report = asyncio.run(
        check_claims_text(
            InputDocument("paper.md", PAPER.encode()),
            [InputDocument("refs.bib", BIB.encode())],
            gateway=None,
            settings=settings,
            project_root=tmp_path,
            check=False,
            suggester=_refusing,
        )
    )
    statuses = [(c["line"], c["status"]) for c in report["claims"]]
    assert statuses == [(3, "unchecked"), (4, "unchecked"), (4, "unresolved"), (5, "unsupported")]
    unsupported = report["claims"][-1]
    assert unsupported["suggestion"] == {
        "verified": False,
        "result": NO_SUGGESTION,
        "refusal": "NoCandidates",
        "detail": "no candidate fits",
    }
    assert report["summary"]["unsupported"] == 1 and report["summary"]["suggestions_refused"] == 1
    assert report["summary"]["exit_code"] == claims_exit_code(report) == 1
    json.dumps(report)


def test_the_job_kind_is_registered() -> None:
    from aletheia.workers.app import ROUTES

    assert CHECK_CLAIMS_TEXT in TASK_NAMES and ROUTES[CHECK_CLAIMS_TEXT] == {"queue": "evidence"}
    assert JobKind.CLAIMS_TEXT == "claims_text"


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


def test_a_claims_job_over_max_input_bytes_is_refused(client: AletheiaClient) -> None:
    # The document and its bibliography count together.
    client.settings = client.settings.model_copy(update={"max_input_bytes": len(PAPER.encode()) + 1})
    with pytest.raises(ValueError, match="exceeds max_input_bytes"):
        client.submit_claims_text(PAPER, name="paper.md", bibliography=BIB, suggest=False)


def test_claims_job_runs_embedded_and_is_idempotent(client: AletheiaClient) -> None:
    job_id = client.submit_claims_text(PAPER, name="paper.md", bibliography=BIB, suggest=False)
    status = client.wait(job_id, timeout=30)
    assert status["status"] == "done" and status["kind"] == JobKind.CLAIMS_TEXT
    report = client.result(job_id)
    assert report["summary"]["claims"] == 4 and len(report["artifacts"]) == 2
    assert all(Path(p).is_file() for p in report["artifacts"])
    # Offline: no source can be asked, so no citation is called verified.
    assert set(report["summary"]["citations_by_verdict"]) <= {"unverifiable", "out_of_scope"}

    from aletheia.pipeline.service import InlineDispatcher, LoopThread, ServiceContext, run_step

    ctx = ServiceContext(runtime=client.runtime, dispatcher=InlineDispatcher(), runner=LoopThread())
    try:
        run_step(ctx, CHECK_CLAIMS_TEXT, job_id)  # a redelivery of a finished job changes nothing
    finally:
        ctx.close()
    assert client.result(job_id)["summary"] == report["summary"]


def test_tool_schemas_are_valid_json_schema() -> None:
    for tool in TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool["input_schema"])
    by_name = {t["name"]: t["input_schema"] for t in TOOLS}
    validator = jsonschema.Draft202012Validator(by_name["find_unsupported_claims"])
    assert validator.is_valid({"text": "x", "format": "latex"})
    assert not validator.is_valid({"text": "x", "format": "docx"})
    assert not jsonschema.Draft202012Validator(by_name["validate_research"]).is_valid({"text": ""})


def test_find_unsupported_claims_tool_is_pure(client: AletheiaClient) -> None:
    result = call_tool(client, "find_unsupported_claims", {"text": PAPER, "format": "markdown"})
    assert result["count"] == 1
    assert result["claims"][0]["sentence"] == "Studies have shown that sleep improves memory."
    assert client._runtime is None  # no database, no sources
    refused = call_tool(client, "find_unsupported_claims", {"text": PAPER, "fmt": "latex"})
    assert "unknown argument(s) fmt" in refused["error"]


def test_validate_research_tool(client: AletheiaClient) -> None:
    queued = call_tool(
        client,
        "validate_research",
        {
            "text": PAPER,
            "filename": "paper.md",
            "bibliography": BIB,
            "suggest": False,
            "wait": False,
        },
    )
    assert queued["status"] == "done"  # the embedded mode runs it before returning
    report = call_tool(client, "job_result", {"job_id": queued["job_id"]})
    assert report["summary"]["claims"] == 4
    waited = call_tool(client, "validate_research", {"text": PAPER, "suggest": False, "timeout_seconds": 30})
    assert waited["summary"]["unsupported"] == 1


@pytest.mark.parametrize(
    ("verdicts", "status"),
    [
        (["verified", "metadata_error"], "verified"),
        (["verified", "not_found"], "flagged"),
        (["verified", "out_of_scope"], "doubtful"),  # a website or software: never an accusation
        (["unverifiable"], "doubtful"),
        (["fabricated", "unverifiable"], "flagged"),
    ],
)
def test_claim_status_from_its_citations(verdicts: list[str], status: str) -> None:
    from aletheia.pipeline.claims.research_text import _claim_status

    claim = {"own_work": False, "citations": [{"resolved": True, "verdict": v} for v in verdicts]}
    assert _claim_status(claim, True) == status
    assert _claim_status(claim, False) == "unchecked"
    assert _claim_status({**claim, "citations": [{"resolved": False}]}, True) == "unresolved"


def test_a_pdf_is_read_through_the_pdf_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aletheia.pipeline.documents import pdf_reading, pdf_references, sandbox
    from tests.unit.test_bibliography_inputs import _pdf

    reads: list[str] = []
    real = pdf_reading.pdf_text

    def counted(data: bytes, *, origin: str, **options: Any) -> str:
        reads.append(origin)
        return real(data, origin=origin, max_pages=options.get("max_pages"), timeout=options.get("timeout"))

    for module in (pdf_references, pdf_reading):
        monkeypatch.setattr(module, "pdf_text", counted)
    monkeypatch.setattr(sandbox, "pdf_text_isolated", counted)

    pdf = _pdf(
        [
            [
                (72, 740, "1 Introduction"),
                (72, 726, "Tidal forcing is the state of the art explanation of salinity [1]."),
                (72, 712, "It is well known that coastal aquifers are 40% saline."),
            ],
            [
                (72, 740, "References"),
                (72, 720, "[1] Petra Novak and Lars van den Berg. 2020. Tidal forcing of coastal"),
                (84, 708, "aquifers. Journal of Hydrology Letters, 12:1-9."),
            ],
        ]
    )
    report = asyncio.run(
        check_claims_text(
            InputDocument("paper.pdf", pdf),
            [],
            gateway=None,
            settings=Settings(data_dir=tmp_path / "data", offline=True),
            project_root=tmp_path,
            check=False,
            suggest=False,
        )
    )
    assert report["format"] == "plain" and report["bibliography"]["references"] == 1
    assert reads == ["paper.pdf"]  # one extraction gives both the text and its reference list
    cited, unsupported = report["claims"]
    assert cited["citations"][0]["resolved"] and cited["status"] == "unchecked"
    assert unsupported["status"] == "unsupported" and {t["rule"] for t in unsupported["triggers"]} == {
        "proven",
        "percentage",
    }
