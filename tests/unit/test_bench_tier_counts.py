"""The benches' counts by tier and verification status (issue 12): the tier x status table, the
kinds of non-scholarly references, and how each group of references was decided."""

from __future__ import annotations

from aletheia.bench.tier_counts import (
    decision_label,
    decisions_by_group,
    format_tier_table,
    matched_sources_by_tier,
    non_scholarly_group,
    tier_figures,
)
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus


def verdict(status: VerdictStatus, source: SourceName | None = None, **fields: object) -> Verdict:
    match = WorkRecord(source=source, title="A work") if source is not None else None
    return Verdict(status=status, match=match, **fields)  # type: ignore[arg-type]


VERDICTS = {
    "a": verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF),
    "b": verdict(VerdictStatus.METADATA_ERROR, SourceName.OPENALEX, severity=Severity.MINOR),
    "c": verdict(VerdictStatus.VERIFIED, SourceName.OPEN_LIBRARY),
    "d": verdict(VerdictStatus.OUT_OF_SCOPE, reasons=(Reason.OUT_OF_SCOPE_TYPE,)),
    "e": verdict(VerdictStatus.VERIFIED, SourceName.WEB, reasons=(Reason.WEB_PAGE_TITLE_MATCHES,)),
}


def test_the_tier_table() -> None:
    table = format_tier_table(tier_figures(VERDICTS.values()), title="ICLR")
    lines = table.splitlines()
    assert lines[0] == "ICLR (tier x verdict; verification status):"
    header = lines[1].split()
    assert header == [
        "tier", "refs", "verified", "metadata_error", "out_of_scope", "verif", "partial", "unverif"
    ]  # fmt: skip
    rows = {" ".join(line.split()[:3]): line.split() for line in lines[2:]}
    assert rows["tier 1 books"][3:] == ["1", "1", "1"]  # 1 reference: verified, and verified
    assert rows["tier 2 scholarly"][3:] == ["2", "1", "1", "1", "1"]
    assert rows["tier 4 web"][3:] == ["1", "1", "1"]
    assert lines[-2].split()[:2] == ["no", "tier"] and lines[-2].split()[-2:] == ["1", "1"]
    assert lines[-1].split() == ["total", "5", "3", "1", "1", "3", "1", "1"]
    assert format_tier_table({}, title="x") == "x: nothing counted"


def test_decision_labels_and_matched_sources() -> None:
    assert decision_label(VERDICTS["a"]) == "verified · tier 2 scholarly (crossref)"
    assert decision_label(VERDICTS["e"]) == "verified · tier 4 web (web) · web resource"
    assert decision_label(VERDICTS["d"]) == "out_of_scope · no tier"
    assert matched_sources_by_tier(VERDICTS.values()) == {
        "tier 1 books": {"open_library": 1},
        "tier 2 scholarly": {"crossref": 1, "openalex": 1},
        "tier 4 web": {"web": 1},
    }


def test_non_scholarly_groups_and_their_decisions() -> None:
    assert non_scholarly_group("url at github.com") == non_scholarly_group("a web page at huggingface.co")
    assert non_scholarly_group("url at openai.com") == "web page" == non_scholarly_group("a group's web page")
    assert non_scholarly_group("book") == "book (no DOI)"
    assert non_scholarly_group("venue 'GitHub repository'").startswith("hosting venue")
    assert non_scholarly_group("no title") == "no title"
    decided = decisions_by_group({"c": "book", "d": "code", "e": "web page", "gone": "code"}, VERDICTS)
    assert decided["code"] == {
        "references": 1,
        "decided": {"out_of_scope · no tier": 1},
        "reasons": {"out_of_scope_type": 1},
    }
    assert decided["web page"]["decided"] == {"verified · tier 4 web (web) · web resource": 1}
    assert decided["book"]["decided"] == {"verified · tier 1 books (open_library)": 1}
