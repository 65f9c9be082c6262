"""Issue 20's formats benchmark, the rendering half: one `.bib` written from a source set, rendered
by the real tools people use into the formats they paste, with where each rendered entry starts.

- `.bbl`: real `bibtex` (Debian `texlive-binaries`) with a style from `texlive-base` (`plain`,
  `ieeetr`). No LaTeX engine is needed: `latex` on a document with `\\nocite{*}`,
  `\\bibliographystyle{STYLE}` and `\\bibliography{refs}` writes an `.aux` of four lines, and
  `bibtex` reads only that, so the `.aux` is written directly (the `.tex` beside it says what
  it stands for).
- A plain reference list and a Markdown one: `pandoc --citeproc` (Debian `pandoc`) with its
  built-in CSL style (Chicago author-date), or the `--csl` file given.
- A PDF's reference list in the NeurIPS/ICLR style (issue 28): `bibtex` with natbib's `plainnat`
  (Debian `texlive-latex-base`), its `.bbl` typeset by `pdflatex` as a paper's References
  section (natbib, T1 Latin Modern), and the PDF read as `aletheia verify paper.pdf` reads it.

Every rendered entry is matched back to its `.bib` key: a `.bbl` keeps the key in `\\bibitem{KEY}`;
pandoc's order is read from its document tree (the `ref-KEY` divisions), and the plain or Markdown
text is written from that same tree, one paragraph per entry, so the n-th paragraph is the n-th key.
A parsed reference is then matched to the entry whose text holds its first line; a PDF's
references carry no line, so each is matched to the `.bbl` entry whose words it shares most
(`_EntryWords`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aletheia.core.errors import AletheiaError
from aletheia.core.records import Author, CitedReference

# The formats, in report order; `bib` is the baseline the others are compared with.
FORMATS: tuple[str, ...] = ("bib", "bbl-plain", "bbl-ieeetr", "pandoc-txt", "pandoc-md", "pdf-plainnat")
BBL_STYLES = {"bbl-plain": "plain", "bbl-ieeetr": "ieeetr"}
# A .bbl typeset to a PDF: the style, and the packages the document needs (natbib's \bibitem[...]).
PDF_STYLES = {"pdf-plainnat": "plainnat"}
PDF_PACKAGES = ("natbib.sty", "lmodern.sty")
PANDOC_WRITERS = {"pandoc-txt": ("plain", ".txt"), "pandoc-md": ("markdown_strict", ".md")}
# Issue 30: reference managers' exports and a Word manuscript, rendered through pandoc
# (`formats_managers`).
MANAGER_FORMATS = ("ris", "endnote-xml", "zotero-rdf", "docx")
FORMATS = (*FORMATS, *MANAGER_FORMATS)
TOOL_TIMEOUT_SECONDS = 300
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_LINE_SUFFIX = re.compile(r":(\d+)$")
# Venue words that make an ICLR reference a conference paper (`@inproceedings`, `booktitle`), as an
# author's .bib would have it; anything else with a venue is a journal article.
_PROCEEDINGS = re.compile(
    r"(?i)\b(?:proc|proceedings|conference|conf|workshops?|symposium|advances in neural|neurips|nips|"
    r"icml|iclr|cvpr|iccv|eccv|acl|emnlp|naacl|aaai|ijcai|aistats|uai|colt|kdd|sigir|www)\b"
)
# Venues of things that are not journals (an author writes `@misc{..., howpublished = ...}` for them).
_NOT_A_JOURNAL = re.compile(
    r"(?i)\b(?:documentation|model card|website|web page|blog|software|dataset|github|hugging ?face)\b"
)
_BIBTEX_SPECIAL = re.compile(r"(?<!\\)([&%#_])")


class ToolMissing(RuntimeError, AletheiaError):
    """`bibtex` or `pandoc` is not installed (Debian: texlive-binaries texlive-base pandoc)."""


def missing_tools(formats: Iterable[str]) -> list[str]:
    """What the given formats need that is not installed: `bibtex` and its styles (texlive-base),
    `pandoc`."""
    missing = []
    styles = sorted(
        {BBL_STYLES.get(f) or PDF_STYLES[f] for f in formats if f in BBL_STYLES or f in PDF_STYLES}
    )
    if styles and (shutil.which("bibtex") is None or shutil.which("kpsewhich") is None):
        missing.append("bibtex")
    elif styles:
        # bibtex without texlive-base has no .bst files, and writes no .bbl.
        found = subprocess.run(
            ["kpsewhich", *(f"{style}.bst" for style in styles)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        ).stdout.split()
        missing += [f"{s}.bst" for s in styles if not any(p.endswith(f"/{s}.bst") for p in found)]
    if any(f in PDF_STYLES for f in formats):
        if shutil.which("pdflatex") is None:
            missing.append("pdflatex")
        elif shutil.which("kpsewhich") is not None:
            found = subprocess.run(
                ["kpsewhich", *PDF_PACKAGES], capture_output=True, text=True, check=False, timeout=60
            ).stdout.split()
            missing += [p for p in PDF_PACKAGES if not any(f.endswith(f"/{p}") for f in found)]
    needs_pandoc = any(f in PANDOC_WRITERS or f in MANAGER_FORMATS for f in formats)
    if needs_pandoc and shutil.which("pandoc") is None:
        missing.append("pandoc")
    return missing


@dataclass(frozen=True)
class Rendered:
    """One rendered file and, in line order, the first line of each entry with its `.bib` key."""

    fmt: str
    path: Path
    starts: tuple[tuple[int, str], ...]
    log: str = ""
    # The reader's key of each entry -> its .bib key, where the format keys records by position.
    key_map: tuple[tuple[str, str], ...] = ()
    # A PDF's references carry no line: each entry's words instead (`entry_of`).
    words: _EntryWords | None = None

    @property
    def keys(self) -> list[str]:
        """The `.bib` keys of the rendered entries, in the rendered order."""
        if self.starts:
            return [key for _, key in self.starts]
        if self.key_map:
            return [key for _, key in self.key_map]
        return list(self.words.keys) if self.words is not None else []

    def entry_at(self, line: int) -> str | None:
        lines = [start for start, _ in self.starts]
        i = bisect_right(lines, line) - 1
        return self.starts[i][1] if i >= 0 else None


# --- writing the .bib ---------------------------------------------------------------------------


def _bib_value(text: str) -> str:
    # What an author's .bib holds: LaTeX specials escaped (a bare `&` breaks LaTeX, and `%` starts
    # a comment in the .bbl), braces left out so every field stays balanced.
    return _BIBTEX_SPECIAL.sub(r"\\\1", text.replace("{", "").replace("}", ""))


def _bib_name(author: Author) -> str:
    if author.literal:
        return "{" + _bib_value(author.literal) + "}"
    family = _bib_value(author.family or "")
    parts = [family]
    if author.suffix:
        parts.append(_bib_value(author.suffix))
    if author.given:
        parts.append(_bib_value(author.given))
    return ", ".join(p for p in parts if p)


def reference_bibtex(ref: CitedReference, key: str) -> str:
    """A reference read from a non-BibTeX set (the ICLR JSON) as an author's .bib writes it: arXiv
    preprints as Google Scholar exports them (`journal = {arXiv preprint arXiv:ID}`), conference
    papers as `@inproceedings`, books with their publisher, web resources and documentation as
    `@misc` with `howpublished`."""
    names = [_bib_name(a) for a in ref.authors if a.literal or a.family or a.given]
    if ref.authors_truncated:
        names.append("others")
    fields: list[tuple[str, str | None]] = [
        ("title", _bib_value(ref.title) if ref.title else None),
        ("author", " and ".join(names) or None),
    ]
    venue = _bib_value(ref.venue) if ref.venue else None
    entry_type = ref.entry_type or "misc"
    if entry_type == "book":
        fields.append(("publisher", venue))
    elif entry_type == "misc" or (venue and _NOT_A_JOURNAL.search(venue)):
        entry_type = "misc"
        fields.append(("howpublished", venue))
    elif venue and _PROCEEDINGS.search(venue):
        entry_type = "inproceedings"
        fields.append(("booktitle", venue))
    elif venue:
        fields.append(("journal", venue))
    elif ref.arxiv_id:
        fields.append(("journal", f"arXiv preprint arXiv:{ref.arxiv_id}"))
    fields += [
        ("year", str(ref.year) if ref.year else None),
        ("doi", ref.doi),
        ("url", ref.url),
    ]
    body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields if value)
    return f"@{entry_type}{{{key},\n{body}}}\n"


def write_bib(entries: Sequence[tuple[str, str]], directory: Path) -> Path:
    """`refs.bib` from (key, BibTeX entry) pairs, in the given order."""
    path = directory / "refs.bib"
    path.write_text("\n".join(text for _, text in entries), encoding="utf-8")
    return path


def bib_starts(path: Path, keys: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """Where each entry of a .bib written by `write_bib` starts (the `@type{key,` line)."""
    wanted = set(keys)
    starts = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = re.match(r"@\w+\{([^,\s]+),", line)
        if m and m.group(1) in wanted:
            starts.append((number, m.group(1)))
    return tuple(starts)


# --- bibtex ---------------------------------------------------------------------------------------


def render_bbl(bib: Path, style: str, fmt: str) -> Rendered:
    """`bibtex` on `\\nocite{*}` with this style: every entry of `bib`, in the style's order."""
    directory = bib.parent
    name = f"refs-{style}"
    (directory / f"{name}.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\nocite{*}\n"
        f"\\bibliographystyle{{{style}}}\n\\bibliography{{{bib.stem}}}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    # What `latex refs-STYLE.tex` writes to the .aux for the document above.
    (directory / f"{name}.aux").write_text(
        f"\\relax\n\\citation{{*}}\n\\bibstyle{{{style}}}\n\\bibdata{{{bib.stem}}}\n", encoding="utf-8"
    )
    done = _run(["bibtex", name], directory)
    bbl = directory / f"{name}.bbl"
    if not bbl.is_file():
        raise RuntimeError(f"bibtex wrote no {bbl.name}: {done.stdout[-2000:]}")
    starts = []
    for number, line in enumerate(bbl.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        m = _BIBITEM.search(line)
        if m:
            starts.append((number, m.group(1).strip()))
    # bibtex exits 1 for warnings and 2 for errors and still writes the .bbl: its log says which.
    return Rendered(fmt, bbl, tuple(starts), log=done.stdout)


# --- a .bbl typeset to a PDF ------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]{3,}")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}~$]")


def words_of(text: str) -> frozenset[str]:
    """The words of three letters or more, case-folded, accents and LaTeX commands left out."""
    text = _LATEX_COMMAND.sub(" ", text)
    return frozenset(
        w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKD", text)) if not w.isdigit()
    )


class _EntryWords:
    """The `.bbl` entries' words, to find the entry a reference read from a PDF stands for: the one
    sharing the largest share of the reference's words (looked up through an inverted index).
    References are looked up in the PDF's order, which is the `.bbl`'s: of entries that tie (the
    same work cited twice), the first after the last one matched wins."""

    def __init__(self, entries: Sequence[tuple[str, str]]) -> None:
        self.keys = [key for key, _ in entries]
        self.sizes: list[int] = []
        self.index: dict[str, list[int]] = {}
        self.last = -1
        for position, (_, text) in enumerate(entries):
            words = words_of(text)
            self.sizes.append(len(words))
            for word in words:
                self.index.setdefault(word, []).append(position)

    def best(self, text: str) -> str | None:
        words = words_of(text)
        shared: Counter[int] = Counter()
        for word in words:
            shared.update(self.index.get(word, ()))
        if not shared:
            return None

        def rank(item: tuple[int, int]) -> tuple[float, bool, int]:
            position, common = item
            # Jaccard: a long entry does not win merely by holding every word.
            jaccard = common / (len(words) + self.sizes[position] - common)
            return round(jaccard, 9), position > self.last, -position

        position, common = max(shared.items(), key=rank)
        if common < min(3, len(words)):
            return None
        self.last = position
        return self.keys[position]


def _bbl_entries(bbl: Path) -> list[tuple[str, str]]:
    """(key, text) of each `\\bibitem` of a `.bbl`, in order."""
    text = bbl.read_text(encoding="utf-8", errors="replace")
    found = list(_BIBITEM.finditer(text))
    ends = [m.start() for m in found[1:]] + [text.find("\\end{thebibliography}") % (len(text) + 1)]
    return [(m.group(1).strip(), text[m.end() : end]) for m, end in zip(found, ends, strict=True)]


def render_pdf(bib: Path, style: str, fmt: str) -> Rendered:
    """The `.bbl` of `style` typeset by `pdflatex` as a paper's References section (natbib, as
    the NeurIPS and ICLR templates load it, with T1 Latin Modern fonts): the PDF a reader pastes."""
    bbl = render_bbl(bib, style, fmt)
    name = f"paper-{style}"
    (bib.parent / f"{name}.tex").write_text(
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage[T1]{fontenc}\n"
        "\\usepackage{lmodern}\n\\usepackage{url}\n\\usepackage{natbib}\n\\begin{document}\n"
        f"\\input{{{bbl.path.name}}}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    # nonstopmode: a character LaTeX cannot set (an emoji, CJK in a title) is left out with a
    # warning, as an author would see it, and the rest is typeset.
    done = _run(["pdflatex", "-interaction=nonstopmode", f"{name}.tex"], bib.parent)
    pdf = bib.parent / f"{name}.pdf"
    if not pdf.is_file():
        raise RuntimeError(f"pdflatex wrote no {pdf.name}: {done.stdout[-2000:]}")
    return Rendered(
        fmt, pdf, (), log=bbl.log + done.stdout[-4000:], words=_EntryWords(_bbl_entries(bbl.path))
    )


# --- pandoc --citeproc -------------------------------------------------------------------------------


def _entry_keys(node: Any) -> Iterator[str]:
    """The `ref-KEY` divisions of a pandoc document tree, in document order."""
    if isinstance(node, dict):
        if node.get("t") == "Div":
            ident, classes, _ = node["c"][0]
            if ident.startswith("ref-") and "csl-entry" in classes:
                yield ident.removeprefix("ref-")
                return
        for value in node.values():
            yield from _entry_keys(value)
    elif isinstance(node, list):
        for value in node:
            yield from _entry_keys(value)


def render_pandoc(bib: Path, fmt: str, csl: Path | None = None) -> Rendered:
    """`pandoc --citeproc` with every entry cited (`nocite: '@*'`), written as a plain list
    (`pandoc-txt`) or as the References section of a Markdown document (`pandoc-md`)."""
    writer, suffix = PANDOC_WRITERS[fmt]
    directory = bib.parent
    source = directory / "nocite.md"
    source.write_text("---\nnocite: '@*'\n---\n", encoding="utf-8")
    # The document tree once, then the text from that very tree: its n-th entry is the n-th paragraph.
    tree_path = directory / "citeproc.json"
    args = ["pandoc", source.name, "--citeproc", "--bibliography", bib.name, "-t", "json"]
    if csl is not None:
        args += ["--csl", str(csl.resolve())]
    tree_path.write_text(_run(args, directory, check=True).stdout, encoding="utf-8")
    keys = list(_entry_keys(json.loads(tree_path.read_text(encoding="utf-8"))))
    text = _run(["pandoc", "-f", "json", "-t", writer, "--wrap=none", tree_path.name], directory, check=True)
    body = text.stdout
    heading = "# References\n\n" if fmt == "pandoc-md" else ""
    out = directory / f"refs-pandoc{suffix}"
    out.write_text(heading + body, encoding="utf-8")
    offset = heading.count("\n")
    starts = []
    previous_blank = True
    for number, line in enumerate(body.splitlines(), start=1):
        if line.strip() and previous_blank:
            starts.append(number + offset)
        previous_blank = not line.strip()
    if len(starts) != len(keys):
        raise RuntimeError(f"pandoc wrote {len(starts)} paragraphs for {len(keys)} entries ({out.name})")
    return Rendered(fmt, out, tuple(zip(starts, keys, strict=True)), log=text.stderr)


def _run(args: list[str], cwd: Path, *, check: bool = False) -> subprocess.CompletedProcess[str]:
    # errors="replace": pdflatex echoes a character it cannot set as the raw bytes of the input.
    done = subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        timeout=TOOL_TIMEOUT_SECONDS,
        check=False,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def render(bib: Path, keys: Sequence[str], fmt: str, csl: Path | None = None) -> Rendered:
    if fmt == "bib":
        return Rendered(fmt, bib, bib_starts(bib, keys))
    if fmt in BBL_STYLES:
        return render_bbl(bib, BBL_STYLES[fmt], fmt)
    if fmt in PANDOC_WRITERS:
        return render_pandoc(bib, fmt, csl)
    if fmt in MANAGER_FORMATS:
        return render_manager_format(bib, fmt, csl)
    if fmt in PDF_STYLES:
        return render_pdf(bib, PDF_STYLES[fmt], fmt)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def entry_of(ref: CitedReference, rendered: Rendered, keys: frozenset[str]) -> str | None:
    """The `.bib` key a parsed reference stands for: its own key where the format keeps it
    (`.bib`, `.bbl`), else the entry whose rendered text holds the reference's first line (a plain
    list's keys are positions, which could collide with a numeric .bib key); for a PDF, the entry
    whose words it shares most."""
    if rendered.key_map:
        return dict(rendered.key_map).get(ref.key)
    if rendered.words is not None:
        return rendered.words.best(ref.raw or "")
    if rendered.fmt not in PANDOC_WRITERS and rendered.fmt != "docx" and ref.key in keys:
        return ref.key
    m = _LINE_SUFFIX.search(ref.origin or "")
    return rendered.entry_at(int(m.group(1))) if m else None


def render_manager_format(bib: Path, fmt: str, csl: Path | None = None) -> Rendered:
    """A reference manager's export (RIS, EndNote XML, Zotero RDF) or a Word manuscript of `bib`
    (`formats_managers`). The Word document's entries are found in the text Aletheia reads from
    it: the paragraphs after its References heading, in the order of pandoc's tree."""
    from aletheia.bench.formats_managers import render_manager

    path, key_map, keys, log = render_manager(bib, fmt, csl)
    if fmt != "docx":
        return Rendered(fmt, path, (), log=log, key_map=tuple(key_map.items()))
    from aletheia.pipeline.documents.docx_reading import docx_text

    lines = docx_text(path.read_bytes(), origin=path.name, max_bytes=1 << 30).splitlines()
    heading = max(number for number, line in enumerate(lines, start=1) if line.strip() == "References")
    starts = [number for number, line in enumerate(lines, start=1) if number > heading and line.strip()]
    if len(starts) != len(keys):
        raise RuntimeError(f"pandoc wrote {len(starts)} paragraphs for {len(keys)} entries ({path.name})")
    return Rendered(fmt, path, tuple(zip(starts, keys, strict=True)), log=log)
