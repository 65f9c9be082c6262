"""A report's summary counts of ADR 004's transparency fields (issue 12): how many references are
verified, partially verified or unverified (`by_verification_status`), and which tier decided how
many of them, with what verdicts (`by_tier`).

Both are counted from the verdicts through `core.transparency.transparency`, the function that
writes each REFERENCE object's `verification_status` and `tier`, so the summary never disagrees
with the references. The JSON shape (docs/report-schema.md):

    "by_verification_status": {"partially_verified": 1, "unverified": 2, "verified": 7},
    "by_tier": [
      {"tier": 2, "tier_name": "scholarly", "total": 8,
       "by_verdict": {"metadata_error": 1, "not_found": 1, "verified": 6},
       "by_verification_status": {"partially_verified": 1, "unverified": 1, "verified": 6}},
      {"tier": null, "tier_name": null, "total": 2, ...}
    ]

`by_tier` is a list ordered by tier, the references no tier decided (`unverifiable`,
`out_of_scope`) last with `tier` null: JSON object keys would be strings ("2", "none"), and each
entry carries the tier's name beside its number as the REFERENCE object does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aletheia.core.transparency import TIER_NAMES, Tier, Transparency, transparency
from aletheia.core.verdicts import Verdict

__all__ = ["TransparencyCounts", "tier_label"]


def tier_label(tier: Tier | int | None) -> str:
    """A tier in words, "tier 2 scholarly", or "no tier" for what no source decided."""
    if tier is None:
        return "no tier"
    try:
        return f"tier {int(tier)} {TIER_NAMES[Tier(tier)]}"
    except ValueError:
        return f"tier {tier}"


def _sort_key(tier: Tier | None) -> int:
    return len(Tier) if tier is None else int(tier)


@dataclass
class TransparencyCounts:
    """Counts by verification status, and by tier x verdict and tier x verification status."""

    by_verification_status: Counter[str] = field(default_factory=Counter)
    by_tier_verdict: dict[Tier | None, Counter[str]] = field(default_factory=dict)
    by_tier_verification: dict[Tier | None, Counter[str]] = field(default_factory=dict)

    def add(self, verdict: Verdict) -> Transparency:
        """Count one reference's verdict; its transparency fields are returned."""
        fields = transparency(verdict)
        self.count(verdict.status.value, fields.verification_status.value, fields.tier)
        return fields

    def count(self, verdict: str, verification_status: str, tier: Tier | None, n: int = 1) -> None:
        self.by_verification_status[verification_status] += n
        self.by_tier_verdict.setdefault(tier, Counter())[verdict] += n
        self.by_tier_verification.setdefault(tier, Counter())[verification_status] += n

    def tiers(self) -> list[Tier | None]:
        """The tiers counted, in the ADR's order, `None` (no tier) last."""
        return sorted(self.by_tier_verdict, key=_sort_key)

    def as_json(self) -> dict[str, Any]:
        return {
            "by_verification_status": dict(sorted(self.by_verification_status.items())),
            "by_tier": [
                {
                    "tier": int(t) if t is not None else None,
                    "tier_name": TIER_NAMES[t] if t is not None else None,
                    "total": sum(self.by_tier_verdict[t].values()),
                    "by_verdict": dict(sorted(self.by_tier_verdict[t].items())),
                    "by_verification_status": dict(
                        sorted(self.by_tier_verification.get(t, Counter()).items())
                    ),
                }
                for t in self.tiers()
            ],
        }

    def merge_json(self, summary: Mapping[str, Any]) -> None:
        """Add the counts of another summary's `as_json()` (a sweep adds its repositories')."""
        self.by_verification_status.update(summary.get("by_verification_status") or {})
        for entry in summary.get("by_tier") or ():
            raw = entry.get("tier")
            try:
                tier = Tier(raw) if raw is not None else None
            except ValueError:
                continue  # a tier this version does not know: not counted rather than misplaced
            self.by_tier_verdict.setdefault(tier, Counter()).update(entry.get("by_verdict") or {})
            self.by_tier_verification.setdefault(tier, Counter()).update(
                entry.get("by_verification_status") or {}
            )

    @classmethod
    def of(cls, verdicts: Iterable[Verdict]) -> TransparencyCounts:
        counts = cls()
        for verdict in verdicts:
            counts.add(verdict)
        return counts
