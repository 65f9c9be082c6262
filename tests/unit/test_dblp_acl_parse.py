"""DBLP's and the ACL Anthology's parsers on fixtures modelled on the real shapes, the anthology-id
parser, and which citations count as computer science (DBLP in the search coverage)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.acl_ids import acl_id_from_doi, acl_id_from_text, cited_acl_id, clean_acl_id
from aletheia.core.coverage import search_coverage
from aletheia.core.cs_scope import is_computer_science
from aletheia.core.records import CitedReference, SourceName
from aletheia.sources.acl_anthology_parse import parse_acl_bibtex
from aletheia.sources.base import SourceParseError
from aletheia.sources.dblp_parse import (
    clean_dblp_title,
    dblp_hits,
    parse_dblp_hit,
    parse_dblp_search,
    parse_dblp_xml_record,
)
from aletheia.sources.safe_xml import parse_untrusted_xml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def load(name: str) -> object:
    return json.loads((FIXTURES / "dblp" / name).read_text(encoding="utf-8"))


def test_search_envelope_two_hits() -> None:
    corr, paper = parse_dblp_search(load("search_two_hits.json"))
    assert corr.source is SourceName.DBLP
    assert (
        corr.title == "Bridging Nonlinearities and Stochastic Regularizers with Gaussian Error Linear Units"
    )
    assert [(a.given, a.family) for a in corr.authors] == [("Dan", "Hendrycks"), ("Kevin", "Gimpel")]
    assert corr.is_preprint and corr.work_type == "preprint" and corr.arxiv_id == "1606.08415"
    assert corr.venue == "CoRR" and corr.dblp_key == "journals/corr/HendrycksG16" and corr.year == 2016
    # One author as an object; entities decoded; "?" kept; a list of venues; a list of ee links.
    assert paper.title == "Ollivier's Ricci Curvature: Is It Enough?"
    assert [a.family for a in paper.authors] == ["Tong"]
    assert paper.venue == "NATO ASI Mining Massive Data Sets"
    assert paper.other_venues == ("NATO Science Series",)
    assert paper.doi == "10.3233/978-1-58603-898-4-44" and paper.work_type == "proceedings-article"
    assert paper.urls["dblp"] == "https://dblp.org/rec/conf/nato/Tong07"


def test_no_hit_is_an_empty_list_and_a_bare_hit_list_is_read() -> None:
    assert parse_dblp_search(load("search_no_hit.json")) == []
    hits = dblp_hits(load("search_two_hits.json"))
    assert len(parse_dblp_search(hits)) == 2  # the recorded caches keep the hit list alone


@pytest.mark.parametrize("payload", [{"nothing": 1}, {"result": {"hits": []}}, "text"])
def test_not_a_search_answer_is_a_parse_error(payload: object) -> None:
    with pytest.raises(SourceParseError):
        parse_dblp_search(payload)


def test_a_hit_without_a_title_is_a_parse_error() -> None:
    with pytest.raises(SourceParseError):
        parse_dblp_hit({"info": {"key": "conf/x/Y20"}})


def test_corr_doi_gives_the_arxiv_id_and_acm_placeholder_dois_are_dropped() -> None:
    corr = parse_dblp_hit(
        {
            "info": {
                "title": "X.",
                "venue": "CoRR",
                "key": "journals/corr/abs-2206-07697",
                "doi": "10.48550/ARXIV.2206.07697",
                "ee": "https://doi.org/10.48550/arXiv.2206.07697",
                "type": "Informal and Other Publications",
            }
        }
    )
    assert corr.arxiv_id == "2206.07697" and corr.doi is None
    jmlr = parse_dblp_hit(
        {
            "info": {
                "title": "Dropout.",
                "venue": "J. Mach. Learn. Res.",
                "key": "journals/jmlr/SrivastavaHKSS14",
                "doi": "10.5555/2627435.2670313",
                "type": "Journal Articles",
            }
        }
    )
    assert jmlr.doi is None and jmlr.work_type == "journal-article"


def test_record_by_key_xml() -> None:
    text = (FIXTURES / "dblp" / "rec_inproceedings.xml").read_text(encoding="utf-8")
    record = parse_dblp_xml_record(parse_untrusted_xml(text, source="dblp", allow_doctype=True))
    assert record.dblp_key == "conf/nips/SchuttKFCTM17" and record.venue == "NIPS" and record.year == 2017
    assert record.title is not None and record.title.endswith("quantum interactions")
    assert [a.family for a in record.authors] == ["Schütt", "Kindermans", "Wang"]
    assert record.work_type == "proceedings-article" and record.doi is None


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Attention Is All You Need.", "Attention Is All You Need"),
        ("Is It Enough?", "Is It Enough?"),
        ("Wow!", "Wow!"),
        ("Smith et al.", "Smith et al."),
        ("Bruce Anderson&apos;s Tutorial.", "Bruce Anderson's Tutorial"),
        ("", None),
    ],
)
def test_clean_dblp_title(raw: str, clean: str | None) -> None:
    assert clean_dblp_title(raw) == clean


@given(st.text(max_size=60))
def test_clean_dblp_title_is_idempotent_on_titles_without_a_period_run(text: str) -> None:
    once = clean_dblp_title(text)
    if once is not None and not once.endswith("."):
        assert clean_dblp_title(once) == once


def test_acl_bibtex() -> None:
    text = (FIXTURES / "acl_anthology" / "N19-1423.bib").read_text(encoding="utf-8")
    record = parse_acl_bibtex(text, "N19-1423")
    assert record.source is SourceName.ACL_ANTHOLOGY and record.source_id == "N19-1423"
    assert record.title == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    assert [a.family for a in record.authors] == ["Devlin", "Chang", "Lee", "Toutanova"]  # not the editors
    assert record.year == 2019 and record.doi == "10.18653/v1/n19-1423"
    assert record.venue is not None and record.venue.startswith("Proceedings of the 2019 Conference")
    assert record.work_type == "proceedings-article"
    # Without the id asked for, it is read from the entry's URL.
    assert parse_acl_bibtex(text).source_id == "N19-1423"


def test_acl_bibtex_without_an_entry_is_a_parse_error() -> None:
    with pytest.raises(SourceParseError):
        parse_acl_bibtex("<html>Not Found</html>")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://aclanthology.org/2023.acl-long.123/", "2023.acl-long.123"),
        ("aclanthology.org/P19-1285.pdf", "P19-1285"),
        ("https://www.aclweb.org/anthology/P/P19/P19-1001.pdf", "P19-1001"),
        ("https://aclanthology.org/2020.findings-emnlp.12v2.pdf", "2020.findings-emnlp.12"),
        ("https://aclanthology.org/2022.lrec-1.619/ and more", "2022.lrec-1.619"),
        ("https://aclanthology.org/2023.acl-long/", None),  # a volume, not a paper
        ("https://example.org/P19-1001", None),
    ],
)
def test_acl_ids_in_urls(text: str, expected: str | None) -> None:
    assert acl_id_from_text(text) == expected


def test_acl_ids_from_dois_and_citations() -> None:
    assert acl_id_from_doi("10.18653/v1/N19-1423") == "N19-1423"
    assert acl_id_from_doi("10.1000/N19-1423") is None
    assert clean_acl_id("p19-1001") == "P19-1001" and clean_acl_id("2023.ACL-long.5") == "2023.acl-long.5"
    cited = CitedReference(key="k", title="T", fields={"url": "https://aclanthology.org/N18-2074/"})
    assert cited_acl_id(cited) == "N18-2074"
    assert cited_acl_id(CitedReference(key="k", title="T", doi="10.18653/v1/n18-2074")) is None


@pytest.mark.parametrize(
    ("venue", "cs"),
    [
        ("NeurIPS", True),
        ("Proc. ICLR", True),
        ("IEEE Trans. Knowl. Data Eng.", True),
        ("Findings of EMNLP", True),
        ("Lecture Notes in Computer Science", True),
        ("Nature", False),
        ("The Lancet", False),
        ("Journal of Economic Theory", False),
        ("arXiv preprint arXiv:2101.00001", False),
    ],
)
def test_computer_science_citations_put_dblp_in_the_coverage(venue: str, cs: bool) -> None:
    cited = CitedReference(key="k", title="A title", venue=venue)
    assert is_computer_science(cited) is cs
    assert (SourceName.DBLP in search_coverage(cited)) is cs
