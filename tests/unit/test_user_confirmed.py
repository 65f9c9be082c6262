"""A work the user confirmed by hand (issue 21, item 5): outside the indexes it is `unverifiable`
with the reason said, never `not_found`; evidence of invention still flags it."""

from __future__ import annotations

from aletheia.core.bibliography import parse_text
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, VerdictStatus

BIB = """@techreport{{harbour1998,
  author = {{Ingrid Solberg and Piet Maas}},
  title = {{Sediment budget of the inner harbour, survey of spring 1998}},
  year = {{{year}}},
  {extra}
}}"""
NOBODY = tuple(
    SourceAnswer(source=s, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND)
    for s in (SourceName.OPENALEX, SourceName.CROSSREF, SourceName.SEMANTIC_SCHOLAR, SourceName.ARXIV)
)


def _verdict(extra: str, year: int = 1998) -> object:
    items = list(parse_text(BIB.format(extra=extra, year=year), origin="refs.bib"))
    refs = [r for r in items if isinstance(r, CitedReference)]
    assert len(refs) == 1 == len(items), items
    return decide(refs[0], Evidence(answers=NOBODY), current_year=2026)


def test_a_user_confirmed_work_no_index_holds_is_unverifiable() -> None:
    v = _verdict("aletheia-confirmed = {checked in the port archive, 2026-11-20, I. S.}")
    assert v.status is VerdictStatus.UNVERIFIABLE and Reason.OUT_OF_SCOPE_TYPE in v.reasons, v
    assert any("confirmed by the user" in n for n in v.notes)
    assert "not a kind of work the scholarly indexes hold; check by hand" in v.notes


def test_without_the_confirmation_the_same_reference_is_judged_as_any() -> None:
    v = _verdict("")
    assert v.status is not VerdictStatus.VERIFIED
    # A report nobody confirmed: the indexes hold reports in part (`unindexed_kind`), not the
    # user's confirmation.
    assert Reason.UNINDEXED_KIND in v.reasons and Reason.OUT_OF_SCOPE_TYPE not in v.reasons
    assert not any("confirmed by the user" in n for n in v.notes)


def test_a_confirmation_does_not_hide_evidence_of_invention() -> None:
    v = _verdict("aletheia-confirmed = {yes}", year=2031)
    assert v.flagged and Reason.FUTURE_YEAR in v.reasons


def test_csl_json_carries_the_confirmation_too() -> None:
    text = (
        '[{"id": "harbour1998", "type": "report", "title": "Sediment budget of the inner harbour",'
        ' "author": [{"family": "Solberg", "given": "Ingrid"}], "issued": {"date-parts": [[1998]]},'
        ' "aletheia-confirmed": "port archive, 2026-11-20"}]'
    )
    refs = [r for r in parse_text(text, origin="refs.json") if isinstance(r, CitedReference)]
    v = decide(refs[0], Evidence(answers=NOBODY), current_year=2026)
    assert v.status is VerdictStatus.UNVERIFIABLE and any("confirmed by the user" in n for n in v.notes)
