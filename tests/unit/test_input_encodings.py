"""Issue 30: one encoding rule for every input. Before: a Windows-1252 `.txt` was refused while a
Latin-1 `.bib` was read with a warning, and UTF-16 LE without a byte-order mark was "binary data"."""

from __future__ import annotations

import codecs
import io
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config import get_settings
from aletheia.core.bibliography import InputError, InputProblem
from aletheia.core.bibliography.encoding import decode_bytes, sniff_encoding
from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.research_document import document_text
from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.jobs.submission import InputDocument

MB = 1024 * 1024
LIST = (
    "References\n\n"
    "[1] J. Müller and A. Šimek, “Café culture – a survey,” Journal of Examples, vol. 3, 2001.\n"
    "[2] B. Ortiz, “Niño effects,” Proc. Example Conf., 2002.\n"
)
BIB = "@article{muller2001, author = {Müller, Jörg}, title = {Café culture – a survey}, year = {2001}}\n"


def _refs(items: list[CitedReference | InputProblem]) -> list[CitedReference]:
    return [item for item in items if isinstance(item, CitedReference)]


def _problems(items: list[CitedReference | InputProblem]) -> list[str]:
    return [item.message for item in items if isinstance(item, InputProblem)]


def test_a_windows_1252_txt_is_read_as_a_latin1_bib_is(tmp_path: Path) -> None:
    txt = tmp_path / "refs.txt"
    txt.write_bytes(LIST.replace("Š", "S").encode("cp1252"))  # curly quotes and a dash: 0x93 0x94 0x96
    items = list(iter_references([txt], max_bytes=MB))
    first, second = _refs(items)
    assert first.title == "Café culture – a survey" and first.authors[0].family == "Müller"
    assert second.title == "Niño effects"
    bib = tmp_path / "refs.bib"
    bib.write_bytes(BIB.encode("cp1252"))
    bib_items = list(iter_references([bib], max_bytes=MB))
    assert _refs(bib_items)[0].title == "Café culture – a survey"
    # The same caveat, worded the same, for both.
    (txt_problem,) = _problems(items)
    (bib_problem,) = _problems(bib_items)
    assert (
        txt_problem.split(";")[1]
        == bib_problem.split(";")[1]
        == " invalid bytes were read as Windows-1252 (Latin-1)"
    )


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(("name", "text"), [("refs.txt", LIST), ("refs.bib", BIB), ("refs.md", "# " + LIST)])
def test_utf16_without_a_byte_order_mark_is_text(tmp_path: Path, codec: str, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode(codec))
    items = list(iter_references([path], max_bytes=MB))
    assert _refs(items)[0].title == "Café culture – a survey"
    assert _problems(items) == []


def test_binary_data_is_still_refused(tmp_path: Path) -> None:
    noise = tmp_path / "noise.txt"
    rng = random.Random(30)
    noise.write_bytes(bytes(rng.randrange(1, 256) for _ in range(5000)))  # no NUL
    with pytest.raises(InputError, match=r"noise\.txt: binary data, not text \(\d+ control characters"):
        list(iter_references([noise], max_bytes=MB))
    nul = tmp_path / "nul.bib"
    nul.write_bytes(b"@article{k, title={A}}\n\x00\x01")
    with pytest.raises(InputError, match=r"nul\.bib \(byte 23\): binary data"):
        list(iter_references([nul], max_bytes=MB))


def test_stdin_bytes_are_decoded_by_the_same_rule() -> None:
    stdin = io.TextIOWrapper(io.BytesIO(LIST.encode("utf-16-le")), encoding="utf-8")
    refs = _refs(list(iter_references(["-"], stdin=stdin, max_bytes=MB)))
    assert refs[0].title == "Café culture – a survey"
    stdin = io.TextIOWrapper(io.BytesIO(BIB.encode("cp1252")), encoding="utf-8")
    items = list(iter_references(["-"], stdin=stdin, max_bytes=MB))
    assert _refs(items)[0].authors[0].family == "Müller" and len(_problems(items)) == 1


def test_the_claims_document_is_decoded_by_the_same_rule() -> None:
    data = ("Results hold [1].\n\n" + LIST.replace("Š", "S")).encode("cp1252")
    text, fmt, own = document_text(InputDocument(name="paper.txt", data=data), get_settings())
    assert "Café culture – a survey" in text and fmt == "plain"
    assert decode_bytes(data, "paper.txt")[0] == text
    assert next(r.title for r in own if isinstance(r, CitedReference)) == "Café culture – a survey"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=200))
def test_utf8_is_read_unchanged(text: str) -> None:
    assert decode_bytes(text.encode("utf-8"), "x") == (text, None)


_NO_UTF8_LEAD = st.characters(codec="cp1252", blacklist_categories=("Cc",)).filter(
    lambda c: c.encode("cp1252")[0] < 0xC0
)


@given(st.text(alphabet=_NO_UTF8_LEAD, min_size=1, max_size=200))
def test_windows_1252_is_read_as_written(text: str) -> None:
    """Windows-1252 text with no byte that opens a UTF-8 sequence (0xC0 and up) reads back as
    written. (A byte pair that is valid UTF-8, like "Ã©", is read as UTF-8: that is what lets a
    UTF-8 file with one stray byte read right.)"""
    data = text.encode("cp1252")
    decoded, problem = decode_bytes(data, "x")
    assert decoded == text
    assert (problem is None) == data.isascii()


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=4, max_size=200))
def test_ascii_text_saved_as_utf16_is_told_by_its_nuls(text: str) -> None:
    assert sniff_encoding(text.encode("utf-16-le")).codec == "utf-16-le"
    assert sniff_encoding(text.encode("utf-16-be")).codec == "utf-16-be"
    assert decode_bytes(text.encode("utf-16-le"), "x") == (text, None)


def test_fix_reads_and_writes_back_in_the_encoding_every_input_is_told_by() -> None:
    from aletheia.pipeline.reports.bib_fix import decode

    assert decode(BIB.encode("cp1252")) == (BIB, "cp1252")
    assert decode(BIB.encode("utf-16-le")) == (BIB, "utf-16-le")
    text, codec = decode(codecs.BOM_UTF16_BE + BIB.encode("utf-16-be"))
    assert text.encode(codec) == codecs.BOM_UTF16_BE + BIB.encode("utf-16-be")
    assert decode(b"caf\x81 \xe9") == ("caf\x81 \xe9", "latin-1")  # 0x81: undefined in Windows-1252
