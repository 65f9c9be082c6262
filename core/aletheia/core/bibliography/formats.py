"""Which bibliography format an input is, from its content first and its file name second.

Users name files carelessly (`refs.txt` holding BibTeX, `paper.json` holding something that is not
CSL-JSON), so the content decides whenever it is unambiguous; the extension only breaks ties and
names formats that have no content signature of their own (an empty `.bib`). Only the head of the
input is examined (`SNIFF_CHARS`), so detection costs the same for a 200 MB file as for a small one.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Final

from aletheia.core.bibliography.endnote_xml import looks_like_endnote_xml
from aletheia.core.bibliography.ris import looks_like_ris
from aletheia.core.bibliography.zotero_rdf import looks_like_zotero_rdf

__all__ = [
    "SNIFF_BYTES",
    "SNIFF_CHARS",
    "InputFormat",
    "detect_format",
    "detect_format_bytes",
    "looks_like_artifact",
]

# How much of the input detection looks at. BibTeX files often open with a long comment or a block
# of @string macros; 64 KiB reaches the first entry in every real file we have seen.
SNIFF_CHARS: Final = 64 * 1024
SNIFF_BYTES: Final = 4 * SNIFF_CHARS  # UTF-8 needs at most four bytes a character
# The PDF specification lets a header follow up to 1024 bytes of junk; readers accept that.
_PDF_MAGIC_WINDOW: Final = 1024
_ZIP_MAGIC: Final = b"PK\x03\x04"
_OLE2_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy Office files (.doc, .xls)


class InputFormat(StrEnum):
    BIBTEX = "bibtex"  # BibTeX and biblatex .bib
    BBL = "bbl"  # a compiled bibliography: \bibitem lists or biblatex's \entry records
    LATEX = "latex"  # a LaTeX document with a thebibliography environment
    MARKDOWN = "markdown"
    PLAIN = "plain"  # a plain-text reference list
    CSL_JSON = "csl_json"
    # A citation artifact (docs/citations/{slug}.md): one reference, the work it cites (`artifact`).
    ARTIFACT = "citation_artifact"
    PDF = "pdf"
    HTML = "html"  # a web page or an HTML paper: its references section only (`documents`)
    XML = "xml"  # JATS or TEI: its reference list only (`documents`)
    # Reference managers' exports (issue 30).
    RIS = "ris"
    ENDNOTE_XML = "endnote_xml"
    ZOTERO_RDF = "zotero_rdf"
    # Word: a .docx manuscript is read from its bytes (its text, then as a plain document); a
    # legacy binary .doc is recognised to be refused with the formats that are read.
    DOCX = "docx"
    DOC = "doc"
    UNKNOWN = "unknown"

    @classmethod
    def _missing_(cls, value: object) -> InputFormat | None:
        """A format with a record in `input_formats.INPUT_FORMATS` but no member here (one added by
        its reader and record alone, as a test's toy format is). Not cached: known while its
        record is."""
        from aletheia.core.bibliography.input_formats import INPUT_FORMATS

        if not isinstance(value, str) or value not in INPUT_FORMATS:
            return None
        member = str.__new__(cls, value)
        member._name_ = value.upper()
        member._value_ = value
        return member


# A BibTeX entry or macro at the start of a line: `@article{`, `@String (`, `@inproceedings {`.
_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.MULTILINE)
_BIBITEM = re.compile(r"\\bibitem\b|\\begin\s*\{thebibliography\}")
_BIBLATEX_BBL = re.compile(r"\\entry\s*\{[^{}\n]*\}\s*\{[A-Za-z]+\}|\\refsection\s*\{|\\datalist\s*\[")
_LATEX_DOCUMENT = re.compile(r"\\documentclass\b|\\begin\s*\{document\}")
_LATEX_ANY = re.compile(r"\\(?:section|chapter|cite[pt]?|bibliography|usepackage|input|include)\b")
# CSL-JSON's own vocabulary: `"author": [{"family": ...`, `"issued": {"date-parts"`, `"container-title"`.
_CSL_KEYS = re.compile(
    r'"(?:family|given|date-parts|container-title|issued|citation-key|DOI|URL)"\s*:'
    r'|"author"\s*:\s*\[|"type"\s*:\s*"|"title"\s*:\s*"'
)
# Markdown-only constructs: headings, footnote definitions, links, emphasis, bullet lists.
# Runs inside a link or an autolink exclude the characters that open another one, and are bounded:
# otherwise every `[` of "[[[[..." (or `<http://` of "<http://<http://...") rescans to the end of
# the line, and detection alone takes quadratic time on hostile input.
_MARKDOWN_SIGNS: Final = (
    re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE),
    re.compile(r"^\[\^[^\]\n]+\]:", re.MULTILINE),
    re.compile(r"\[[^\[\]\n]{1,500}\]\([^()\[\]\s]{1,2000}\)"),
    re.compile(r"<https?://[^<>\s]{1,2000}>"),
    re.compile(r"^[ \t]*[-*+][ \t]+\S", re.MULTILINE),
    re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__"),
    re.compile(r"^\S[^\n]*\n(?:=+|-+)[ \t]*$", re.MULTILINE),  # setext heading
)


# The frontmatter of a citation artifact: `---` on the first line, and, before the closing `---`,
# the two keys every artifact has and no other Markdown front matter uses together.
_FRONTMATTER: Final = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?)^---[ \t]*\r?$", re.DOTALL | re.MULTILINE)
_ARTIFACT_KEYS: Final = (
    re.compile(r"^sources_consulted:", re.MULTILINE),
    re.compile(r"^triangulation:", re.MULTILINE),
)


def looks_like_artifact(head: str) -> bool:
    """Whether a text opens as a citation artifact (its frontmatter has the artifact's keys)."""
    match = _FRONTMATTER.match(head.lstrip("\ufeff"))
    return match is not None and all(key.search(match["yaml"]) for key in _ARTIFACT_KEYS)


def extension_format(filename: str | None) -> InputFormat | None:
    """The format a file name's extension suggests (`refs.BIB` -> bibtex), or None."""
    if not filename:
        return None
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if "." not in base:
        return None
    from aletheia.core.bibliography.input_formats import INPUT_FORMATS

    extension = base.rsplit(".", 1)[-1].lower()
    owner = next((r.name for r in INPUT_FORMATS.values() if extension in r.extensions), None)
    return InputFormat(owner) if owner is not None else None


# A document that opens as HTML or XML (after a BOM, blank space and comments).
_LEADING_COMMENTS = re.compile(r"^(?:\s*<!--.*?-->)*\s*", re.DOTALL)
_HTML_START = re.compile(r"<!doctype\s+html\b|<html[\s>]", re.IGNORECASE)
_XML_START = re.compile(r"<\?xml\b|<(?:article|TEI|tei|ref-list|listBibl)[\s>]")
_RIS_ANYWHERE = re.compile(r"^TY  - ", re.MULTILINE)
_JSON_START = re.compile(r"[\[{]\s*(?:[\[{\"\]}\d-]|true|false|null|$)")
_FENCED_BLOCK = re.compile(r"^[ \t]{0,3}(```|~~~).*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)


def _is_json(head: str) -> bool:
    try:
        json.loads(head)
    except (ValueError, RecursionError):
        return False
    return True


def _looks_like_json(stripped: str) -> bool:
    # `[^note]: ...` (a Markdown footnote) and `{\rtf1` are not JSON.
    return _JSON_START.match(stripped) is not None


def _own_signature(stripped: str) -> InputFormat | None:
    """The first format whose record gives a signature of its own (`sniff`) that `stripped` has."""
    from aletheia.core.bibliography.input_formats import INPUT_FORMATS

    for record in INPUT_FORMATS.values():
        if record.sniff is not None and stripped and record.sniff(stripped):
            return InputFormat(record.name)
    return None


def detect_format(head: str, filename: str | None = None) -> InputFormat:
    """The format of a text input, from its first characters (`head`) and, for ties, its name.

    A BibTeX entry at the start of a line -> bibtex; `\\bibitem` or a thebibliography environment ->
    bbl (latex when it is a whole LaTeX document); biblatex's `\\entry` records -> bbl; a JSON value
    with CSL vocabulary -> csl_json; Markdown headings, footnotes, links or bullet lists -> markdown;
    `<!doctype html>`/`<html>` -> html; `<?xml`, a JATS `<article>` or a TEI root -> xml; any other
    text -> plain. NUL characters (binary data) -> unknown; `%PDF-` -> pdf. A first line `TY  - `
    -> ris; `<xml><records>` -> endnote_xml; an `rdf:RDF` in Zotero's namespace -> zotero_rdf; a
    citation artifact's frontmatter -> citation_artifact (whatever the name).
    """
    head = head[:SNIFF_CHARS].lstrip("\ufeff")
    by_name = extension_format(filename)
    if "\x00" in head:
        return InputFormat.UNKNOWN
    if head.lstrip().startswith("%PDF-"):
        return InputFormat.PDF
    stripped = head.lstrip()
    own = _own_signature(stripped)
    if own is not None:
        return own
    if not stripped:
        # Nothing to sniff: an empty .bib is still a (empty) bibliography.
        return by_name if by_name not in (None, InputFormat.PDF) else InputFormat.PLAIN
    for step in (_markup_format, _json_format, _bibliography_format):
        found = step(head, stripped, by_name)
        if found is not None:
            return found
    if by_name is InputFormat.BIBTEX and (head.lstrip().startswith(("%", "@")) or "@" not in head):
        # A .bib holding only comments or @comment blocks: BibTeX with no entries.
        return InputFormat.BIBTEX
    if any(sign.search(head) for sign in _MARKDOWN_SIGNS):
        return InputFormat.MARKDOWN
    if by_name is InputFormat.MARKDOWN:
        return InputFormat.MARKDOWN
    if _LATEX_ANY.search(head) and by_name is None:
        return InputFormat.LATEX
    return InputFormat.PLAIN


def _markup_format(head: str, stripped: str, by_name: InputFormat | None) -> InputFormat | None:
    """A citation artifact, RIS, or a document in markup (EndNote XML, Zotero RDF, HTML, XML)."""
    if stripped.startswith("---") and looks_like_artifact(head):
        return InputFormat.ARTIFACT
    if looks_like_ris(stripped) or (by_name is InputFormat.RIS and _RIS_ANYWHERE.search(head)):
        return InputFormat.RIS
    markup = _LEADING_COMMENTS.sub("", stripped[:4096], count=1)
    if looks_like_endnote_xml(markup):
        return InputFormat.ENDNOTE_XML
    if looks_like_zotero_rdf(markup):
        return InputFormat.ZOTERO_RDF
    if _HTML_START.match(markup) or (by_name is InputFormat.HTML and markup.startswith("<")):
        return InputFormat.HTML
    if _XML_START.match(markup):
        return InputFormat.HTML if re.search(r"<html[\s>]", markup, re.IGNORECASE) else InputFormat.XML
    return None


def _json_format(head: str, stripped: str, by_name: InputFormat | None) -> InputFormat | None:
    """CSL-JSON, or JSON that is no bibliography; None for text that only opens like JSON."""
    if _looks_like_json(stripped):
        if _CSL_KEYS.search(head) or by_name is InputFormat.CSL_JSON or re.fullmatch(r"\[\s*\]", stripped):
            return InputFormat.CSL_JSON
        if by_name is InputFormat.BIBTEX and _BIBTEX_ENTRY.search(head):
            return InputFormat.BIBTEX
        # JSON that is not CSL is no bibliography we know; text that only opens like JSON
        # ("[1] A. Author, ...") is decided by the rules below.
        if _is_json(head):
            return InputFormat.UNKNOWN
    return None


def _bibliography_format(head: str, stripped: str, by_name: InputFormat | None) -> InputFormat | None:
    """BibTeX, a compiled bibliography (`\\bibitem`, biblatex's records) or a LaTeX document."""
    bibtex = _BIBTEX_ENTRY.search(head)
    if bibtex and any(sign.search(head) for sign in _MARKDOWN_SIGNS):
        # Markdown quoting BibTeX in a fenced code block is Markdown.
        bibtex = _BIBTEX_ENTRY.search(_FENCED_BLOCK.sub("", head))
    bibitem = _BIBITEM.search(head) or _BIBLATEX_BBL.search(head)
    if bibtex and bibitem:
        # Both appear (a .tex quoting BibTeX in a verbatim block, a .bib with a \bibitem in a
        # comment): the name breaks the tie, else whichever comes first.
        if by_name is InputFormat.BIBTEX:
            return InputFormat.BIBTEX
        if by_name in (InputFormat.BBL, InputFormat.LATEX):
            bibtex = None
        elif bibtex.start() < bibitem.start():
            return InputFormat.BIBTEX
        else:
            bibtex = None
    if bibtex:
        # A Markdown or LaTeX document may quote a BibTeX entry (in a code block, a verbatim
        # environment): when its name says so and its content agrees, it is that document.
        if by_name is InputFormat.MARKDOWN and any(sign.search(head) for sign in _MARKDOWN_SIGNS):
            return InputFormat.MARKDOWN
        if by_name is InputFormat.LATEX and _LATEX_DOCUMENT.search(head):
            return InputFormat.LATEX
        return InputFormat.BIBTEX
    if bibitem:
        if _LATEX_DOCUMENT.search(head) or by_name is InputFormat.LATEX:
            return InputFormat.LATEX
        return InputFormat.BBL
    if by_name in (InputFormat.LATEX, InputFormat.BBL) or _LATEX_DOCUMENT.search(head):
        # A LaTeX document without its own bibliography (it uses \bibliography{...}): still
        # LaTeX, so the reader can say which .bib files to pass instead.
        if by_name is InputFormat.BBL:
            return InputFormat.BBL
        return InputFormat.LATEX
    return None


def detect_format_bytes(head: bytes, filename: str | None = None) -> InputFormat:
    """The format of an input given as bytes: `%PDF-` near the start -> pdf, a ZIP archive -> docx,
    an OLE2 compound file -> doc (legacy Word), NUL bytes -> unknown,
    otherwise the text is sniffed by `detect_format` (invalid UTF-8 is replaced for sniffing only:
    whether the input decodes is the reader's question, not the detector's)."""
    if b"%PDF-" in head[:_PDF_MAGIC_WINDOW]:
        return InputFormat.PDF
    if head.startswith(_ZIP_MAGIC):
        # A Word document is a ZIP archive; whether it holds word/document.xml is the reader's
        # question (another archive is refused there, with what it is).
        return InputFormat.DOCX
    if head.startswith(_OLE2_MAGIC):
        return InputFormat.DOC
    sample = head[:SNIFF_BYTES]
    if b"\x00" in sample:
        # UTF-16/32 text has NULs too: the readers decode it (`encoding.TextDecoder`) and sniff
        # the decoded text, whatever this says of its bytes.
        return InputFormat.UNKNOWN
    return detect_format(sample.decode("utf-8", errors="replace"), filename)
