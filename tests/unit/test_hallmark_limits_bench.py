"""Issue 23: `aletheia bench hallmark-limits` writes every verdict, one JSON line per entry, so that
two runs of one tree (batching on and off) are compared reference by reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.bench import hallmark_limits
from aletheia.producers.cli import main

pytestmark = pytest.mark.shared


def test_every_entry_s_verdict_is_written(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "verdicts.jsonl"
    figures = hallmark_limits.run(
        limit=30,
        dataset=shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl",
        verdicts_path=out,
    )
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == figures["entries"] == 30
    assert all(set(line) == {"key", "label", "status", "flagged", "reasons"} for line in lines)
    assert figures["status_429"] == 0 and figures["requests"]["cold"]["references"] > 0
    assert "bound_seconds_at_rate" not in figures  # only under the limits


def test_the_command_is_registered() -> None:
    result = CliRunner().invoke(main, ["bench", "hallmark-limits", "--help"])
    assert result.exit_code == 0 and "--sliding-window" in result.output and "--verdicts" in result.output
