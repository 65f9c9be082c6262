"""Questionable venues (issue 21, item 6; core/aletheia/core/questionable_venues.py): the shipped,
dated lists, matched on ISSN, site or exact name — never on a similar name — as a signal that
never changes a verdict."""

from __future__ import annotations

import gzip
import json
import re
import string
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.core.questionable_venues import (
    DATA_DIR,
    LIST_FILES,
    ListedVenue,
    QuestionableVenues,
    VenueList,
    name_key,
    questionable_venue_signals,
    questionable_venues,
    site_key,
)
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.signals import SignalKind

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "core" / "aletheia" / "core" / "data" / DATA_DIR

# A fixture table: invented venues, invented (check-digit valid) ISSNs, reserved example hosts.
DOAJ = VenueList(
    "doaj_withdrawn", "fixture DOAJ", "DOAJ (withdrawn journals)", "2025-07-09", "CC BY-SA 4.0", "DOAJ"
)
SPJ = VenueList(
    "stop_predatory_journals", "fixture SPJ", "Stop Predatory Journals (2018)", "2018-01-10", "MIT", "SPJ"
)
WITHDRAWN = ListedVenue(
    DOAJ,
    "withdrawn",
    "Journal of Invented Results",
    ("1234-5679", "1050-012X"),
    (),
    "2019-03-01",
    "Journal not adhering to Best practice",
)
STANDALONE = ListedVenue(
    SPJ, "journal", "International Journal of Made-Up Studies", sites=("http://www.made-up.example/",)
)
ON_SHARED_HOST = ListedVenue(
    SPJ, "journal", "Shared Host Quarterly", sites=("http://journals.example.org/shq/index.php/main/index",)
)
HIJACKED = ListedVenue(
    SPJ,
    "hijacked",
    "Acta Authentica",
    sites=("http://acta-authentica.example.net/index.php",),
    match_name=False,
    authentic_name="Acta Authentica",
    authentic_url="http://www.real-acta.example.edu/",
)
ANNOTATED = ListedVenue(
    SPJ, "journal", "Cellular Studies [alt]", sites=("http://cells.example/",), match_name=False
)
ONE_WORD = ListedVenue(
    DOAJ, "withdrawn", "Research", ("2049-3630",), (), "2020-01-01", "Journal not adhering to Best practice"
)
TABLE = QuestionableVenues.of(
    [DOAJ, SPJ], [WITHDRAWN, STANDALONE, ON_SHARED_HOST, HIJACKED, ANNOTATED, ONE_WORD]
)


def cite(**kw: object) -> CitedReference:
    return CitedReference.model_validate({"key": "k", "title": "A paper", **kw})


def matched(
    cited: CitedReference | None = None, records: tuple[WorkRecord, ...] = ()
) -> list[tuple[str, str]]:
    return [
        (s.evidence["listed_name"], s.evidence["matched_on"])
        for s in questionable_venue_signals(cited, records, TABLE)
    ]


# --- ISSN ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("issn", ["1234-5679", "12345679", "ISSN 1234-5679", "1050-012x", "1050012X"])
def test_an_issn_matches_with_or_without_hyphen_and_any_case_of_x(issn: str) -> None:
    assert matched(cite(fields={"issn": issn})) == [("Journal of Invented Results", "issn")]


def test_an_issn_whose_check_digit_fails_never_matches() -> None:
    assert matched(cite(fields={"issn": "1234-5678"})) == []


def test_the_matched_works_records_are_read_too() -> None:
    record = WorkRecord(source=SourceName.CROSSREF, title="A paper", issn=("1050-012X",), year=2018)
    [signal] = questionable_venue_signals(None, (record,), TABLE)
    assert signal.kind is SignalKind.QUESTIONABLE_VENUE
    assert signal.source == "DOAJ (withdrawn journals)"
    ev = signal.evidence
    assert ev["where"] == "crossref" and ev["reason"] == "Journal not adhering to Best practice"
    assert ev["listed_on"] == "2019-03-01" and ev["licence"] == "CC BY-SA 4.0"
    assert ev["work_year"] == 2018 and ev["before_listing"] is True  # published before the removal


# --- sites ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://made-up.example/article/3", True),
        ("https://WWW.Made-Up.Example:8443/", True),
        ("http://articles.made-up.example/v1/3.pdf", True),  # a subdomain of a listed root site
        ("made-up.example/x", True),
        ("http://not-made-up.example/", False),  # another domain that ends the same way
        ("http://made-up.example.org/", False),
    ],
)
def test_a_root_site_matches_its_host_and_subdomains(url: str, expected: bool) -> None:
    assert (matched(cite(url=url)) == [("International Journal of Made-Up Studies", "site")]) is expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://journals.example.org/shq/index.php/main/article/view/7", True),
        ("http://journals.example.org/SHQ/index.php/main", True),
        ("http://journals.example.org/shq/index.php/mainstream", False),  # whole segments only
        ("http://journals.example.org/other/index.php/x", False),  # another journal on the host
        ("http://sub.journals.example.org/shq/index.php/main", False),  # no subdomains for a path
    ],
)
def test_a_site_with_a_path_matches_only_under_that_path(url: str, expected: bool) -> None:
    assert bool(matched(cite(url=url))) is expected


def test_site_keys() -> None:
    assert site_key("http://www.Example.org:8080/Journal/index.php?x=1") == ("example.org", ("journal",))
    assert site_key("http://a.example/x/Default1.aspx") == ("a.example", ("x",))
    assert site_key("http://x.example/?a=1&amp;b=2") == ("x.example", ())
    assert site_key("/International%20Journal") is None and site_key("") is None


def test_a_hijacked_site_is_matched_by_its_host_and_names_the_authentic_journal() -> None:
    [signal] = questionable_venue_signals(cite(url="http://acta-authentica.example.net/vol2"), (), TABLE)
    ev = signal.evidence
    assert ev["entry_kind"] == "hijacked" and ev["matched_on"] == "site"
    assert (
        ev["authentic_name"] == "Acta Authentica"
        and ev["authentic_url"] == "http://www.real-acta.example.edu/"
    )


def test_a_hijacked_journals_name_is_the_authentic_ones_and_never_matches() -> None:
    assert matched(cite(venue="Acta Authentica")) == []


# --- names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "venue",
    [
        "International Journal of Made-Up Studies",
        "international journal of made up studies.",
        "The  International Journal of Made-Up Studies",
    ],
)
def test_the_exact_full_name_matches_after_case_whitespace_punctuation(venue: str) -> None:
    assert matched(cite(venue=venue)) == [("International Journal of Made-Up Studies", "name")]


@pytest.mark.parametrize(
    "venue",
    [
        "International Journal of Made-Up Study",
        "International Journal of Made-Up Studies and Reviews",
        "Journal of Made-Up Studies",
        "International Journal of Madeup Studies",
        "Research",  # one word: listed, but never matched by name
        "Cellular Studies",  # the list annotates the name: another journal has it
    ],
)
def test_a_near_name_never_matches(venue: str) -> None:
    assert matched(cite(venue=venue)) == []


def test_a_doaj_name_contradicted_by_a_known_issn_does_not_match() -> None:
    other = WorkRecord(
        source=SourceName.OPENALEX, title="A paper", venue="Journal of Invented Results", issn=("0028-0836",)
    )
    assert matched(cite(venue="Journal of Invented Results"), (other,)) == []
    assert matched(cite(venue="Journal of Invented Results")) == [("Journal of Invented Results", "name")]


def test_one_signal_per_listed_venue_issn_first() -> None:
    cited = cite(
        venue="Journal of Invented Results", fields={"issn": "1234-5679"}, url="http://made-up.example/"
    )
    assert matched(cited) == [
        ("Journal of Invented Results", "issn"),
        ("International Journal of Made-Up Studies", "site"),
    ]


_LETTERS = st.characters(categories=("Ll", "Lu", "Nd"))


@given(entry=st.sampled_from([STANDALONE, WITHDRAWN, ON_SHARED_HOST]), at=st.integers(0, 200), char=_LETTERS)
@example(entry=STANDALONE, at=44, char="y")  # "Studies" -> "Studiey"
def test_a_name_one_character_away_is_never_matched(entry: ListedVenue, at: int, char: str) -> None:
    """No fuzzy matches: a listed name with one character replaced matches only when the change
    is inside the normalisation (case, accents, punctuation)."""
    at %= len(entry.name)
    altered = entry.name[:at] + char + entry.name[at + 1 :]
    names = [n for n, how in matched(cite(venue=altered)) if how == "name"]
    if name_key(altered) != name_key(entry.name):
        assert entry.name not in names
    assert all(name_key(n) == name_key(altered) for n in names)


@given(st.text(alphabet=string.ascii_letters + string.digits + " .,:;-&'()", max_size=60))
def test_name_keys_ignore_case_whitespace_and_punctuation_only(text: str) -> None:
    assert name_key(text.upper()) == name_key(text.lower()) == name_key("  ".join(text.split()) + ".")
    assert name_key(text.replace("-", " ")) == name_key(text)


@given(
    host=st.from_regex(r"[a-z][a-z0-9-]{0,12}\.(?:org|com|ac\.in)", fullmatch=True),
    path=st.lists(st.from_regex(r"[a-z0-9_]{1,8}", fullmatch=True), max_size=3).filter(
        lambda p: not p or not re.fullmatch(r"index|default\d*|home(?:page)?", p[-1])  # a home page: dropped
    ),
)
def test_site_keys_ignore_scheme_www_case_and_a_home_page(host: str, path: list[str]) -> None:
    plain = site_key(f"http://{host}/{'/'.join(path)}")
    assert plain == (host, tuple(path))
    assert site_key(f"HTTPS://WWW.{host.upper()}/{'/'.join(path)}/index.php?x=1") == plain


# --- the shipped table ----------------------------------------------------------------------------


def _shipped_rows(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(gzip.decompress((SHIPPED / name).read_bytes()))
    return data


def test_the_shipped_doaj_table_holds_only_removals_for_practice() -> None:
    from aletheia.pipeline.derive_venue_lists import ReasonClasses, rules

    classes = ReasonClasses.of(rules()["doaj_reason_classes"])
    table = questionable_venues()
    withdrawn = [e for e in table.entries if e.list.id == "doaj_withdrawn"]
    assert len(withdrawn) > 3000
    for entry in withdrawn:
        reason = (entry.reason or "").lower()
        assert classes.classify(reason) == ("practice", True), entry
        assert "best practice" in reason or "misconduct" in reason or "malicious" in reason, entry
    assert not [
        e
        for e in withdrawn
        if "ceased" in (e.reason or "").lower() and "practice" not in (e.reason or "").lower()
    ]


@pytest.mark.parametrize(
    ("reason", "kept"),
    [
        ("Journal not adhering to Best practice", True),
        ("Journal not adhering to Best Practice", True),
        ("Journal is inactive#Journal not adhering to Best practice", True),
        ("Malicious website", True),
        ("use of fake impact factor", True),
        ("Ceased publishing", False),
        ("Journal is inactive", False),
        ("Inactive (has not published in the last calendar year)", False),
        ("Website URL no longer works", False),
        ("Problems with website", False),
        ("Journal is not open access", False),
        ("Changed publisher", False),
        ("Other reasons", False),
        ("Journal does not satisfy basic criteria", False),
    ],
)
def test_doaj_reasons_are_classified_by_the_reviewed_table(reason: str, kept: bool) -> None:
    from aletheia.pipeline.derive_venue_lists import ReasonClasses, rules

    assert ReasonClasses.of(rules()["doaj_reason_classes"]).classify(reason)[1] is kept


def test_the_shipped_tables_carry_their_source_date_and_licence() -> None:
    table = questionable_venues()
    assert {v.id: v.licence for v in table.lists} == {
        "doaj_withdrawn": "CC BY-SA 4.0",
        "stop_predatory_journals": "MIT",
    }
    assert all(v.date and v.attribution and v.source for v in table.lists)
    notice = (SHIPPED / "NOTICE.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in notice and "Permission is hereby granted" in notice  # the MIT text
    for entry in table.entries:
        assert all(len(i) == 9 for i in entry.issn)
        if entry.kind == "hijacked":
            assert entry.sites and not entry.match_name  # its name is the authentic journal's
    for name in LIST_FILES:
        assert set(_shipped_rows(name)) == {"list", "columns", "rows"}


@pytest.mark.shared
def test_the_derivation_reproduces_the_shipped_tables(shared_data: Path) -> None:
    from aletheia.pipeline.derive_venue_lists import derive, read_table

    source = shared_data / "venue-lists"
    if not source.is_dir():
        pytest.skip("../shared/data/venue-lists is absent")
    files, report = derive(source)
    assert set(files) == set(LIST_FILES)
    for name, text in files.items():
        assert read_table(SHIPPED / name) == text, (
            f"{name} is stale: python -m aletheia.pipeline.derive_venue_lists"
        )
    assert any("kept" in line for line in report.lines)
