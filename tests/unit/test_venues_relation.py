"""Venues: acronyms read off names, publishers, series, repositories, and `venue_relation`."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.venue_acronyms import acronym_candidates, is_acronym_like
from aletheia.core.venue_data import DATA_FILE, venue_tables
from aletheia.core.venues import (
    VenueRelation,
    acronym_matches,
    book_series_key,
    canonical_venue,
    is_platform,
    is_publisher,
    venue_aliases,
    venue_relation,
    venue_table_version,
)

# --- acronyms ---------------------------------------------------------------------------------

ACRONYM_PAIRS = [
    ("SOUPS", "Symposium on Usable Privacy and Security"),
    ("SOUPS", "Fifteenth Symposium on Usable Privacy and Security (SOUPS 2019)"),
    ("ICDM", "2019 IEEE International Conference on Data Mining (ICDM)"),
    ("ICDM", "IEEE International Conference on Data Mining"),
    ("CCS", "Proceedings of the 2017 ACM SIGSAC Conference on Computer and Communications Security"),
    ("CCS", "CCS '17: Proceedings of the 2017 ACM SIGSAC Conference on Computer and Communications Security"),
    ("IPCO", "Integer Programming and Combinatorial Optimization"),
    ("IPCO", "International Conference on Integer Programming and Combinatorial Optimization"),
    ("S&P", "IEEE Symposium on Security and Privacy"),
    ("SP", "2019 IEEE Symposium on Security and Privacy (SP)"),
    (
        "KDD",
        "Proceedings of the 25th ACM SIGKDD International Conference on Knowledge Discovery & Data Mining",
    ),
    ("KDD", "Knowledge Discovery in Databases"),
    ("SIGMOD", "Proceedings of the 2019 International Conference on Management of Data"),
    ("SIGMOD", "ACM SIGMOD International Conference on Management of Data"),
    ("WWW", "The World Wide Web Conference"),
    ("WWW", "Proceedings of the 24th International Conference on World Wide Web"),
    ("EMNLP", "Conference on Empirical Methods in Natural Language Processing"),
    (
        "EMNLP",
        "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    ),
    ("ICWSM", "International AAAI Conference on Web and Social Media"),
    ("NeurIPS", "Neural Information Processing Systems"),
    ("CoRL", "Conference on Robot Learning"),
    ("COLING", "International Conference on Computational Linguistics"),
    ("NDSS", "Network and Distributed System Security Symposium"),
    ("FAccT", "Conference on Fairness, Accountability, and Transparency"),
    ("PODS", "Symposium on Principles of Database Systems"),
    ("LNCS", "Lecture Notes in Computer Science"),
    ("AAAI", "Proceedings of the AAAI Conference on Artificial Intelligence"),
    ("ICDE", "2020 IEEE 36th International Conference on Data Engineering (ICDE)"),
    ("ICML2023", "International Conference on Machine Learning"),
    ("3DV", "International Conference on 3D Vision"),
]

ACRONYM_NON_PAIRS = [
    ("ICML", "International Conference on Computer Vision"),
    ("CCS", "Conference on Computer Vision and Pattern Recognition"),
    ("ICML", "International Conference on Machine Learning and Applications"),
    ("AAAI", "International AAAI Conference on Web and Social Media"),
    ("ICDM", "International Conference on Data Engineering"),
    ("SOUPS", "IEEE Symposium on Security and Privacy"),
    ("SIGIR", "International Conference on Management of Data"),
    ("ICCV", "European Conference on Computer Vision"),
    ("ECCV", "International Conference on Computer Vision"),
    ("CVPR", "International Conference on Computer Vision"),
    ("ICLR", "International Conference on Machine Learning"),
    ("WWW", "World Scientific"),
    ("EMNLP", "Workshop on Empirical Methods in Natural Language Processing"),
    ("IPCO", "Integer Programming"),
    ("NAT", "Nature"),
    ("Nature", "Nature Communications"),
    ("Security", "USENIX Security Symposium"),
    ("KDD", "International Conference on Data Mining"),
    ("", "International Conference on Machine Learning"),
    ("ICML", ""),
]


@pytest.mark.parametrize(("acronym", "name"), ACRONYM_PAIRS)
def test_acronym_of_its_name(acronym: str, name: str) -> None:
    assert acronym_matches(acronym, name)


@pytest.mark.parametrize(("acronym", "name"), ACRONYM_NON_PAIRS)
def test_acronym_of_another_name(acronym: str, name: str) -> None:
    assert not acronym_matches(acronym, name)


def test_the_acronym_table_is_large_enough() -> None:
    assert len(ACRONYM_PAIRS) + len(ACRONYM_NON_PAIRS) >= 25


@pytest.mark.parametrize(
    ("token", "like"),
    [("SOUPS", True), ("S&P", True), ("NeurIPS", True), ("CCS'17", True), ("Nature", False), ("A", False)],
)
def test_acronym_shape(token: str, like: bool) -> None:
    assert is_acronym_like(token) is like


@pytest.mark.parametrize(
    ("venue", "candidates"),
    [
        ("CCS '17", ("CCS",)),
        ("Proc. IEEE S&P 2019", ("S&P",)),
        ("SIGMOD Conference", ("SIGMOD",)),
        ("In ICDM", ("ICDM",)),
        ("Computer Vision and Pattern Recognition (CVPR)", ("CVPR",)),
        ("USENIX Security", ()),
        ("Nature", ()),
    ],
)
def test_acronym_candidates(venue: str, candidates: tuple[str, ...]) -> None:
    assert acronym_candidates(venue) == candidates


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, min_size=2, max_size=8))
@example(["first", "conference", "on", "sigma", "data"])
def test_initials_of_any_word_list_match(words: list[str]) -> None:
    acronym = "".join(word[0] for word in words).upper()
    assert acronym_matches(acronym, " ".join(word.capitalize() for word in words))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12), st.text(max_size=80))
def test_acronym_matches_never_raises(acronym: str, name: str) -> None:
    assert acronym_matches(acronym, name) in (True, False)


# --- publishers, series, repositories -------------------------------------------------------------


@pytest.mark.parametrize(
    ("venue", "publisher"),
    [
        ("Springer", True),
        ("Springer, Cham", True),
        ("Springer International Publishing", True),
        ("Elsevier", True),
        ("IEEE", True),
        ("ACM", True),
        ("Packt Publishing", True),
        ("Packt Publishing Ltd", True),
        ("O'Reilly Media, Inc.", True),
        ("The MIT Press", True),
        ("Cambridge University Press", True),
        ("Curran Associates, Inc.", True),
        ("PMLR", True),
        ("OpenReview.net", True),
        ("John Wiley & Sons", True),
        ("Proceedings of the IEEE", False),
        ("IEEE Access", False),
        ("Communications of the ACM", False),
        ("Nature", False),
        ("Machine Learning", False),
        ("Neural Computation", False),
        (None, False),
    ],
)
def test_is_publisher(venue: str | None, publisher: bool) -> None:
    assert is_publisher(venue) is publisher


@pytest.mark.parametrize(
    ("venue", "key"),
    [
        ("Lecture Notes in Computer Science", "lncs"),
        ("LNCS", "lncs"),
        (
            "Lecture Notes in Computer Science (including subseries Lecture Notes in Artificial "
            "Intelligence and Lecture Notes in Bioinformatics)",
            "lncs",
        ),
        ("Lect. Notes Comput. Sci.", "lncs"),
        ("CEUR Workshop Proceedings", "ceur"),
        ("Leibniz International Proceedings in Informatics", "lipics"),
        ("Communications in Computer and Information Science", "ccis"),
        ("Computer Vision – ECCV 2020", None),
        ("European Conference on Computer Vision", None),
    ],
)
def test_book_series_key(venue: str, key: str | None) -> None:
    assert book_series_key(venue) == key


@pytest.mark.parametrize(
    ("venue", "platform"),
    [
        ("Apollo (University of Cambridge)", True),
        ("eScholarship (California Digital Library)", True),
        ("Europe PMC (PubMed Central)", True),
        ("PubMed Central", True),
        ("Institutional Repository of the Institute of Automation", True),
        ("HAL (Le Centre pour la Communication Scientifique Directe)", True),
        ("DSpace@MIT", True),
        ("Pure and Applied Chemistry", False),
        ("Proceedings of the VLDB Endowment", False),
        ("University of Pennsylvania Law Review", False),
        ("Nature", False),
    ],
)
def test_is_platform(venue: str, platform: bool) -> None:
    assert is_platform(venue) is platform


# --- the relation -----------------------------------------------------------------------------

AGREE, NOTC, OTHER, UNRES = (
    VenueRelation.AGREES,
    VenueRelation.NOT_COMPARABLE,
    VenueRelation.OTHER_KNOWN_VENUE,
    VenueRelation.UNRESOLVED,
)


@pytest.mark.parametrize(
    ("cited", "names", "relation"),
    [
        # Acronyms outside machine learning.
        ("SOUPS", ["Fifteenth Symposium on Usable Privacy and Security (SOUPS 2019)"], AGREE),
        ("ICDM", ["2019 IEEE International Conference on Data Mining (ICDM)"], AGREE),
        (
            "CCS '17",
            ["Proceedings of the 2017 ACM SIGSAC Conference on Computer and Communications Security"],
            AGREE,
        ),
        (
            "IPCO",
            ["Integer Programming and Combinatorial Optimization", "Lecture Notes in Computer Science"],
            AGREE,
        ),
        ("KDD", ["Knowledge Discovery and Data Mining"], AGREE),
        ("WWW", ["The World Wide Web Conference"], AGREE),
        ("S&P", ["2019 IEEE Symposium on Security and Privacy (SP)"], AGREE),
        ("USENIX Security", ["30th USENIX Security Symposium (USENIX Security 21)"], AGREE),
        (
            "SIGMOD Conference",
            ["Proceedings of the 2019 International Conference on Management of Data"],
            AGREE,
        ),
        # The source's own aliases and abbreviations.
        ("Symp. Usable Priv. Secur.", ["Symposium on Usable Privacy and Security", "SOUPS"], AGREE),
        ("J. Foo Bar Stud.", ["Journal of Foo and Bar Studies", "J. Foo Bar Stud."], AGREE),
        ("FooConf", ["Foo Symposium", "FooConf"], AGREE),
        # A book series among the names, or cited for a named proceedings.
        (
            "Lecture Notes in Computer Science",
            ["Computer Vision – ECCV 2020", "Lecture Notes in Computer Science"],
            AGREE,
        ),
        ("LNCS", ["Lecture Notes in Computer Science"], AGREE),
        ("LNCS", ["Computer Vision – ECCV 2020"], NOTC),
        ("ECCV", ["Lecture Notes in Computer Science"], NOTC),
        # An institutional repository as the primary location.
        ("ECCV", ["Apollo (University of Cambridge)", "Computer Vision – ECCV 2020"], AGREE),
        ("ECCV", ["Apollo (University of Cambridge)"], NOTC),
        # A publisher written as the venue.
        ("Packt Publishing", ["Python Machine Learning"], NOTC),
        ("Springer", ["Machine Learning"], NOTC),
        ("Elsevier", ["Pattern Recognition"], NOTC),
        ("IEEE", ["IEEE Transactions on Image Processing"], NOTC),
        ("ICML", ["Springer"], NOTC),
        # PMLR and the venues it publishes; no claim on either side.
        ("ICML", ["Proceedings of Machine Learning Research"], NOTC),
        ("ICML", ["PMLR"], NOTC),
        ("arXiv", ["NeurIPS"], NOTC),
        ("NeurIPS", [], NOTC),
        ("NeurIPS", ["arXiv", ""], NOTC),
        (None, ["NeurIPS"], NOTC),
        # Positively another venue.
        ("ICML", ["NeurIPS"], OTHER),
        (
            "ICML",
            ["Proceedings of Machine Learning Research", "Advances in Neural Information Processing Systems"],
            OTHER,
        ),
        ("Findings of ACL", ["ACL"], OTHER),
        ("ICML", ["ICML Workshop on Uncertainty and Robustness"], OTHER),
        (
            "NeurIPS Workshop on Adversarial Training",
            ["Advances in Neural Information Processing Systems"],
            OTHER,
        ),
        ("CVPR Workshops", ["ICCV Workshops"], OTHER),
        ("ECCV", ["Proceedings of Machine Learning Research"], OTHER),
        # Different, and nothing resolves it.
        ("Journal of Foo", ["Journal of Bar"], UNRES),
        ("ICML", ["International Conference on Machine Learning and Applications"], UNRES),
        ("Nature", ["Nature Communications"], UNRES),
        ("Pattern Recognition", ["Pattern Recognition Letters"], UNRES),
        ("NeurIPS Workshop on Adversarial Training", ["Nature"], OTHER),
        # The usual agreements.
        ("ICML", ["Proceedings of the 40th International Conference on Machine Learning"], AGREE),
        ("Phys. Rev. Lett.", ["Physical Review Letters"], AGREE),
        ("Proceedings of the IEEE", ["Proc. IEEE"], AGREE),
    ],
)
def test_venue_relation(cited: str | None, names: list[str], relation: VenueRelation) -> None:
    assert venue_relation(cited, names) is relation


def test_workshops_stay_distinct_from_their_conference() -> None:
    assert venue_relation("CVPR", ["CVPR Workshops"]) is VenueRelation.OTHER_KNOWN_VENUE
    assert venue_relation("KDD", ["ACM SIGKDD Workshop on Mining and Learning with Graphs"]) is not AGREE


@settings(max_examples=200, deadline=None)
@given(st.none() | st.text(max_size=40), st.lists(st.text(max_size=40), max_size=4))
@example("ICML", ["PMLR", "NeurIPS"])
def test_venue_relation_never_raises(cited: str | None, names: list[str]) -> None:
    relation = venue_relation(cited, names)
    assert relation in VenueRelation
    if cited is not None and relation is not NOTC and names:
        assert venue_relation(cited, [*names, "Springer"]) is relation  # a publisher adds nothing


# --- the data file --------------------------------------------------------------------------------


def test_the_data_file_is_versioned_and_sourced() -> None:
    text = (resources.files("aletheia.core") / "data" / DATA_FILE).read_text(encoding="utf-8")
    document = json.loads(text)
    assert document["version"] == venue_table_version()
    keys = [entry["key"] for entry in document["venues"]]
    assert len(keys) == len(set(keys)) == len(venue_aliases())
    assert all(entry["sources"] for entry in document["venues"])
    assert {"icml", "neurips", "soups", "ccs", "icdm", "ipco", "ieee-sp"} <= set(keys)
    assert venue_tables().pmlr_hosted >= {"icml", "pmlr"}


def test_new_keys_do_not_swallow_their_neighbours() -> None:
    assert canonical_venue("ACM Asia Conference on Computer and Communications Security") == "asiaccs"
    assert canonical_venue("SIAM International Conference on Data Mining") == "sdm"
    assert canonical_venue("IEEE International Conference on Data Mining Workshops") is None
    assert canonical_venue("Industrial Conference on Data Mining") is None


def test_the_table_is_read_on_first_use_only() -> None:
    probe = (
        "import aletheia.core.venues, aletheia.core.decide\n"
        "from aletheia.core.venue_data import venue_tables\n"
        "print(venue_tables.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"
