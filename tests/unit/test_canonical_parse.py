"""Perseus CTS and CCEL parsers (`sources.canonical_parse`).

The fixtures in tests/fixtures/canonical/ are modelled on the documented shapes (the CTS protocol's
GetPassage reply and CTSError; a CCEL section page): nothing real is recorded in ../shared.
"""

from __future__ import annotations

import pytest

from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.canonical_parse import cts_error_code, parse_ccel_page, parse_cts_passage
from tests.unit.source_fakes import fixture_text


def test_cts_passage() -> None:
    record = parse_cts_passage(fixture_text("canonical", "cts_passage.xml"), url="https://cts.test/api/cts")
    assert record is not None and record.source is SourceName.PERSEUS
    assert record.source_id == "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1-1.2"
    assert record.abstract is not None
    assert record.abstract.startswith("μῆνιν ἄειδε θεὰ Πηληϊάδεω Ἀχιλῆος οὐλομένην")  # whitespace normalised
    assert record.work_type == "canonical-passage"


def test_cts_error_is_no_such_passage() -> None:
    xml = fixture_text("canonical", "cts_error.xml")
    assert cts_error_code(xml) == "InvalidPassageReference"
    assert parse_cts_passage(xml) is None
    with pytest.raises(SourceParseError):  # an error that is not "no such passage"
        parse_cts_passage(xml.replace("InvalidPassageReference", "InternalError"))


@pytest.mark.parametrize(
    "body",
    [
        "<html>not CTS</html>",
        "<GetPassage><reply><urn>u</urn></reply></GetPassage>",  # no <passage>
        '<!DOCTYPE x [<!ENTITY a "b">]><GetPassage/>',  # entity declarations are refused
        "<GetPassage",
    ],
)
def test_cts_not_the_documented_shape(body: str) -> None:
    with pytest.raises(SourceParseError):
        parse_cts_passage(body)


def test_ccel_page() -> None:
    record = parse_ccel_page(
        fixture_text("canonical", "ccel_page.html"), path="/ccel/augustine/confess.x.xxvii.html"
    )
    assert record is not None and record.source is SourceName.CCEL
    assert record.title is not None and record.title.startswith("Chapter XXVII.\u2014He Grieves")
    assert record.abstract is not None
    assert "Too late loved I Thee, O Thou Beauty of ancient days, yet ever new!" in record.abstract
    assert "dataLayer" not in record.abstract and "Previous" not in record.abstract  # script, nav dropped
    assert parse_ccel_page("<html><body> </body></html>", path="/x") is None
    with pytest.raises(SourceParseError):
        parse_ccel_page("plain text", path="/x")
