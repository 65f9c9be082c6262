"""Every recorded E-utilities response in ../shared parses, or is recognised as not a paper record.

Sources: metapub's 164 efetch records (and its other test data), and Biopython's Entrez test
files (esearch, esummary, efetch, and the einfo/elink/epost/espell/sequence answers that hold no
paper). Every file is accounted for: one this test does not know fails it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aletheia.core.records import RetractionKind
from aletheia.sources.base import SourceParseError
from aletheia.sources.pubmed import parse_efetch_xml, parse_esearch, parse_esummary_xml
from aletheia.sources.safe_xml import parse_untrusted_xml
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared

# Root elements of E-utilities answers that carry no PubMed paper record.
NOT_PAPER_ROOTS = {
    "eInfoResult": "einfo: database descriptions",
    "eLinkResult": "elink: links between ids",
    "ePostResult": "epost: a history-server key",
    "eSpellResult": "espell: spelling suggestions",
    "pmc-articleset": "PMC full text (db=pmc), not PubMed metadata",
    "IPGReportSet": "identical protein groups",
    "GBSet": "GenBank sequences",
    "TSeqSet": "sequences",
    "TaxaSet": "taxonomy",
    "BioSampleSet": "biosamples",
    "SerialsSet": "NLM journal catalogue",
}
# Files that are not E-utilities XML at all.
NOT_RESPONSES = {
    "pubmed3.html": "a legacy PmFetch ASN.1 page",
    "README.md": "metapub's notes",
    "generated_bibtex_samples.json": "metapub's own BibTeX output",
    "sample_bibtex_citations.json": "metapub's own test citations",
    "non_english_pmids_reference.json": "a list of PMIDs",
}
TRUNCATED_ON_PURPOSE = {"einfo4.xml"}  # Biopython's test of a cut-off einfo answer


def pubmed_dir(shared_data: Path) -> Path:
    return shared_data / "api-samples" / "pubmed"


def root_tag(text: str) -> str:
    return parse_untrusted_xml(text, source="pubmed", allow_doctype=True).tag


def check_efetch(path: Path, text: str) -> int:
    records = parse_efetch_xml(text)
    articles = len(re.findall(r"<Pubmed(?:Book)?Article>", text))
    assert len(records) == articles, path.name
    for record in records:
        assert record.pmid is not None and record.pmid.isdigit()
        assert record.title, path.name
        assert record.year is not None and 1800 <= record.year <= 2030, path.name
        assert record.venue, path.name
        assert all(a.family or a.literal for a in record.authors), path.name
        if record.doi is not None:
            assert record.doi.startswith("10.") and record.doi == record.doi.lower()
        if record.pmcid is not None:
            assert re.fullmatch(r"PMC\d+", record.pmcid)
        for notice in record.retraction_notices:
            assert notice.detail
        assert_precision_fields_well_typed(record)
    return len(records)


def test_metapub_efetch_records(shared_data: Path) -> None:
    directory = pubmed_dir(shared_data) / "metapub-tests" / "fixtures" / "pmid_xml"
    files = sorted(directory.glob("*.xml"))
    assert len(files) == 164
    not_found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        if check_efetch(path, text) == 0:
            not_found.append(path.stem)  # PubMed's answer for a PMID it has no record of
            continue
        [record] = parse_efetch_xml(text)
        assert record.pmid == path.stem  # named by the PMID they hold
    assert not_found == ["37909814"]


def test_known_records(shared_data: Path) -> None:
    directory = pubmed_dir(shared_data) / "metapub-tests" / "fixtures" / "pmid_xml"
    [anxiety] = parse_efetch_xml((directory / "38147649.xml").read_text(encoding="utf-8"))
    assert anxiety.title == "Social anxiety disorder-associated gut microbiota increases social fear"
    assert anxiety.doi == "10.1073/pnas.2308706120"
    assert anxiety.year == 2024
    assert (anxiety.authors[0].family, anxiety.authors[0].given) == ("Ritz", "Nathaniel L")
    assert anxiety.authors[0].orcid == "0000-0002-7367-292X"
    [erratum_notice] = anxiety.retraction_notices
    assert erratum_notice.kind is RetractionKind.CORRECTED
    assert erratum_notice.notice_doi == "10.1073/pnas.2424381121"

    [corrigendum] = parse_efetch_xml((directory / "38833988.xml").read_text(encoding="utf-8"))
    assert corrigendum.work_type == "notice"  # the record is itself the correction notice
    assert corrigendum.retraction_notices == ()
    assert corrigendum.notice_for == ("10.1016/j.bbamcr.2020.118918",)

    book = pubmed_dir(shared_data) / "metapub-tests" / "test_data" / "sample_article_20301577.xml"
    [chapter] = parse_efetch_xml(book.read_text(encoding="utf-8"))
    assert chapter.work_type == "book-chapter"
    assert chapter.title == "CACNA1C-Related Disorders"
    assert [a.family for a in chapter.authors] == ["Napolitano", "Priori"]


def test_every_other_file_is_parsed_or_recognised(shared_data: Path) -> None:
    root = pubmed_dir(shared_data)
    pmid_xml = root / "metapub-tests" / "fixtures" / "pmid_xml"
    files = [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.parent != pmid_xml and not p.name.startswith(("LICENSE", "SOURCE"))
    ]
    counts = {"efetch": 0, "esearch": 0, "esummary": 0, "other": 0}
    for path in files:
        if path.name in NOT_RESPONSES or path.suffix == ".txt":
            continue  # not E-utilities answers (.txt: metapub's sample texts and logs)
        assert path.suffix == ".xml", f"unrecognised file {path}"
        text = path.read_text(encoding="utf-8")
        if path.name in TRUNCATED_ON_PURPOSE:
            with pytest.raises(SourceParseError):
                root_tag(text)
            continue
        tag = root_tag(text)
        if tag == "PubmedArticleSet":
            counts["efetch"] += check_efetch(path, text)
        elif tag == "eSearchResult":
            ids = parse_esearch(text)
            assert all(i.isdigit() for i in ids)
            assert len(ids) == len(re.findall(r"<Id>", text))
            counts["esearch"] += 1
        elif tag == "eSummaryResult":
            records = parse_esummary_xml(text)
            # Only PubMed DocSums make records; protein, structure or taxonomy DocSums do not.
            if path.name == "esummary1.xml":
                assert [r.pmid for r in records] == ["11850928", "11482001"]
                assert records[0].title == "Zirconium granuloma following treatment of rhus dermatitis"
                assert records[0].authors[1].suffix == "Jr"
                assert records[0].year == 1965
            else:
                assert records == [], path.name
            counts["esummary"] += 1
        else:
            assert tag in NOT_PAPER_ROOTS, f"unrecognised E-utilities answer {path.name}: <{tag}>"
            counts["other"] += 1
    assert counts["efetch"] >= 9
    assert counts["esearch"] >= 7
    assert counts["esummary"] >= 7
    assert counts["other"] >= 10


def test_journal_abbreviations_and_issns_are_read(shared_data: Path) -> None:
    directory = pubmed_dir(shared_data) / "metapub-tests" / "fixtures" / "pmid_xml"
    records = [
        r
        for path in sorted(directory.glob("*.xml"))
        for r in parse_efetch_xml(path.read_text(encoding="utf-8"))
    ]
    assert sum(1 for r in records if r.venue_aliases) >= 100  # ISO abbreviation / MedlineTA
    assert sum(1 for r in records if r.issn) >= 100
    [anxiety] = parse_efetch_xml((directory / "38147649.xml").read_text(encoding="utf-8"))
    assert anxiety.venue == "Proceedings of the National Academy of Sciences of the United States of America"
    assert "Proc Natl Acad Sci U S A" in anxiety.venue_aliases
