"""What a verdict proves, in the three words of ADR 004 (seed 004, "Verification Metadata"): how
far it is verified, what kind of content was checked, and which tier decided it.

Every rule here is a table (data), read by three small functions:

- `VERIFICATION_BY_STATUS`: the verdict's status and severity -> `verification_status`.
  `verified` (no discrepancy) is `verified`; a minor difference (`metadata_error` minor, or a
  verified verdict carrying one of `DISCREPANCY_REASONS`) is `partially_verified`; everything else
  (a major error, a conflict, not found, fabricated, retracted, ambiguous, unverifiable, out of
  scope) is `unverified`. Two overrides, never upgrades: a verdict decided by Tier 5 (an LLM's
  suggestion) is `unverified` whatever its status, since a model's output is never evidence.
- `SOURCE_TIERS`: each source -> its tier, from its record (`source_facts`): 0 library, 1 books,
  2 scholarly APIs and full text, 3 classical texts, 4 web, 5 LLM. The tier that decided a verdict
  is the lowest tier among the sources of the work it matched (the first tier, in the ADR's order,
  that found it; a Tier-0 library hit is tier 0); for a verdict without a match that the sources
  decided (`not_found`, `fabricated`) the highest tier asked; none for what no source decided
  (`unverifiable`, `out_of_scope`).
- `CONTENT_BY_REASON`: for a reference whose quote or page was checked, the reason that says how
  -> `content_type` (`exact_quote`, `verified_paraphrase`, `unverified_content`, and
  `web_resource` for a cited URL that answers with the cited title: the page exists, its words
  were not compared). None when no content was checked (a plain bibliography entry). Claims
  (`claim_transparency`) are `exact_quote` when verbatim excerpts were located in the full text,
  `verified_paraphrase` when only the abstract could be read and supports the claim, and
  `unverified_content` when nothing supports it.

docs/sources.md lists the tiers with what each proves and cannot; docs/report-schema.md the fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from aletheia.core.records import SourceName
from aletheia.core.source_facts import SOURCE_FACTS, Tier, facts_of
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus

__all__ = [
    "CONTENT_BY_REASON",
    "DISCREPANCY_REASONS",
    "SOURCE_TIERS",
    "TIER_NAMES",
    "VERIFICATION_BY_STATUS",
    "ContentType",
    "Tier",
    "Transparency",
    "VerificationStatus",
    "claim_transparency",
    "content_type_of",
    "decided_tier",
    "tier_of",
    "transparency",
    "verification_status",
]


class VerificationStatus(StrEnum):
    VERIFIED = "verified"
    PARTIALLY_VERIFIED = "partially_verified"
    UNVERIFIED = "unverified"


class ContentType(StrEnum):
    EXACT_QUOTE = "exact_quote"  # the quoted words were found verbatim in the source's text
    VERIFIED_PARAPHRASE = "verified_paraphrase"  # the source was read and supports it, not verbatim
    UNVERIFIED_CONTENT = "unverified_content"  # no text of the source supports it
    WEB_RESOURCE = "web_resource"  # the cited page answers with the cited title; its words unchecked


TIER_NAMES: Final[Mapping[Tier, str]] = MappingProxyType(
    {
        Tier.LIBRARY: "library",
        Tier.BOOKS: "books",
        Tier.SCHOLARLY: "scholarly",
        Tier.CLASSICAL: "classical texts",
        Tier.WEB: "web",
        Tier.LLM: "LLM",
    }
)


class _RecordedTiers(Mapping[SourceName, Tier]):
    """Every source's tier, read from its record (`source_facts.SourceFacts.tier`) each time."""

    def __getitem__(self, source: SourceName) -> Tier:
        facts = facts_of(source)
        if facts is None:
            raise KeyError(source)
        return facts.tier

    def __iter__(self) -> Iterator[SourceName]:
        return (SourceName(name) for name in SOURCE_FACTS)

    def __len__(self) -> int:
        return len(SOURCE_FACTS)


# Every source's tier, from its record. Web search engines only find candidates, but a verdict
# they alone stand behind is a web verdict (their records say Tier 4).
SOURCE_TIERS: Final[Mapping[SourceName, Tier]] = _RecordedTiers()

_V, _P, _U = (
    VerificationStatus.VERIFIED,
    VerificationStatus.PARTIALLY_VERIFIED,
    VerificationStatus.UNVERIFIED,
)
# (status, severity) -> verification status; a pair not listed is `unverified` (default-deny).
VERIFICATION_BY_STATUS: Final[Mapping[tuple[VerdictStatus, Severity | None], VerificationStatus]] = (
    MappingProxyType(
        {
            (VerdictStatus.VERIFIED, None): _V,
            (VerdictStatus.VERIFIED, Severity.MINOR): _P,
            (VerdictStatus.METADATA_ERROR, Severity.MINOR): _P,
            (VerdictStatus.METADATA_ERROR, Severity.MAJOR): _U,
        }
    )
)

# Reasons that, on a `verified` verdict, are a discrepancy the reader should know of (by value, so
# that this table never breaks an import when a tier's reasons are renamed).
DISCREPANCY_REASONS: Final = frozenset(
    {
        "quote_not_in_passage",
        "quote_unconfirmed_in_book",  # the book is verified, the quote it is cited for is not
        "web_page_title_differs",
        "archive_date_differs",
        "edition_year_differs",
        "publisher_differs",
        "title_changed_between_versions",
    }
)

# Reason (by value) -> what the checked content is; the first row whose reason the verdict has wins.
CONTENT_BY_REASON: Final[tuple[tuple[str, ContentType], ...]] = (
    ("quote_not_in_passage", ContentType.UNVERIFIED_CONTENT),
    ("quote_in_passage", ContentType.EXACT_QUOTE),
    ("quote_unconfirmed_in_book", ContentType.UNVERIFIED_CONTENT),
    ("quote_in_book_snippet", ContentType.EXACT_QUOTE),
    ("web_page_title_matches", ContentType.WEB_RESOURCE),
)

# A verdict without a match that the sources themselves decided (every source that could hold the
# work answered): the tier is the last one asked.
_DECIDED_WITHOUT_MATCH: Final = frozenset({VerdictStatus.NOT_FOUND, VerdictStatus.FABRICATED})


def tier_of(source: SourceName | str) -> Tier | None:
    """The tier of one source; None for a source no record knows."""
    facts = facts_of(source)
    return facts.tier if facts is not None else None


def _tiers(sources: Iterable[SourceName | str]) -> list[Tier]:
    return [t for s in sources if (t := tier_of(s)) is not None]


def decided_tier(verdict: Verdict) -> Tier | None:
    """The tier that decided `verdict` (see the module docstring)."""
    if Reason.LIBRARY_HIT in verdict.reasons:
        return Tier.LIBRARY
    matched = _tiers(r.source for r in (verdict.match, verdict.secondary) if r is not None)
    if matched:
        return min(matched)
    if verdict.status in _DECIDED_WITHOUT_MATCH:
        asked = _tiers(s for s in verdict.sources_consulted if s not in verdict.sources_unavailable)
        return max(asked) if asked else None
    return None


def verification_status(
    status: VerdictStatus,
    severity: Severity | None = None,
    *,
    reasons: Iterable[Reason | str] = (),
    tier: Tier | None = None,
) -> VerificationStatus:
    """The table's answer for (status, severity), lowered to partially verified by a discrepancy
    reason and to unverified when Tier 5 decided."""
    if tier is Tier.LLM:
        return _U
    found = VERIFICATION_BY_STATUS.get((status, severity), _U)
    if found is _V and any(str(r) in DISCREPANCY_REASONS for r in reasons):
        return _P
    return found


def content_type_of(reasons: Iterable[Reason | str], tier: Tier | None = None) -> ContentType | None:
    """What the checked quote or page is, from the reasons; None when no content was checked."""
    values = {str(r) for r in reasons}
    for reason, content in CONTENT_BY_REASON:
        if reason in values:
            return ContentType.UNVERIFIED_CONTENT if tier is Tier.LLM else content
    return None


@dataclass(frozen=True)
class Transparency:
    """The three fields every verdict carries in reports."""

    verification_status: VerificationStatus
    content_type: ContentType | None
    tier: Tier | None

    def as_json(self) -> dict[str, object]:
        return {
            "verification_status": self.verification_status.value,
            "content_type": self.content_type.value if self.content_type else None,
            "tier": int(self.tier) if self.tier is not None else None,
            "tier_name": TIER_NAMES[self.tier] if self.tier is not None else None,
        }


def transparency(verdict: Verdict) -> Transparency:
    """The transparency fields of one reference's verdict."""
    tier = decided_tier(verdict)
    return Transparency(
        verification_status=verification_status(
            verdict.status, verdict.severity, reasons=verdict.reasons, tier=tier
        ),
        content_type=content_type_of(verdict.reasons, tier),
        tier=tier,
    )


def claim_transparency(
    *,
    supported: bool,
    text_origin: str | None,
    triangulated: bool,
    overridden: bool = False,
    source: SourceName | str | None = None,
) -> Transparency:
    """A claim's citation (or refusal): `supported` when verbatim excerpts (or, from an abstract
    only, its sentences) support it; `text_origin` the `PaperText.origin` they were found in.
    Verified needs an exact quote from the full text and two sources agreeing, without a human
    override; a single source, an abstract or an override is partial; a refusal is unverified."""
    tier = tier_of(source) if source is not None else None
    if not supported:
        content = ContentType.UNVERIFIED_CONTENT
    elif text_origin in (None, "abstract"):
        content = ContentType.VERIFIED_PARAPHRASE
    else:
        content = ContentType.EXACT_QUOTE
    if not supported or tier is Tier.LLM:
        status = _U
    elif content is ContentType.EXACT_QUOTE and triangulated and not overridden:
        status = _V
    else:
        status = _P
    if tier is Tier.LLM:
        content = ContentType.UNVERIFIED_CONTENT
    return Transparency(verification_status=status, content_type=content, tier=tier)
