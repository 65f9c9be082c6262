"""The dump readers (issue 32) on hand-written samples of the four real formats: every record
read in a stream through the live answers' parsers, DBLP's DTD entities expanded from the DTD
alone, and a truncated or corrupt file an error naming the file and the offset."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.sources.dumps import DumpError, dump_source, open_dump, parse_payload, parse_stored, reader_for
from aletheia.sources.dumps.dblp_dump import DblpDumpReader, DtdError, dtd_character_entities

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mirror"
SAMPLES = {
    "dblp": "dblp-sample.xml",
    "openalex": "openalex-works-sample.jsonl",
    "crossref": "crossref-sample.json",
    "semantic_scholar": "s2-papers-sample.jsonl",
}


def gzipped(tmp_path: Path, name: str) -> Path:
    out = tmp_path / (name + ".gz")
    with (FIXTURES / name).open("rb") as src, gzip.open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    if name.startswith("dblp"):
        shutil.copy(FIXTURES / "dblp.dtd", tmp_path / "dblp.dtd")
    return out


def read_all(path: Path, source: str, skip: int = 0) -> list[str]:
    with open_dump(path) as stream:
        return [item.raw for item in reader_for(source).items(stream, skip=skip)]


@pytest.mark.parametrize("source", sorted(SAMPLES))
def test_each_format_is_recognised_and_read_gzipped(tmp_path: Path, source: str) -> None:
    path = gzipped(tmp_path, SAMPLES[source])
    assert dump_source(path) == source
    raws = read_all(path, source)
    assert raws
    for raw in raws:
        record, _payload = parse_stored(source, raw)
        assert record.source.value == source
        assert record.title


def test_dblp_entities_come_from_the_dtd_and_person_pages_are_not_works(tmp_path: Path) -> None:
    path = gzipped(tmp_path, SAMPLES["dblp"])
    with open_dump(path) as stream:
        records = [parse_payload("dblp", item.payload) for item in reader_for("dblp").items(stream)]
    keys = [r.dblp_key for r in records]
    assert "homepages/12/3456" not in keys
    assert keys[0] == "journals/tkde/MullerS19"
    assert [a.family for a in records[0].authors] == ["Müller", "Schön"]
    assert records[0].doi == "10.1109/tkde.2019.0000001"
    assert records[2].title == "Große Sprachmodelle: A Survey?"
    assert records[2].arxiv_id == "2301.00001"


def test_a_dblp_dump_without_its_dtd_is_refused_not_fetched(tmp_path: Path) -> None:
    path = tmp_path / "dblp.xml"
    shutil.copy(FIXTURES / SAMPLES["dblp"], path)
    with open_dump(path) as stream, pytest.raises(DumpError, match=r"dblp\.dtd"):
        list(DblpDumpReader().items(stream))


def test_a_dblp_dump_with_an_internal_subset_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE dblp [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;">]>\n'
        '<dblp><article key="x/y"><title>&b;</title></article></dblp>'
    )
    with open_dump(path) as stream, pytest.raises(DumpError, match="entities of its own"):
        list(DblpDumpReader().items(stream))


def test_an_entity_the_dtd_does_not_define_is_an_error_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "dblp.dtd").write_text('<!ENTITY auml "&#228;">')
    path = tmp_path / "dblp.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE dblp SYSTEM "dblp.dtd">\n'
        '<dblp><article key="x/y"><title>M&auml;x &nope;</title></article></dblp>'
    )
    with open_dump(path) as stream, pytest.raises(DumpError, match=r"undefined entity.*line 3"):
        list(DblpDumpReader().items(stream))


@settings(deadline=None)  # timing is not what these check (a shared, loaded machine)
@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,7}", fullmatch=True),
        st.characters(min_codepoint=0xA0, max_codepoint=0x2FFF, categories=["L", "S", "N"]),
        max_size=20,
    ),
    st.booleans(),
)
def test_dtd_character_entities_reads_back_what_a_dtd_declares(
    entities: dict[str, str], hexadecimal: bool
) -> None:
    lines = [
        f'<!ENTITY {name} "&#x{ord(char):X};">' if hexadecimal else f'<!ENTITY {name} "&#{ord(char)};">'
        for name, char in entities.items()
    ]
    text = "\n".join(['<!ENTITY % REC "article|www">', '<!-- <!ENTITY gone "&#65;"> -->', *lines])
    assert dtd_character_entities(text) == entities


def test_a_dtd_entity_made_of_other_entities_is_refused() -> None:
    with pytest.raises(DtdError, match="lol2"):
        dtd_character_entities('<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">')


@pytest.mark.parametrize("source", sorted(SAMPLES))
def test_a_truncated_gzip_file_names_the_file_and_offset(tmp_path: Path, source: str) -> None:
    whole = gzipped(tmp_path, SAMPLES[source]).read_bytes()
    cut = tmp_path / f"cut-{source}.gz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    shutil.copy(FIXTURES / "dblp.dtd", tmp_path / "dblp.dtd")
    with pytest.raises(DumpError) as caught:
        read_all(cut, source)
    assert caught.value.path == str(cut)
    assert str(cut) in str(caught.value) and "byte" in str(caught.value)
    assert 0 < caught.value.file_offset <= len(whole)


@pytest.mark.parametrize(
    ("source", "bad_line", "detail"),
    [
        ("openalex", b'{"id": "https://openalex.org/W1", "title": \n', "not JSON"),
        ("semantic_scholar", b'{"corpusid": "215416146", "title": "A string id"}\n', "corpusid"),
    ],
)
def test_a_corrupt_json_line_is_an_error_at_that_line(
    tmp_path: Path, source: str, bad_line: bytes, detail: str
) -> None:
    lines = (FIXTURES / SAMPLES[source]).read_bytes().splitlines(keepends=True)
    path = tmp_path / "part_000"
    path.write_bytes(lines[0] + bad_line + lines[1])
    with open_dump(path) as stream:
        items = reader_for(source).items(stream)
        next(items)
        with pytest.raises(DumpError, match=detail) as caught:
            next(items)
    assert caught.value.offset == len(lines[0])


def test_a_crossref_file_cut_inside_its_items_is_truncated(tmp_path: Path) -> None:
    text = (FIXTURES / SAMPLES["crossref"]).read_text()
    path = tmp_path / "0.json"
    cut = text.index('{"DOI": "10.1145')
    path.write_text(text[: cut + 40])
    with open_dump(path) as stream:
        items = reader_for("crossref").items(stream)
        assert len([next(items), next(items)]) == 2
        with pytest.raises(DumpError, match="not complete JSON") as caught:
            next(items)
    assert caught.value.offset == len(text[:cut].encode("utf-8"))


@pytest.mark.parametrize("source", sorted(SAMPLES))
def test_skip_resumes_after_the_records_already_loaded(tmp_path: Path, source: str) -> None:
    path = gzipped(tmp_path, SAMPLES[source])
    everything = read_all(path, source)
    assert read_all(path, source, skip=1) == everything[1:]
    assert read_all(path, source, skip=len(everything)) == []


def test_crossref_items_split_across_chunks_and_multibyte_characters(tmp_path: Path) -> None:
    # Far more than one read chunk (1 MiB), with a two-byte character on every item.
    item = '{"DOI": "10.1000/x%d", "type": "journal-article", "title": ["G\u00f6del %d ' + "x" * 300 + '"]}'
    path = tmp_path / "big.json"
    path.write_text('{"items": [' + ", ".join(item % (i, i) for i in range(5000)) + "]}", encoding="utf-8")
    with open_dump(path) as stream:
        records = [parse_payload("crossref", it.payload) for it in reader_for("crossref").items(stream)]
    assert len(records) == 5000
    assert records[4321].doi == "10.1000/x4321"
    assert records[4321].title is not None and records[4321].title.startswith("Gödel 4321")


def test_an_s2_dataset_paper_is_read_as_the_graph_api_answers_it(tmp_path: Path) -> None:
    path = gzipped(tmp_path, SAMPLES["semantic_scholar"])
    with open_dump(path) as stream:
        records = [
            parse_payload("semantic_scholar", it.payload)
            for it in reader_for("semantic_scholar").items(stream)
        ]
    first, preprint, medical = records
    assert first.source_id == "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"  # the paperId ending its url
    assert first.doi == "10.1109/tkde.2019.0000001"
    assert first.dblp_key == "journals/tkde/MullerS19"
    assert [a.family for a in first.authors] == ["Müller", "Schön"]
    assert first.year == 2019
    assert first.urls["corpus"].endswith("CorpusId:215416146")
    assert preprint.arxiv_id == "2012.01234"
    assert medical.pmid == "30012345" and medical.pmcid == "PMC6543210"
