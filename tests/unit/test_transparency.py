"""ADR 004's transparency fields: verification status, content type and deciding tier, as tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.transparency import (
    CONTENT_BY_REASON,
    DISCREPANCY_REASONS,
    SOURCE_TIERS,
    ContentType,
    Tier,
    VerificationStatus,
    claim_transparency,
    decided_tier,
    tier_of,
    transparency,
    verification_status,
)
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus

V, P, U = VerificationStatus.VERIFIED, VerificationStatus.PARTIALLY_VERIFIED, VerificationStatus.UNVERIFIED


def work(source: SourceName) -> WorkRecord:
    return WorkRecord(source=source, title="A work")


def verdict(status: VerdictStatus, *sources: SourceName, **fields: object) -> Verdict:
    match = work(sources[0]) if sources else None
    secondary = work(sources[1]) if len(sources) > 1 else None
    return Verdict(status=status, match=match, secondary=secondary, **fields)  # type: ignore[arg-type]


def test_every_source_has_a_tier() -> None:
    assert set(SOURCE_TIERS) == set(SourceName)
    assert tier_of("library") is Tier.LIBRARY and tier_of("google_books") is Tier.BOOKS
    assert tier_of(SourceName.EUROPE_PMC) is Tier.SCHOLARLY and tier_of("perseus") is Tier.CLASSICAL
    assert tier_of("web") is Tier.WEB and tier_of("llm") is Tier.LLM and tier_of("no such source") is None


@pytest.mark.parametrize(
    ("status", "severity", "expected"),
    [
        (VerdictStatus.VERIFIED, None, V),
        (VerdictStatus.METADATA_ERROR, Severity.MINOR, P),
        (VerdictStatus.METADATA_ERROR, Severity.MAJOR, U),
        (VerdictStatus.IDENTIFIER_CONFLICT, None, U),
        (VerdictStatus.NOT_FOUND, None, U),
        (VerdictStatus.FABRICATED, None, U),
        (VerdictStatus.RETRACTED, None, U),
        (VerdictStatus.AMBIGUOUS, None, U),
        (VerdictStatus.UNVERIFIABLE, None, U),
        (VerdictStatus.OUT_OF_SCOPE, None, U),
    ],
)
def test_the_status_table(
    status: VerdictStatus, severity: Severity | None, expected: VerificationStatus
) -> None:
    assert verification_status(status, severity) is expected


def test_a_discrepancy_or_the_llm_tier_lowers_verified() -> None:
    assert verification_status(VerdictStatus.VERIFIED, reasons=["web_page_title_differs"]) is P
    assert verification_status(VerdictStatus.VERIFIED, reasons=[Reason.TRIANGULATED]) is V
    assert verification_status(VerdictStatus.VERIFIED, tier=Tier.LLM) is U


def test_the_deciding_tier() -> None:
    assert (
        decided_tier(verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF, SourceName.OPENALEX))
        is Tier.SCHOLARLY
    )
    # The first tier in the ADR's order that found the work decides: books before the web.
    assert (
        decided_tier(verdict(VerdictStatus.VERIFIED, SourceName.WEB, SourceName.GOOGLE_BOOKS)) is Tier.BOOKS
    )
    library = verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF, reasons=(Reason.LIBRARY_HIT,))
    assert decided_tier(library) is Tier.LIBRARY
    # Not found: the last tier asked, sources that failed left out.
    missing = verdict(
        VerdictStatus.NOT_FOUND,
        sources_consulted=(SourceName.CROSSREF, SourceName.OPEN_LIBRARY, SourceName.WEB),
        sources_unavailable=(SourceName.WEB,),
    )
    assert decided_tier(missing) is Tier.SCHOLARLY
    unverifiable = verdict(VerdictStatus.UNVERIFIABLE, sources_consulted=(SourceName.CROSSREF,))
    assert decided_tier(unverifiable) is None
    assert decided_tier(verdict(VerdictStatus.OUT_OF_SCOPE)) is None


def test_content_type_from_the_reasons() -> None:
    quoted = verdict(VerdictStatus.VERIFIED, SourceName.PERSEUS, reasons=(Reason.QUOTE_IN_PASSAGE,))
    assert transparency(quoted).content_type is ContentType.EXACT_QUOTE
    misquoted = verdict(VerdictStatus.VERIFIED, SourceName.CCEL, reasons=(Reason.QUOTE_NOT_IN_PASSAGE,))
    assert transparency(misquoted).content_type is ContentType.UNVERIFIED_CONTENT
    assert transparency(misquoted).verification_status is P
    page = verdict(VerdictStatus.VERIFIED, SourceName.WEB, reasons=(Reason.WEB_PAGE_TITLE_MATCHES,))
    assert transparency(page).tier is Tier.WEB and transparency(page).content_type is ContentType.WEB_RESOURCE
    assert transparency(page).verification_status is V
    plain = verdict(VerdictStatus.VERIFIED, SourceName.CROSSREF)
    assert transparency(plain).content_type is None
    assert transparency(plain).as_json() == {
        "verification_status": "verified",
        "content_type": None,
        "tier": 2,
        "tier_name": "scholarly",
    }
    assert all(isinstance(reason, str) for reason, _ in CONTENT_BY_REASON)
    # The tables name reasons by value: each still exists.
    values = {r.value for r in Reason}
    assert {reason for reason, _ in CONTENT_BY_REASON} <= values and values >= DISCREPANCY_REASONS


def test_claims() -> None:
    exact = claim_transparency(supported=True, text_origin="pmc_jats", triangulated=True, source="openalex")
    assert (exact.verification_status, exact.content_type, exact.tier) == (
        V,
        ContentType.EXACT_QUOTE,
        Tier.SCHOLARLY,
    )
    single = claim_transparency(supported=True, text_origin="arxiv_html", triangulated=False)
    assert single.verification_status is P and single.content_type is ContentType.EXACT_QUOTE
    abstract = claim_transparency(supported=True, text_origin="abstract", triangulated=True)
    assert (abstract.verification_status, abstract.content_type) == (P, ContentType.VERIFIED_PARAPHRASE)
    overridden = claim_transparency(
        supported=True, text_origin="pdf_text", triangulated=True, overridden=True
    )
    assert overridden.verification_status is P
    refused = claim_transparency(supported=False, text_origin="pmc_jats", triangulated=False)
    assert (refused.verification_status, refused.content_type) == (U, ContentType.UNVERIFIED_CONTENT)
    llm = claim_transparency(supported=True, text_origin="html", triangulated=True, source="llm")
    assert (llm.verification_status, llm.content_type) == (U, ContentType.UNVERIFIED_CONTENT)


reasons = st.lists(st.sampled_from(list(Reason)), max_size=4).map(tuple)
sources = st.lists(st.sampled_from(list(SourceName)), max_size=2)


@given(st.sampled_from(list(VerdictStatus)), st.sampled_from([None, *Severity]), reasons, sources, sources)
def test_verified_iff_status_verified_without_discrepancy_and_never_from_the_llm(
    status: VerdictStatus,
    severity: Severity | None,
    reason_codes: tuple[Reason, ...],
    matched: list[SourceName],
    consulted: list[SourceName],
) -> None:
    v = verdict(status, *matched, severity=severity, reasons=reason_codes, sources_consulted=tuple(consulted))
    result = transparency(v)
    discrepancy = severity is not None or any(r.value in DISCREPANCY_REASONS for r in reason_codes)
    if result.tier is Tier.LLM:
        assert result.verification_status is not V
        assert result.content_type in (None, ContentType.UNVERIFIED_CONTENT)
    else:
        expected = status is VerdictStatus.VERIFIED and not discrepancy
        assert (result.verification_status is V) == expected
    # A verdict only the LLM stands behind is decided by tier 5 and never verified.
    if matched and all(s is SourceName.LLM for s in matched) and Reason.LIBRARY_HIT not in reason_codes:
        assert result.tier is Tier.LLM and result.verification_status is U
