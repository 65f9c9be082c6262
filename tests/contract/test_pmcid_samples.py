"""Real PubMed efetch records give the PMCID the full-text chain uses (issue 12): every article whose
`PubmedData/ArticleIdList` holds an `ArticleId IdType="pmc"` is parsed with that PMCID (and those
in its reference list are not taken for its own). Skips when ../shared is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.sources.pubmed import parse_efetch_xml
from aletheia.sources.safe_xml import parse_untrusted_xml

pytestmark = pytest.mark.shared


def test_pmcids_of_real_efetch_records(shared_data: Path) -> None:
    directory = shared_data / "api-samples" / "pubmed" / "metapub-tests" / "fixtures" / "pmid_xml"
    checked = 0
    for path in sorted(directory.glob("*.xml")):
        text = path.read_text(encoding="utf-8")
        root = parse_untrusted_xml(text, source="pubmed", allow_doctype=True)
        expected: dict[str, str | None] = {}
        for article in root.iter("PubmedArticle"):
            pmid = article.findtext("MedlineCitation/PMID")
            ids = article.findall("PubmedData/ArticleIdList/ArticleId")
            pmc = next((i.text.strip() for i in ids if i.get("IdType") == "pmc" and i.text), None)
            if pmid:
                expected[pmid] = pmc
        for record in parse_efetch_xml(text):
            if record.pmid in expected:
                assert record.pmcid == expected[record.pmid], path.name
                checked += expected[record.pmid] is not None
    assert checked >= 10  # the samples hold dozens of PMC-deposited articles
