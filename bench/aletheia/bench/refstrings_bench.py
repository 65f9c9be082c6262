"""Issue 20: how well one reference string is read (`aletheia bench refstrings`).

Crossref's reference-matching data (`benchmarks/reference-strings-crossref/styles/`) renders the
same 2,500 works in 8 citation styles, with each work's DOI and nothing else. The expected fields
are read from the styles that give them unambiguously, and every style's strings are then read by
`plain.parse_reference_string` and compared with them:

- authors: the American Chemical Society style lists every author as "Family, I. I.;" (never
  inverted, never cut), so its surnames are the expected list;
- year: APA's "(1985)";
- title: IEEE's quoted title (“...,”), present for articles and chapters, absent for books.

Per style: first author, the whole surname list (in order; a list the style cuts with "et al." is
compared as far as it goes), the share read with more authors than there are (an over-split list,
the Chicago "Lin, Zhiyuan Jerry" defect), year and title (similarity >= the decisive 0.92).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from aletheia.bench.common import SHARED_DATA, machine
from aletheia.bench.common import percent as _pct
from aletheia.core.bibliography.plain import ReferenceFields, parse_reference_string
from aletheia.core.records import Author
from aletheia.core.text import fold_name
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity

STYLES_DIR: Final = SHARED_DATA / "benchmarks" / "reference-strings-crossref" / "styles"
STYLES: Final = (
    "american-chemical-society",
    "american-institute-of-physics",
    "apa",
    "chicago-author-date",
    "elsevier-without-titles",
    "harvard3",
    "ieee",
    "modern-language-association",
)
_ACS_NAME = re.compile(
    r"(?P<family>[^;,]{1,80}?), (?P<initials>(?:[^\W\d_][a-z]?\.(?:\s?-\s?|\s)?)+)(?:;\s|\s|$)"
)
_APA_YEAR = re.compile(r"\((?P<year>1[5-9]\d\d|20\d\d)[a-z]?\)")
_IEEE_TITLE = re.compile(r"“(?P<title>[^”]{3,600}?),?”")
_ET_AL = re.compile(r"\bet\s+al\b", re.IGNORECASE)


def acs_families(text: str) -> list[str] | None:
    """The surnames of an ACS reference ("(1) Suresh, M. R.; Milstein, C. Venue 1985, ..."), or
    None when its author list does not read cleanly (no authors, an organisation)."""
    rest = re.sub(r"^\(\d+\)\s*", "", text)
    families: list[str] = []
    while True:
        match = _ACS_NAME.match(rest)
        if match is None:
            break
        families.append(match.group("family").strip())
        rest = rest[match.end() :]
        if not match.group(0).endswith("; "):
            break
    return families or None


def expected_fields(strings: dict[str, str]) -> dict[str, Any]:
    """What the styles agree a work's fields are (see the module docstring)."""
    expected: dict[str, Any] = {}
    acs = strings.get("american-chemical-society")
    if acs and (families := acs_families(acs)):
        expected["families"] = families
    apa = strings.get("apa")
    if apa and (year := _APA_YEAR.search(apa)):
        expected["year"] = int(year.group("year"))
    ieee = strings.get("ieee")
    if ieee and (title := _IEEE_TITLE.search(ieee)):
        expected["title"] = title.group("title").rstrip(",")
    return expected


def _key(name: str) -> str:
    return fold_name(name)


def _family(author: Author) -> str:
    return author.family or author.literal or author.given or ""


def surnames_agree(parsed: str, expected: str) -> bool:
    """One surname against another, particles aside ("v. Thurzó" ~ "Thurzó")."""
    a, b = _key(parsed), _key(expected)
    if not a or not b:
        return False
    return a == b or a.endswith(b) or b.endswith(a)


def load(styles_dir: Path = STYLES_DIR) -> dict[str, dict[str, str]]:
    """DOI -> style -> reference string."""
    works: dict[str, dict[str, str]] = defaultdict(dict)
    for style in STYLES:
        data = json.loads((styles_dir / f"dataset-{style}.json").read_text(encoding="utf-8"))
        for item in data["dataset"]:
            doi = (item.get("target_gt") or {}).get("DOI")
            if doi and item.get("ref_string"):
                works[doi][style] = item["ref_string"]
    return works


Parser = Callable[[str], ReferenceFields]


def _score(fields: ReferenceFields, text: str, expected: dict[str, Any], counts: dict[str, int]) -> None:
    families = expected.get("families")
    if families:
        parsed = [_family(a) for a in fields.get("authors", ())]
        counts["authors_n"] += 1
        if parsed and surnames_agree(parsed[0], families[0]):
            counts["first_author"] += 1
        cut = bool(_ET_AL.search(text)) or bool(fields.get("authors_truncated"))
        compared = families[: len(parsed)] if cut else families
        if len(parsed) == len(compared) and all(
            surnames_agree(p, e) for p, e in zip(parsed, compared, strict=True)
        ):
            counts["authors"] += 1
        if len(parsed) > len(families):
            counts["over_split"] += 1
        if fields.get("authors_uncertain"):
            counts["uncertain"] += 1
            # A wrong list marked uncertain is never a major error: what is left is the wrong
            # lists read as sure.
        elif parsed and not (
            len(parsed) == len(compared)
            and all(surnames_agree(p, e) for p, e in zip(parsed, compared, strict=True))
        ):
            counts["wrong_and_sure"] += 1  # (no list at all accuses nobody)
    if "year" in expected:
        counts["year_n"] += 1
        counts["year"] += int(fields.get("year") == expected["year"])
    if "title" in expected:
        counts["title_n"] += 1
        title = fields.get("title")
        counts["title"] += int(
            bool(title) and title_similarity(title or "", expected["title"]) >= TITLE_THRESHOLD
        )


def run(
    *, limit: int | None = None, parser: Parser = parse_reference_string, styles_dir: Path = STYLES_DIR
) -> dict[str, Any]:
    works = load(styles_dir)
    per_style: dict[str, dict[str, int]] = {style: defaultdict(int) for style in STYLES}
    for number, strings in enumerate(works.values()):
        if limit is not None and number >= limit:
            break
        expected = expected_fields(strings)
        for style, text in strings.items():
            per_style[style]["strings"] += 1
            _score(parser(text), text, expected, per_style[style])
    figures: dict[str, Any] = {"machine": machine(), "works": min(len(works), limit or len(works))}
    figures["styles"] = {style: _rates(counts) for style, counts in per_style.items()}
    return figures


def _rates(counts: dict[str, int]) -> dict[str, Any]:
    def share(hits: str, total: str) -> float | None:
        return round(counts[hits] / counts[total], 4) if counts[total] else None

    return {
        "strings": counts["strings"],
        "first_author": share("first_author", "authors_n"),
        "authors": share("authors", "authors_n"),
        "over_split": share("over_split", "authors_n"),
        "uncertain": share("uncertain", "authors_n"),
        "wrong_and_sure": share("wrong_and_sure", "authors_n"),
        "year": share("year", "year_n"),
        "title": share("title", "title_n"),
        "with_expected": {
            "authors": counts["authors_n"],
            "year": counts["year_n"],
            "title": counts["title_n"],
        },
    }


def format_report(figures: dict[str, Any]) -> str:
    lines = [
        f"reference strings: {figures['works']} works in {len(figures['styles'])} styles",
        "| style | first author | all authors | over-split | marked uncertain | wrong, read as sure "
        "| year | title |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for style, rates in figures["styles"].items():
        lines.append(
            f"| {style} | {_pct(rates['first_author'])} | {_pct(rates['authors'])} | "
            f"{_pct(rates['over_split'])} | {_pct(rates['uncertain'])} | {_pct(rates['wrong_and_sure'])} | "
            f"{_pct(rates['year'])} | {_pct(rates['title'])} |"
        )
    return "\n".join(lines)
