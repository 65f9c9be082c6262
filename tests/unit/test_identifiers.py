"""aletheia.core.identifiers: cleaning DOIs, arXiv ids, PMIDs, PMCIDs and ISBNs, and finding them in text."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from aletheia.core.arxiv_ids import ArxivId, arxiv_doi, arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import (
    clean_doi,
    clean_isbn,
    clean_issn,
    clean_pmcid,
    clean_pmid,
    doi_version_base,
    is_doi,
    issn_check_character,
    same_doi,
)
from aletheia.core.identifiers_in_text import (
    MAX_EXTRACT_CHARS,
    ExtractedIdentifiers,
    extract_identifiers,
    url_kind,
)

# --- DOI ----------------------------------------------------------------------------------------

DOI_CASES = [
    ("10.1109/TSP.2022.3153135", "10.1109/tsp.2022.3153135"),
    ("https://doi.org/10.1109/TSP.2022.3153135", "10.1109/tsp.2022.3153135"),
    ("http://dx.doi.org/10.1145/3292500.3330701", "10.1145/3292500.3330701"),
    ("HTTPS://DX.DOI.ORG/10.1145/3292500.3330701", "10.1145/3292500.3330701"),
    ("https://www.doi.org/10.1038/nature14539", "10.1038/nature14539"),
    ("doi.org/10.1038/nature14539", "10.1038/nature14539"),
    ("doi:10.1038/nature14539", "10.1038/nature14539"),
    ("DOI: 10.1038/NATURE14539", "10.1038/nature14539"),
    ("DOI 10.1038/nature14539", "10.1038/nature14539"),
    ("doi: https://doi.org/10.1038/nature14539", "10.1038/nature14539"),
    ("http://doi.acm.org/10.1145/1015330.1015430", "10.1145/1015330.1015430"),
    ("info:doi/10.1371/journal.pone.0115069", "10.1371/journal.pone.0115069"),
    ("  10.1038/nature14539  ", "10.1038/nature14539"),
    ("10.1038/nature14539.", "10.1038/nature14539"),
    ("10.1038/nature14539,", "10.1038/nature14539"),
    ("10.1038/nature14539);", "10.1038/nature14539"),
    ("<10.1038/nature14539>", "10.1038/nature14539"),
    ("'10.1038/nature14539'", "10.1038/nature14539"),
    ('"10.1038/nature14539"', "10.1038/nature14539"),
    ("https://doi.org/10.1007%2Fs10994-022-06288-4", "10.1007/s10994-022-06288-4"),
    ("10.1007%2FS10994-022-06288-4", "10.1007/s10994-022-06288-4"),
    # A closing parenthesis that closes one inside the DOI belongs to it.
    ("10.1016/0370-2693(85)91220-9", "10.1016/0370-2693(85)91220-9"),
    ("(10.1016/0370-2693(85)91220-9)", "10.1016/0370-2693(85)91220-9"),
    ("10.1016/0370-2693(85)91220-9).", "10.1016/0370-2693(85)91220-9"),
    ("10.1016/S0140-6736(20)30183-5", "10.1016/s0140-6736(20)30183-5"),
    # A SICI-style DOI keeps its own punctuation, including `<`, `>` and `;`.
    (
        "10.1002/(SICI)1097-0258(19960315)15:5<499::AID-SIM191>3.0.CO;2-R",
        "10.1002/(sici)1097-0258(19960315)15:5<499::aid-sim191>3.0.co;2-r",
    ),
    ("10.48550/arXiv.2310.01362", "10.48550/arxiv.2310.01362"),
    ("10.1609/AAAI.V37I9.26237", "10.1609/aaai.v37i9.26237"),
    ("10.1109/CVPR52729.2023.00373", "10.1109/cvpr52729.2023.00373"),
    ("10.5555/3295222.3295349", "10.5555/3295222.3295349"),
    # Not DOIs.
    ("", None),
    (None, None),
    ("10.1038", None),
    ("10.1038/", None),
    ("10.12/abc", None),  # registrant code shorter than four digits
    ("11.1038/nature14539", None),
    ("nature14539", None),
    ("10.1038/nature 14539", None),
    ("https://dl.acm.org/doi/10.1145/3292500.3330701", None),  # a publisher page, not a resolver
    ("https://arxiv.org/abs/1706.03762", None),
    ("doi:", None),
    ("10.1000/%25252525252525", None),  # escapes nested deeper than any real link
]


@pytest.mark.parametrize(("raw", "expected"), DOI_CASES)
def test_clean_doi(raw: str | None, expected: str | None) -> None:
    assert clean_doi(raw) == expected
    assert is_doi(raw) is (expected is not None)


DOI_SUFFIX = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._;()/:<>[]"),
    min_size=1,
    max_size=40,
)
DOI_LIKE = st.builds(
    lambda prefix, registrant, suffix, tail: f"{prefix}10.{registrant}/{suffix}{tail}",
    st.sampled_from(["", "doi:", "DOI ", "https://doi.org/", "http://dx.doi.org/", "doi.org/", " "]),
    st.integers(1000, 999_999_999),
    DOI_SUFFIX,
    st.sampled_from(["", ".", ")", "),", "%2F", "'", "]."]),
)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=80), DOI_LIKE))
@example("10.1000/a%2525")  # one decoding round would leave `%25` for the next
@example("10.1000/a%")
@example("10.1000/a(b))")
@example("10.1000/İ")  # lower() turns it into two characters
@example("10.1000/a)b)")
@example("10.1000/%FF")
@example("doi:doi:doi:doi:10.1000/a")
def test_clean_doi_is_idempotent_and_total(raw: str) -> None:
    once = clean_doi(raw)
    if once is not None:
        assert clean_doi(once) == once
        assert once == once.lower().strip()


# --- versioned DOIs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doi", "base"),
    [
        ("10.1101/2023.10.11.561234v1", "10.1101/2023.10.11.561234"),
        ("https://doi.org/10.1101/2023.10.11.561234V2", "10.1101/2023.10.11.561234"),
        ("10.1101/123456v3", "10.1101/123456"),  # bioRxiv's older six-digit DOIs
        ("10.6084/m9.figshare.1234567.v2", "10.6084/m9.figshare.1234567"),
        ("10.6084/m9.figshare.c.4561234.v1", "10.6084/m9.figshare.c.4561234"),
        ("10.21203/rs.3.rs-123456/v1", "10.21203/rs.3.rs-123456"),
        ("10.26434/chemrxiv.12345678.v2", "10.26434/chemrxiv.12345678"),
        ("10.26434/chemrxiv-2021-x1b2c-v3", "10.26434/chemrxiv-2021-x1b2c"),
        ("10.20944/preprints202001.0001.v1", "10.20944/preprints202001.0001"),
        # No version suffix: the bases themselves, Cold Spring Harbor journals on bioRxiv's prefix,
        # ordinary DOIs that happen to end in "v1", and no DOI at all.
        ("10.1101/2023.10.11.561234", None),
        ("10.6084/m9.figshare.1234567", None),
        ("10.1101/gr.123456.110", None),
        ("10.1101/gad.1234v1", None),
        ("10.1000/xyz.v1", None),
        ("10.48550/arxiv.1706.03762", None),
        ("not a doi", None),
        ("", None),
    ],
)
def test_doi_version_base(doi: str, base: str | None) -> None:
    assert doi_version_base(doi) == base


def test_same_doi() -> None:
    assert same_doi("10.1101/2023.10.11.561234v1", "https://doi.org/10.1101/2023.10.11.561234v2")
    assert same_doi("10.1101/2023.10.11.561234", "10.1101/2023.10.11.561234v1")
    assert same_doi("doi:10.1000/ABC", "https://doi.org/10.1000/abc.")
    assert not same_doi("10.1101/2023.10.11.561234v1", "10.1101/2023.10.11.561235v1")
    assert not same_doi("10.6084/m9.figshare.1234567.v2", "10.6084/m9.figshare.7654321.v2")
    assert not same_doi("10.1000/a", "10.1000/b")
    assert not same_doi(None, None) and not same_doi("x", "x")


VERSIONED_DOI = st.one_of(
    st.builds(
        lambda y, m, d, n, v: f"10.1101/{y}.{m:02d}.{d:02d}.{n}v{v}",
        st.integers(2013, 2030),
        st.integers(1, 12),
        st.integers(1, 28),
        st.integers(10_000, 9_999_999),
        st.integers(1, 99),
    ),
    st.builds(lambda n, v: f"10.6084/m9.figshare.{n}.v{v}", st.integers(1, 10**9), st.integers(1, 99)),
    st.builds(lambda n, v: f"10.21203/rs.3.rs-{n}/v{v}", st.integers(1, 10**7), st.integers(1, 99)),
)
ANY_DOI = st.one_of(DOI_LIKE, VERSIONED_DOI, st.text(max_size=40))


@settings(max_examples=300)
@given(ANY_DOI)
def test_doi_version_base_is_idempotent(doi: str) -> None:
    base = doi_version_base(doi)
    if base is not None:
        assert doi_version_base(base) is None  # a base has no base of its own
        assert clean_doi(base) == base
        assert same_doi(doi, base)


@settings(max_examples=300)
@given(VERSIONED_DOI)
def test_every_version_suffix_is_recognised(doi: str) -> None:
    base = doi_version_base(doi)
    assert base is not None and doi.startswith(base)


@settings(max_examples=300)
@given(ANY_DOI, ANY_DOI)
def test_same_doi_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert same_doi(a, b) == same_doi(b, a)
    if clean_doi(a) is not None:
        assert same_doi(a, a)
        assert same_doi(a, clean_doi(a))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0028-0836", "0028-0836"),  # Nature
        ("0036-8075", "0036-8075"),  # Science
        ("2041-1723", "2041-1723"),  # Nature Communications
        ("ISSN 1476-4687", "1476-4687"),  # Nature, online
        ("eISSN: 2041-1723", "2041-1723"),
        ("00280836", "0028-0836"),
        ("0028\u20110836", "0028-0836"),
        ("1050-012x", "1050-012X"),  # a check character of 10 is X, either case
        ("2162-237x", "2162-237X"),
        ("0028-0837", None),  # the check digit of 0028-083 is 6
        ("0036-8076", None),
        ("1476-468x", None),
        ("2041-1724", None),
        ("0028-083X", None),
        ("0028-08", None),
        ("978-3-16-148410-0", None),
        ("", None),
        (None, None),
    ],
)
def test_clean_issn(raw: str | None, expected: str | None) -> None:
    assert clean_issn(raw) == expected


@given(st.from_regex(r"\d{7}", fullmatch=True))
def test_exactly_one_check_character_makes_an_issn(first_seven: str) -> None:
    """Weights 8 down to 2, modulo 11 (ISO 3297): one character of the eleven completes the sum."""
    valid = [c for c in "0123456789X" if clean_issn(f"{first_seven[:4]}-{first_seven[4:]}{c}")]
    assert valid == [issn_check_character(first_seven)]
    total = sum(int(d) * w for d, w in zip(first_seven, range(8, 1, -1), strict=True))
    assert (total + (10 if valid[0] == "X" else int(valid[0]))) % 11 == 0


# --- arXiv --------------------------------------------------------------------------------------

ARXIV_CASES = [
    ("2502.03801", ArxivId("2502.03801", None)),
    ("2502.03801v2", ArxivId("2502.03801", 2)),
    ("arXiv:2502.03801", ArxivId("2502.03801", None)),
    ("arxiv:2502.03801V3", ArxivId("2502.03801", 3)),
    ("ARXIV: 1706.03762", ArxivId("1706.03762", None)),
    ("arXiv 1706.03762", ArxivId("1706.03762", None)),
    ("arXiv preprint arXiv:1706.03762", ArxivId("1706.03762", None)),
    ("arXiv:1501.00001 [hep-th]", ArxivId("1501.00001", None)),
    ("0704.0001", ArxivId("0704.0001", None)),
    ("1412.9999", ArxivId("1412.9999", None)),
    ("1501.00001", ArxivId("1501.00001", None)),
    ("hep-th/9901001", ArxivId("hep-th/9901001", None)),
    ("astro-ph/0601001v1", ArxivId("astro-ph/0601001", 1)),
    ("math.GT/0309136", ArxivId("math/0309136", None)),
    ("cond-mat.mes-hall/0601001v2", ArxivId("cond-mat/0601001", 2)),
    ("arXiv:hep-ph/0703001", ArxivId("hep-ph/0703001", None)),
    ("https://arxiv.org/abs/1706.03762", ArxivId("1706.03762", None)),
    ("http://arxiv.org/abs/2602.12271v1", ArxivId("2602.12271", 1)),
    ("https://arxiv.org/pdf/1706.03762v5.pdf", ArxivId("1706.03762", 5)),
    ("https://arxiv.org/pdf/1706.03762", ArxivId("1706.03762", None)),
    ("https://arxiv.org/html/2401.00001v1", ArxivId("2401.00001", 1)),
    ("https://arxiv.org/abs/1706.03762/", ArxivId("1706.03762", None)),
    ("https://arxiv.org/abs/1706.03762?context=cs", ArxivId("1706.03762", None)),
    ("http://export.arxiv.org/abs/hep-th/9901001", ArxivId("hep-th/9901001", None)),
    ("arxiv.org/abs/1706.03762v7", ArxivId("1706.03762", 7)),
    ("www.arxiv.org/abs/1706.03762", ArxivId("1706.03762", None)),
    ("10.48550/arXiv.2502.03801", ArxivId("2502.03801", None)),
    ("10.48550/ARXIV.2502.03801", ArxivId("2502.03801", None)),
    ("https://doi.org/10.48550/arXiv.2310.01362", ArxivId("2310.01362", None)),
    ("  1312.6114 ", ArxivId("1312.6114", None)),
    # Not arXiv ids.
    ("", None),
    (None, None),
    ("2513.03801", None),  # month 13
    ("2500.03801", None),  # month 00
    ("1412.12345", None),  # five digits before 2015
    ("1501.1234", None),  # four digits from 2015
    ("0703.0001", None),  # new-style ids began in April 2007
    ("0704.0000", None),
    ("2502.03801v0", None),
    ("2502.038011", None),
    ("hep-th/9913001", None),  # month 13
    ("hep-th/9901000", None),
    ("hep-th/0801001", None),  # old-style ids ended in March 2007
    ("not-an-archive/9901001", None),
    ("hep-th/990100", None),
    ("10.1038/nature14539", None),
    ("https://example.org/abs/1706.03762", None),
    ("1706.03762 and more text", None),
]


@pytest.mark.parametrize(("raw", "expected"), ARXIV_CASES)
def test_clean_arxiv_id(raw: str | None, expected: ArxivId | None) -> None:
    assert clean_arxiv_id(raw) == expected


def test_arxiv_id_str() -> None:
    assert str(ArxivId("2502.03801", 2)) == "2502.03801v2"
    assert str(ArxivId("2502.03801", None)) == "2502.03801"
    assert str(ArxivId("hep-th/9901001", 1)) == "hep-th/9901001v1"


NEW_STYLE_ID = st.builds(
    lambda year, month, number, version: (
        f"{year:02d}{month:02d}.{number:0{5 if year >= 15 else 4}d}" + (f"v{version}" if version else "")
    ),
    st.integers(8, 99),
    st.integers(1, 12),
    st.integers(1, 9999),
    st.one_of(st.none(), st.integers(1, 30)),
)
OLD_STYLE_ID = st.builds(
    lambda archive, year, month, number: f"{archive}/{year:02d}{month:02d}{number:03d}",
    st.sampled_from(["hep-th", "hep-ph", "astro-ph", "cond-mat", "math", "cs", "quant-ph", "gr-qc"]),
    st.sampled_from([92, 95, 99, 0, 3, 6]),
    st.integers(1, 12),
    st.integers(1, 999),
)


@given(st.one_of(NEW_STYLE_ID, OLD_STYLE_ID), st.sampled_from(["", "arXiv:", "https://arxiv.org/abs/"]))
@example("0704.0001", "")
@example("1501.00001v1", "arXiv:")
@example("hep-th/9901001", "https://arxiv.org/abs/")
def test_clean_arxiv_id_round_trips_through_str(identifier: str, prefix: str) -> None:
    parsed = clean_arxiv_id(prefix + identifier)
    assert parsed is not None
    assert str(parsed) == identifier
    assert clean_arxiv_id(str(parsed)) == parsed


@given(st.text(max_size=80))
@example("arXiv:")
@example("10.48550/arxiv.")
@example("https://arxiv.org/abs/" + "1" * 600)
def test_clean_arxiv_id_is_total_and_round_trips(raw: str) -> None:
    parsed = clean_arxiv_id(raw)
    if parsed is not None:
        assert clean_arxiv_id(str(parsed)) == parsed


@pytest.mark.parametrize(
    ("doi", "expected"),
    [
        ("10.48550/arXiv.2502.03801", ArxivId("2502.03801", None)),
        ("https://doi.org/10.48550/ARXIV.2201.09901", ArxivId("2201.09901", None)),
        ("10.48550/arXiv.2602.12271v1", ArxivId("2602.12271", 1)),  # seen in the wild, versioned
        ("10.48550/arXiv.hep-th/9901001", ArxivId("hep-th/9901001", None)),
        ("10.48550/arXiv.2513.00001", None),
        ("10.1038/nature14539", None),
        ("10.48550/zenodo.123", None),
        ("", None),
    ],
)
def test_arxiv_id_from_doi(doi: str, expected: ArxivId | None) -> None:
    assert arxiv_id_from_doi(doi) == expected


@pytest.mark.parametrize(
    ("arxiv_id", "expected"),
    [
        ("2502.03801", "10.48550/arxiv.2502.03801"),
        ("arXiv:2502.03801v4", "10.48550/arxiv.2502.03801"),
        ("hep-th/9901001", "10.48550/arxiv.hep-th/9901001"),
    ],
)
def test_arxiv_doi(arxiv_id: str, expected: str) -> None:
    doi = arxiv_doi(arxiv_id)
    assert doi == expected
    assert clean_doi(doi) == doi
    parsed = clean_arxiv_id(arxiv_id)
    assert parsed is not None
    assert arxiv_id_from_doi(doi) == ArxivId(parsed.id)


def test_arxiv_doi_rejects_non_ids() -> None:
    with pytest.raises(ValueError, match="not an arXiv identifier"):
        arxiv_doi("10.1038/nature14539")


# --- PubMed -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("31452104", "31452104"),
        (31452104, "31452104"),
        ("PMID: 31452104", "31452104"),
        ("pmid:31452104", "31452104"),
        ("PMID 7", "7"),
        ("PubMed ID: 31452104", "31452104"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "31452104"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104", "31452104"),
        ("https://www.ncbi.nlm.nih.gov/pubmed/31452104", "31452104"),
        ("http://www.ncbi.nlm.nih.gov/pubmed/?term=31452104", "31452104"),
        ("https://europepmc.org/article/MED/31452104", "31452104"),
        ("0031452104", None),  # ten digits
        ("0", None),
        ("", None),
        (None, None),
        (True, None),
        ("PMC6511183", None),
        ("31452104a", None),
        ("12 34", None),
        ("12/2020", None),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/?from=search", "31452104"),
    ],
)
def test_clean_pmid(raw: str | int | None, expected: str | None) -> None:
    assert clean_pmid(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("PMC6511183", "PMC6511183"),
        ("pmc6511183", "PMC6511183"),
        ("PMC 6511183", "PMC6511183"),
        ("PMCID: PMC6511183", "PMC6511183"),
        ("PMCID: 6511183", "PMC6511183"),
        ("PMC6511183.1", "PMC6511183"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6511183/", "PMC6511183"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC6511183/", "PMC6511183"),
        ("https://europepmc.org/article/PMC/PMC6511183", "PMC6511183"),
        ("6511183", None),  # bare digits could as well be a PMID
        ("PMID: 6511183", None),
        ("PMC", None),
        ("PMC0", None),
        ("", None),
        (None, None),
    ],
)
def test_clean_pmcid(raw: str | None, expected: str | None) -> None:
    assert clean_pmcid(raw) == expected


# --- ISBN ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("978-0-262-03384-8", "9780262033848"),
        ("9780262033848", "9780262033848"),
        ("978 0 262 03384 8", "9780262033848"),
        ("0-262-03384-4", "9780262033848"),  # ISBN-10 of the same book
        ("ISBN 0-262-03384-4", "9780262033848"),
        ("ISBN-13: 978-0-262-03384-8", "9780262033848"),
        ("isbn:9780262033848", "9780262033848"),
        ("0-8044-2957-X", "9780804429573"),  # check digit X
        ("0-8044-2957-x", "9780804429573"),
        ("979-10-90636-07-1", "9791090636071"),
        ("978-0-262-03384-9", None),  # bad check digit
        ("0-262-03384-5", None),
        ("123456789", None),
        ("978-0-262-03384-8 978-0-387-31073-2", None),  # two ISBNs are not one
        ("", None),
        (None, None),
    ],
)
def test_clean_isbn(raw: str | None, expected: str | None) -> None:
    assert clean_isbn(raw) == expected


# --- URLs and extraction ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://doi.org/10.1038/nature14539", "doi"),
        ("http://dx.doi.org/10.1145/3292500.3330701", "doi"),
        ("https://doi.org/10.48550/arXiv.2310.01362", "arxiv"),
        ("https://arxiv.org/abs/1706.03762", "arxiv"),
        ("https://arxiv.org/pdf/1706.03762v5.pdf", "arxiv"),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "pubmed"),
        ("https://europepmc.org/abstract/MED/31452104", "pubmed"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6511183/", "pmc"),
        ("https://europepmc.org/article/PMC/PMC6511183", "pmc"),
        ("https://openreview.net/forum?id=VipljNfZSZ", None),
        ("http://proceedings.mlr.press/v119/abbas20a.html", None),
        ("https://arxiv.org/list/cs.LG/recent", None),
        ("", None),
    ],
)
def test_url_kind(url: str, expected: str | None) -> None:
    assert url_kind(url) == expected


def test_extract_identifiers_from_a_reference_list() -> None:
    text = (
        "[1] A. Vaswani et al. Attention is all you need. arXiv preprint arXiv:1706.03762, 2017.\n"
        "[2] Y. LeCun, Y. Bengio, G. Hinton. Deep learning. Nature 521, 436-444 (2015). "
        "doi:10.1038/NATURE14539.\n"
        "[3] See https://doi.org/10.48550/arXiv.2310.01362 and (https://www.ncbi.nlm.nih.gov/pmc/articles/"
        "PMC6511183/).\n"
        "[4] Smith J. A trial. Lancet. 2020;395(10223):497-506. PMID: 31986264; PMCID: PMC7159299.\n"
        "[5] C. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. ISBN 978-0-387-31073-2.\n"
        "[6] Old paper, http://arxiv.org/abs/hep-th/9901001v2. Again: arXiv:1706.03762.\n"
        "[7] The same DOI again: https://doi.org/10.1038/nature14539\n"
    )
    found = extract_identifiers(text)
    assert found == ExtractedIdentifiers(
        dois=("10.1038/nature14539", "10.48550/arxiv.2310.01362"),
        arxiv_ids=(ArxivId("1706.03762"), ArxivId("2310.01362"), ArxivId("hep-th/9901001", 2)),
        pmids=("31986264",),
        pmcids=("PMC6511183", "PMC7159299"),
        isbns=("9780387310732",),
        urls=(
            "https://doi.org/10.48550/arXiv.2310.01362",
            "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6511183/",
            "http://arxiv.org/abs/hep-th/9901001v2",
            "https://doi.org/10.1038/nature14539",
        ),
    )


@pytest.mark.parametrize(
    ("text", "dois"),
    [
        ("Available at 10.1016/0370-2693(85)91220-9.", ("10.1016/0370-2693(85)91220-9",)),
        ("(see 10.1016/0370-2693(85)91220-9)", ("10.1016/0370-2693(85)91220-9",)),
        ("DOI:10.1145/3292500.3330701,", ("10.1145/3292500.3330701",)),
        ('<a href="https://doi.org/10.1145/3292500.3330701">link</a>', ("10.1145/3292500.3330701",)),
        ("https://dl.acm.org/doi/10.1145/3292500.3330701", ("10.1145/3292500.3330701",)),
        ("https://doi.org/10.1007%2Fs10994-022-06288-4", ("10.1007/s10994-022-06288-4",)),
        ("110.1038/nature14539", ()),  # not preceded by another digit
        ("10.12/abc", ()),
    ],
)
def test_extract_dois(text: str, dois: tuple[str, ...]) -> None:
    assert extract_identifiers(text).dois == dois


@pytest.mark.parametrize(
    ("text", "arxiv_ids"),
    [
        ("arXiv:2101.00001", (ArxivId("2101.00001"),)),
        ("arXiv preprint arXiv:1706.03762v5", (ArxivId("1706.03762", 5),)),
        ("CoRR abs/1706.03762, arXiv.1706.03762", (ArxivId("1706.03762"),)),
        ("e-print arXiv:math.GT/0309136", (ArxivId("math/0309136"),)),
        ("arxiv.org/pdf/2401.00001v2.pdf", (ArxivId("2401.00001", 2),)),
        ("arXiv:1412.12345 is malformed", ()),
        ("1706.03762 alone is too ambiguous", ()),
    ],
)
def test_extract_arxiv_ids(text: str, arxiv_ids: tuple[ArxivId, ...]) -> None:
    assert extract_identifiers(text).arxiv_ids == arxiv_ids


def test_extract_isbn_takes_the_first_of_a_run() -> None:
    assert extract_identifiers("isbn = {978-1-4673-5054-9 978-1-4673-5053-2}").isbns == ("9781467350549",)
    assert extract_identifiers("ISBN: 0-262-03384-4 (hardcover)").isbns == ("9780262033848",)
    assert extract_identifiers("ISBN 978-0-262-03384-9").isbns == ()


def test_extract_identifiers_reads_at_most_the_cap() -> None:
    beyond = " " * MAX_EXTRACT_CHARS + "doi:10.1038/nature14539"
    assert extract_identifiers(beyond).dois == ()


@pytest.mark.parametrize(
    "hostile",
    [
        "pmid" + " " * 200_000,
        "isbn" + " " * 200_000,
        "PMCID" + " " * 200_000 + ":",
        "arxiv" + " " * 200_000,
        "arXiv:" + "a" * 200_000,
        "10.1000/x" + ")" * 200_000,
        "http://x/" + ")" * 200_000,
        "10.1000/" * 50_000,
        "10.1000/a " * 30_000,
        "10." * 100_000,
        "%25" * 100_000,
        "https://doi.org/" + "%25" * 100_000,
    ],
)
def test_extract_identifiers_is_linear_on_hostile_input(hostile: str) -> None:
    # This process's CPU time, not the wall clock (which a loaded machine stretches past any bound):
    # a quadratic scan of these inputs takes minutes.
    started = time.process_time()
    extract_identifiers(hostile)
    for clean in (clean_doi, clean_arxiv_id, clean_pmid, clean_pmcid, clean_isbn):
        clean(hostile)
    assert time.process_time() - started < 10.0


SURROUNDING = st.text(max_size=60)


@settings(max_examples=200)
@given(SURROUNDING, DOI_LIKE.filter(lambda doi: not doi.startswith(" ")), SURROUNDING)
@example("x", "10.1016/0370-2693(85)91220-9", ").")
@example("(", "doi:10.1000/a", ")")
@example("", "https://doi.org/10.1000/a%2F", "")
def test_extract_identifiers_finds_an_embedded_doi(before: str, doi: str, after: str) -> None:
    expected = clean_doi(doi)
    assume(expected is not None)
    found = extract_identifiers(f"{before} {doi} {after}")
    assert expected in found.dois


@given(st.text(max_size=300))
@example("PMCID: PMC")
@example("ISBN 0000000000")
@example("https://")
@example("arXiv:")
def test_extract_identifiers_never_raises(text: str) -> None:
    found = extract_identifiers(text)
    assert all(clean_doi(doi) == doi for doi in found.dois)
    assert len(set(found.urls)) == len(found.urls)


# --- the real-world identifiers in ../shared (skipped when absent) ------------------------------


@pytest.mark.shared
def test_every_benchmark_doi_and_arxiv_url_parses(shared_data: Path) -> None:
    rows = shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"
    if not rows.is_file():
        pytest.skip("hallmark-dev benchmark is absent")
    dois = urls = 0
    for line in rows.read_text(encoding="utf-8").splitlines():
        fields = json.loads(line).get("fields") or {}
        if doi := fields.get("doi"):
            dois += 1
            assert clean_doi(doi) is not None, doi
        url = fields.get("url") or ""
        if "arxiv.org/abs/" in url:
            urls += 1
            assert clean_arxiv_id(url) is not None, url
    assert dois > 0
    assert urls > 0
