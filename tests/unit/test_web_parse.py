"""The page parser (pure): titles from <title>, og:title and <h1>, charsets, broken markup, and the
archive dates `core.web` reads."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.records import CitedReference, SourceName
from aletheia.core.web import cited_date, page_titles, snapshot_date
from aletheia.sources.web_parse import MAX_TITLE_CHARS, decode_body, page_titles_of, parse_web_page


def test_title_og_title_and_h1() -> None:
    html = (
        "<html><head><title>  Scaling Laws &amp; Widgets |\n The Blog </title>"
        "<meta property='og:title' content='Scaling Laws &amp; Widgets'>"
        "<meta name='twitter:title' content='Scaling Laws &amp; Widgets'></head>"
        "<body><h1>Scaling <em>laws</em></h1><h1>second</h1></body></html>"
    )
    title, others = page_titles_of(html)
    assert title == "Scaling Laws & Widgets | The Blog"
    assert others == ("Scaling Laws & Widgets",)  # with a title and og:title, </head> ends the read
    _, others = page_titles_of("<title>T</title></head><body><h1>Scaling <em>laws</em></h1><h1>2nd</h1>")
    assert others == ("Scaling laws",)


def test_a_page_without_title_takes_og_title_and_broken_markup_is_survived() -> None:
    assert page_titles_of("<meta property=og:title content='Only OG'><h1>H</h1>") == ("Only OG", ("H",))
    assert page_titles_of("<title>Unclosed") == (None, ())
    assert page_titles_of("<<<>>><title>T</title><!-- <title>no</title>") == ("T", ())
    assert page_titles_of("") == (None, ())


def test_no_entity_or_doctype_is_resolved_and_titles_are_bounded() -> None:
    html = '<!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><title>&xxe; and &lt;b&gt;</title>'
    title, _ = page_titles_of(html)
    assert title == "&xxe; and <b>"  # HTML's own references only; the entity is left as text
    long_title, _ = page_titles_of("<title>" + "word " * 1000 + "</title>")
    assert long_title is not None and len(long_title) <= MAX_TITLE_CHARS


def test_charsets() -> None:
    body = "<title>Café</title>".encode("latin-1")
    assert "Café" in decode_body(body, "text/html; charset=ISO-8859-1")
    assert "Café" in decode_body(b"<meta charset='latin-1'>" + body, None)
    assert decode_body(body, "text/html; charset=no-such-charset").startswith("<title>Caf")


def test_parse_web_page_makes_a_web_page_record() -> None:
    record, raw = parse_web_page(
        url="http://a.example/x",
        final_url="https://a.example/x/",
        status=200,
        content_type="text/html",
        body=b"<title>Hello | Site</title>",
    )
    assert record.source is SourceName.WEB and record.work_type == "web_page"
    assert record.title == "Hello | Site" and record.urls == {
        "cited": "http://a.example/x",
        "final": "https://a.example/x/",
    }
    assert raw["status"] == 200 and raw["final_url"] == "https://a.example/x/"
    pdf, _ = parse_web_page(url="u", final_url="u", status=200, content_type="application/pdf", body=b"%PDF")
    assert pdf.title is None


def test_page_titles_split_site_names() -> None:
    record, _ = parse_web_page(
        url="u", final_url="u", status=200, content_type=None, body=b"<title>Post Title - Sub | Blog</title>"
    )
    titles = page_titles(record)
    assert "Post Title" in titles and "Blog" in titles and "Post Title - Sub" in titles


def test_archive_dates() -> None:
    assert snapshot_date("https://web.archive.org/web/20230105123456/https://x.example/") == date(2023, 1, 5)
    assert snapshot_date("http://web.archive.org/web/2019id_/https://x.example/") == date(2019, 1, 1)
    assert snapshot_date("https://x.example/web/20230105/") is None
    assert snapshot_date("https://web.archive.org/web/20231399/x") is None  # no such day
    cited = CitedReference(key="k", fields={"note": "Accessed: 2024-03-02"}, year=2020)
    when = cited_date(cited)
    assert when is not None and when.day == date(2024, 3, 2) and when.exact
    when = cited_date(CitedReference(key="k", fields={"urldate": "2022"}))
    assert when is not None and when.day.year == 2022 and not when.exact
    when = cited_date(CitedReference(key="k", year=2020))
    assert when is not None and when.what == "year"
    assert cited_date(CitedReference(key="k")) is None


@given(st.text(max_size=300))
def test_any_text_parses_without_error(text: str) -> None:
    title, others = page_titles_of(text)
    assert title is None or len(title) <= MAX_TITLE_CHARS
    assert all(len(o) <= MAX_TITLE_CHARS for o in others)
