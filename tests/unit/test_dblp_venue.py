"""When a DBLP record is fetched by key to settle a venue, and when its venue confirms the cited one."""

from __future__ import annotations

from aletheia.core.dblp_venue import dblp_key_to_confirm, venue_confirmed_by_dblp
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord

TITLE = "Sparse attention kernels for forecasting tidal energy output"
AUTHORS = (Author(given="Imani", family="Okafor"), Author(given="Jonas", family="Lindqvist"))


def s2(venue: str, key: str | None) -> WorkRecord:
    return WorkRecord(
        source=SourceName.SEMANTIC_SCHOLAR, title=TITLE, authors=AUTHORS, year=2021, venue=venue, dblp_key=key
    )


def key_for(cited_venue: str, *records: WorkRecord) -> str | None:
    answers = [
        SourceAnswer(source=r.source, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(r,))
        for r in records
    ]
    cited = CitedReference(key="k", title=TITLE, authors=AUTHORS, year=2021, venue=cited_venue)
    verdict = decide(cited, Evidence(answers=tuple(answers)), current_year=2026)
    return dblp_key_to_confirm(cited, verdict, answers)


def test_a_doubted_venue_under_a_key_of_that_venue_is_looked_up() -> None:
    odd = "Proceedings of the Ninth Learning Workshop"
    assert key_for("ICLR", s2(odd, "conf/iclr/OkaforL21")) == "conf/iclr/OkaforL21"
    assert key_for("ICML", s2(odd, "conf/iclr/OkaforL21")) is None  # the key names another venue
    assert key_for("ICLR", s2(odd, "journals/corr/abs-2101-00001")) is None  # only the arXiv copy
    assert key_for("ICLR", s2(odd, None)) is None
    # No doubt, no request.
    assert (
        key_for("ICLR", s2("International Conference on Learning Representations", "conf/iclr/OkaforL21"))
        is None
    )
    # DBLP already answered for the work.
    dblp = s2("ICLR", "conf/iclr/OkaforL21").model_copy(update={"source": SourceName.DBLP})
    assert key_for("ICLR", s2(odd, "conf/iclr/OkaforL21"), dblp) is None


def test_dblp_confirms_only_under_the_same_key() -> None:
    cited = CitedReference(key="k", title=TITLE, venue="ICLR")
    dblp = s2("ICLR", "conf/iclr/OkaforL21").model_copy(update={"source": SourceName.DBLP})
    assert venue_confirmed_by_dblp(cited, [dblp, s2("x", "conf/iclr/OkaforL21")])
    assert not venue_confirmed_by_dblp(cited, [dblp, s2("x", "conf/icml/OkaforL21")])
    assert not venue_confirmed_by_dblp(cited.model_copy(update={"venue": "arXiv preprint"}), [dblp])
