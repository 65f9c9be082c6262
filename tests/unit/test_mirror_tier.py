"""The mirror tier's rules (issue 32): a mirrored title search answers only what the source's own
search would (OpenAlex: every word; DBLP: every word as a prefix; Crossref: ranked, any word),
and a mirror proves absence only when complete and fresh."""

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


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(st.lists(st.from_regex(r"[a-z]{3,10}", fullmatch=True), min_size=1, max_size=8))
def test_plurals_and_stop_words_are_compared_as_an_index_keeps_them(words: list[str]) -> None:
    title = " ".join(w + "x" for w in words)  # no word of the title is a stop word
    plural = " ".join(w + "xs" for w in words)
    assert answers_search(SourceName.OPENALEX, f"the {plural} of a", title)
    assert answers_search(SourceName.OPENALEX, title, plural)
