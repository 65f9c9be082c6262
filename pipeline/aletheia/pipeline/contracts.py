"""The nightly live-API contract check (seed 000 §10.4): one real query per source, the answer's
shape compared with the recorded one (`aletheia.sources.contracts`), drift reported and stored.

It asks each source once (Crossref, OpenAlex, Semantic Scholar, arXiv, PubMed: the recorded
`lookup` and `query`), afresh (no cached answer, no library), through the same clients, transport,
politeness and global limits as any request. Per source the result is `ok`, `drift` (a recorded
key gone, a type changed; or the client's parser refusing the answer: `unparseable`), `not_found`
(the recorded work is no longer there: the query needs changing) or `unreachable` (the source
could not be asked; not drift). New keys are listed, never drift.

It never fails a job and never raises: beat runs it (`aletheia.control.contract_check`, nightly at
`ALETHEIA_CONTRACT_CHECK_SCHEDULE`), it touches no job, and whatever goes wrong is in the report.
Each report is stored as JSON under the reports folder (`contract-checks/<time>.json`, and
`latest.json`), and `aletheia contract-check` shows the latest (or runs one now with `--run`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from aletheia.pipeline.atomic_files import write_atomically
from aletheia.sources.base import SourceError, SourceParseError
from aletheia.sources.contracts import compare_shapes, json_shape, load_contracts, xml_shape

if TYPE_CHECKING:
    from aletheia.config import Settings
    from aletheia.pipeline.jobs.context import ServiceContext

__all__ = [
    "ContractReport",
    "ContractResult",
    "check_contracts",
    "contract_check",
    "latest_contract_report",
    "store_contract_report",
]

logger = logging.getLogger(__name__)
REPORTS_FOLDER: Final = "contract-checks"
LATEST: Final = "latest.json"


@dataclass
class ContractResult:
    source: str
    query: str
    status: str  # ok | drift | not_found | unreachable
    differences: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    @property
    def drifted(self) -> bool:
        return self.status == "drift"


@dataclass
class ContractReport:
    checked_at: str
    results: list[ContractResult] = field(default_factory=list)

    @property
    def drifted(self) -> list[ContractResult]:
        return [r for r in self.results if r.drifted]

    def exit_code(self) -> int:
        """0: every source answered in its recorded shape; 1: drift (or a recorded work gone);
        3: no drift, but a source could not be asked."""
        if any(r.status in ("drift", "not_found") for r in self.results):
            return 1
        return 3 if any(r.status == "unreachable" for r in self.results) else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "checked_at": self.checked_at,
            "drifted": [r.source for r in self.drifted],
            "exit_code": self.exit_code(),
            "results": [r.__dict__ for r in self.results],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ContractReport:
        return cls(str(data["checked_at"]), [ContractResult(**r) for r in data.get("results", [])])


def _shape(raw: Any) -> Any:
    return xml_shape(raw) if isinstance(raw, str) else json_shape(raw)


def _unparseable(source: str, query: str, exc: Exception) -> ContractResult:
    row = {"kind": "unparseable", "path": "(root)", "detail": f"the answer no longer parses: {exc}"}
    return ContractResult(source, query, "drift", [row])


async def _check_one(gateway: Any, source: str, contract: Mapping[str, Any]) -> ContractResult:
    query = str(contract["query"])
    try:
        lookup = getattr(getattr(gateway, source), str(contract["lookup"]))
        found = await lookup(query)
    except SourceParseError as exc:  # the client's parser refuses the answer: its shape changed
        return _unparseable(source, query, exc)
    except SourceError as exc:
        return ContractResult(source, query, "unreachable", error=str(exc))
    except Exception as exc:  # the check never fails: anything else is reported, not raised
        logger.exception("contract check of %s failed", source)
        return ContractResult(source, query, "unreachable", error=f"{type(exc).__name__}: {exc}")
    if found is None:
        return ContractResult(source, query, "not_found", error=f"{source} no longer knows {query}")
    try:
        current = _shape(found.raw)
    except Exception as exc:  # an XML answer that no longer parses as XML
        return _unparseable(source, query, exc)
    differences = compare_shapes(contract["shape"], current)
    rows = [{"kind": d.kind, "path": d.path, "detail": d.describe()} for d in differences]
    return ContractResult(source, query, "drift" if any(d.drift for d in differences) else "ok", rows)


async def check_contracts(
    gateway: Any, contracts: Mapping[str, Mapping[str, Any]] | None = None, *, now: datetime | None = None
) -> ContractReport:
    """One query per source and its answer's shape against the recording (`contracts` defaults
    to the shipped `data/api_contracts.json`; tests give the simulator's works as queries)."""
    contracts = contracts if contracts is not None else load_contracts()
    report = ContractReport(checked_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"))
    for source, contract in contracts.items():  # one after another: one request each, no hurry
        report.results.append(await _check_one(gateway, source, contract))
    return report


def _folder(settings: Settings) -> Path:
    return settings.reports_path() / REPORTS_FOLDER


def store_contract_report(settings: Settings, report: ContractReport) -> Path:
    """Write the report (`contract-checks/<time>.json` and `latest.json`, atomically)."""
    folder = _folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(report.as_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    stamp = report.checked_at.replace(":", "").replace("+0000", "Z").replace("+00:00", "Z")
    path = folder / f"{stamp}.json"
    write_atomically(path, data, prefix=".contract.")
    write_atomically(folder / LATEST, data, prefix=".contract.")
    return path


def latest_contract_report(settings: Settings) -> ContractReport | None:
    path = _folder(settings) / LATEST
    if not path.is_file():
        return None
    return ContractReport.from_json(json.loads(path.read_text(encoding="utf-8")))


def contract_check(ctx: ServiceContext) -> dict[str, Any]:
    """Beat, nightly: check, store, log the drift. Never raises (a failed check is a report too)."""
    try:
        gateway = ctx.source_gateway(fresh=True)
        report = ctx.runner.run(check_contracts(gateway))
    except Exception as exc:  # the gateway could not even be opened
        logger.exception("contract check could not run")
        report = ContractReport(
            datetime.now(UTC).isoformat(timespec="seconds"),
            [ContractResult("*", "", "unreachable", error=f"{type(exc).__name__}: {exc}")],
        )
    try:
        store_contract_report(ctx.settings, report)
    except OSError:
        logger.exception("contract check report could not be stored")
    for result in report.drifted:
        logger.warning(
            "API contract drift",
            extra={"source": result.source, "differences": [d["detail"] for d in result.differences]},
        )
    return report.as_json()
