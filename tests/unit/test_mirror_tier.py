"""The mirror tier's rules (issue 32): a mirrored title search answers only what the source's own
search would (OpenAlex: every word; DBLP: every word as a prefix; Crossref: ranked, any word),
and a mirror proves absence only when complete, and fresh or dated long enough after the cited year
for the work to have been recorded by then."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.records import SourceName
from aletheia.core.text import normalize_title
from aletheia.pipeline.evidence.mirror_tier import MirrorTier, answers_search
from aletheia.storage.mirror import MirrorSnapshot

WORDS = st.lists(st.from_regex(r"[A-Za-zÀ-ÿ]{1,10}", fullmatch=True), min_size=1, max_size=8)
SOURCES = st.sampled_from([SourceName.OPENALEX, SourceName.DBLP, SourceName.CROSSREF])


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(WORDS, SOURCES, st.sampled_from(["", ".", ":", "?"]))
def test_a_title_answers_a_search_for_itself_however_it_is_spelt(
    words: list[str], source: SourceName, end: str
) -> None:
    title = " ".join(words) + end
    assert answers_search(source, title, title)
    assert answers_search(source, title.upper(), title)


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(WORDS, st.from_regex(r"[a-z]{3,8}", fullmatch=True))
def test_openalex_needs_every_word(words: list[str], extra: str) -> None:
    title = " ".join(words)
    query = f"{title} {extra}zq"  # a word the title does not have
    assert not answers_search(SourceName.OPENALEX, query, title)
    assert answers_search(SourceName.CROSSREF, query, title)


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(WORDS)
def test_dblp_takes_a_word_prefix(words: list[str]) -> None:
    title = " ".join(words)
    longest = max(normalize_title(title).split(), key=len, default="")
    if len(longest) > 1:
        assert answers_search(SourceName.DBLP, longest[:-1], title)
        assert not answers_search(SourceName.OPENALEX, longest[:-1] + "qx", title)


def tier(**snapshots: MirrorSnapshot) -> MirrorTier:
    store: Any = None  # the rule reads the snapshots only
    return MirrorTier(store, dict(snapshots), max_age_days=30)


def test_only_a_complete_fresh_mirror_proves_absence() -> None:
    today = date(2026, 6, 1)
    fresh = MirrorSnapshot("openalex", today - timedelta(days=10), complete=True, updated_through=None)
    stale = MirrorSnapshot("dblp", today - timedelta(days=40), complete=True, updated_through=None)
    updated = MirrorSnapshot("crossref", today - timedelta(days=400), complete=True, updated_through=today)
    partial = MirrorSnapshot("openalex", today, complete=False, updated_through=None)
    assert tier(openalex=fresh).proves_absence(SourceName.OPENALEX, today=today)
    assert not tier(dblp=stale).proves_absence(SourceName.DBLP, today=today)
    assert tier(crossref=updated).proves_absence(SourceName.CROSSREF, today=today)
    assert not tier(openalex=partial).proves_absence(SourceName.OPENALEX, today=today)
    assert not tier().proves_absence(SourceName.OPENALEX, today=today)


def test_a_stale_complete_mirror_proves_absent_only_what_it_would_hold() -> None:
    today = date(2026, 11, 29)
    old = MirrorSnapshot("dblp", date(2023, 6, 8), complete=True, updated_through=None)
    lag = MirrorTier(None, {"dblp": old}, max_age_days=30, indexing_lag_days=90)  # type: ignore[arg-type]
    # 2022 ended 159 days before the snapshot: a work of 2022 would be in it.
    assert lag.proves_absence(SourceName.DBLP, cited_year=2022, today=today)
    assert lag.proves_absence(SourceName.DBLP, cited_year=1999, today=today)
    # A work of 2023 or later may have been recorded after the snapshot; one without a year too.
    assert not lag.proves_absence(SourceName.DBLP, cited_year=2023, today=today)
    assert not lag.proves_absence(SourceName.DBLP, cited_year=2026, today=today)
    assert not lag.proves_absence(SourceName.DBLP, today=today)
    # A longer lag than the year's distance from the snapshot: asked live.
    longer = MirrorTier(None, {"dblp": old}, max_age_days=30, indexing_lag_days=180)  # type: ignore[arg-type]
    assert not longer.proves_absence(SourceName.DBLP, cited_year=2022, today=today)
    # Not complete: never, whatever the year.
    partial = MirrorSnapshot("dblp", date(2023, 6, 8), complete=False, updated_through=None)
    assert not tier(dblp=partial).proves_absence(SourceName.DBLP, cited_year=1999, today=today)


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2030, 12, 31)),
    st.integers(min_value=1950, max_value=2035),
    st.integers(min_value=0, max_value=800),
)
def test_a_later_snapshot_proves_at_least_as_much(snapshot: date, year: int, lag_days: int) -> None:
    """Absence proved by a snapshot stays proved by any later one, and by any shorter lag."""
    today = date(2040, 1, 1)  # every snapshot here is stale: the year rule alone decides

    def proves(day: date, lag: int) -> bool:
        snap = MirrorSnapshot("openalex", day, complete=True, updated_through=None)
        tier_ = MirrorTier(None, {"openalex": snap}, max_age_days=0, indexing_lag_days=lag)  # type: ignore[arg-type]
        return tier_.proves_absence(SourceName.OPENALEX, cited_year=year, today=today)

    if proves(snapshot, lag_days):
        assert proves(snapshot + timedelta(days=30), lag_days)
        assert proves(snapshot, max(0, lag_days - 30))
        assert date(year, 12, 31) < snapshot or (lag_days == 0 and date(year, 12, 31) == snapshot)


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(st.lists(st.from_regex(r"[a-z]{3,10}", fullmatch=True), min_size=1, max_size=8))
def test_plurals_and_stop_words_are_compared_as_an_index_keeps_them(words: list[str]) -> None:
    title = " ".join(w + "x" for w in words)  # no word of the title is a stop word
    plural = " ".join(w + "xs" for w in words)
    assert answers_search(SourceName.OPENALEX, f"the {plural} of a", title)
    assert answers_search(SourceName.OPENALEX, title, plural)
