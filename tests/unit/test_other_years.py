"""The other dates a source gives a work (issue 21: a cited year one off is minor only when it is
the year of one of them): Crossref's print/online/posted dates, arXiv's served version's date."""

from __future__ import annotations

from aletheia.sources.arxiv_parse import parse_arxiv_feed
from aletheia.sources.crossref_parse import parse_crossref_work

_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/1512.03385v3</id>
    <updated>{updated}</updated>
    <published>2015-12-10T19:51:55Z</published>
    <title>Deep Residual Learning for Image Recognition</title>
    <author><name>Kaiming He</name></author>
  </entry>
</feed>"""


def test_crossref_print_and_online_years_are_kept_beside_the_year() -> None:
    item = {
        "DOI": "10.1038/171737a0",
        "title": ["Molecular Structure of Nucleic Acids"],
        "issued": {"date-parts": [[1953, 4]]},
        "published-online": {"date-parts": [[1953, 4, 25]]},
        "published-print": {"date-parts": [[1954, 1]]},
        "created": {"date-parts": [[2005, 9, 24]]},
    }
    record = parse_crossref_work(item)
    assert record.year == 1953
    assert set(record.other_years) == {1954, 2005}


def test_arxiv_keeps_the_served_versions_year_when_it_differs_from_v1() -> None:
    later = parse_arxiv_feed(_FEED.format(updated="2016-03-01T00:00:00Z"))[0]
    assert later.year == 2015 and later.other_years == (2016,) and later.arxiv_version == 3
    same = parse_arxiv_feed(_FEED.format(updated="2015-12-20T00:00:00Z"))[0]
    assert same.other_years == ()
