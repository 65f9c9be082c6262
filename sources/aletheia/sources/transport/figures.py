"""The report's request figures, from the sources' counters (`SourceStats`): requests in all, per
reference, per kind and per source. Read from a gateway's stats (the benches) or from the sum of a
job's per-reference counters (`item_stats`; the report of every job).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aletheia.sources.base import SourceStats

REQUEST_KINDS = ("lookup", "batch", "search")


def requests_by_kind(stats: SourceStats) -> dict[str, int]:
    """HTTP requests of one source by kind (lookup, batch, search; fulltext when any)."""
    out = {kind: stats.extra.get(f"requests_{kind}", 0) for kind in REQUEST_KINDS}
    out.update(
        {k.removeprefix("requests_"): n for k, n in stats.extra.items() if k.startswith("requests_") and n}
    )
    return out


def request_figures(stats: Mapping[str, SourceStats], references: int) -> dict[str, Any]:
    """HTTP requests made, per reference, per kind and per source (the report's and the benches'
    `requests`): `total` counts every request sent, retries included; `by_kind` files them under
    lookup (one identifier), batch (many identifiers in one request) and search; `cache_hits`
    and `search_memo_hits` are answers that made no request."""
    by_source: dict[str, dict[str, int]] = {}
    by_kind: dict[str, int] = dict.fromkeys(REQUEST_KINDS, 0)
    for name, st in stats.items():
        kinds = requests_by_kind(st)
        for kind, n in kinds.items():
            by_kind[kind] = by_kind.get(kind, 0) + n
        by_source[name] = {
            "total": st.requests,
            **kinds,
            "cache_hits": st.cache_hits,
            "search_memo_hits": st.extra.get("search_memo_hits", 0),
        }
    total = sum(st.requests for st in stats.values())
    return {
        "total": total,
        "references": references,
        "per_reference": round(total / references, 3) if references else 0.0,
        "by_kind": by_kind,
        "by_source": by_source,
    }
