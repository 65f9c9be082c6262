"""Semantic Scholar's `GET /graph/v1/paper/search/bulk`, as documented (issue 23).

The query is matched against each paper's title and abstract; every term must be present unless
the documented operators say otherwise: `+` AND, `|` OR, `-` negates a term, `"..."` a phrase,
`*` after a word a prefix, `( )` precedence, `~N` after a word a fuzzy word (edit distance N,
default 2) and after a phrase a sloppy phrase (read here as all of its words, in any order, a
superset of any slop). Terms go through the simulator's analyser (`search.tokenize`: stop words
dropped, plural `-s` stemmed), on the index side and the query side alike.

The papers matched are the universe's and, when the simulator is given one
(`SimulatorConfig.semantic_scholar_corpus`), a sample of the rest of S2's corpus (`s2_corpus`),
so that a phrase common in the field fills the page as it does at the real service.
Up to 1,000 papers come back per call, sorted by `sort` (default `paperId:asc`), with the
estimated `total` and a continuation `token` only when more matched; `limit` and `offset` are
ignored (a recorded call with `offset=0&limit=100` got 1,000 papers). Refused as documented, with
400 and `{"error": ...}`: an unknown or nested field ("Unrecognized or unsupported fields: [...]"),
and a parameter value the endpoint cannot take ("Unacceptable query params: [k=v]": a sort field
or order, a year range, a token it did not issue). The documentation lists no refusal for the
query's own syntax, so none is invented: an unclosed quote or parenthesis closes at the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from aletheia.sources.simulator.http import Request, Response, json_response
from aletheia.sources.simulator.ids import stable_hex
from aletheia.sources.simulator.s2_corpus import S2Corpus
from aletheia.sources.simulator.search import FieldIndex, fold, tokenize
from aletheia.sources.simulator.universe import SourceCatalog

PAGE: Final = 1000
# Fields the bulk search does not serve (documented: no nested paper data).
UNSUPPORTED: Final = frozenset({"citations", "references", "embedding", "tldr"})
SORT_FIELDS: Final = frozenset({"paperId", "publicationDate", "citationCount"})

_LEXEME: Final = re.compile(
    r"""\s*(?:
        (?P<op>[()|+])
      | (?P<neg>-)(?=[^\s-])
      | "(?P<phrase>[^"]*)"?(?:~(?P<slop>\d*))?
      | (?P<word>[^\s()|+"~*]+)(?P<star>\*)?(?:~(?P<fuzz>\d*))?
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]  # analysed tokens; empty: a stop word, which matches everything
    phrase: bool = False
    prefix: bool = False
    fuzz: int | None = None


@dataclass(frozen=True)
class Op:
    op: str  # "and", "or", "not"
    parts: tuple[Node, ...]


Node = Term | Op


def _lex(query: str) -> list[str | Term]:
    items: list[str | Term] = []
    position = 0
    while position < len(query):
        match = _LEXEME.match(query, position)
        if match is None or match.end() == position:
            position += 1  # a stray character (`~`, `*` alone) is no term
            continue
        position = match.end()
        if match.group("op"):
            items.append(match.group("op"))
        elif match.group("neg"):
            items.append("-")
        elif match.group("phrase") is not None:
            words = tuple(tokenize(match.group("phrase")))
            sloppy = match.group("slop") is not None
            items.append(Term(words, phrase=not sloppy and len(words) > 1))
        elif match.group("word") is not None:
            raw = match.group("word")
            words = tuple(tokenize(raw)) if not match.group("star") else (fold(raw),)
            fuzz = match.group("fuzz")
            items.append(
                Term(
                    words,
                    phrase=len(words) > 1,
                    prefix=bool(match.group("star")),
                    fuzz=(int(fuzz) if fuzz else 2) if fuzz is not None else None,
                )
            )
    return items


class _Parser:
    """`expr := and ('|' and)*`, `and := unary ('+'? unary)*`, `unary := '-' unary | atom`,
    `atom := '(' expr ')' | term`."""

    def __init__(self, items: list[str | Term]) -> None:
        self.items = items
        self.at = 0

    def _peek(self) -> str | Term | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def expr(self) -> Node | None:
        parts = [p for p in [self._and()] if p is not None]
        while self._peek() == "|":
            self.at += 1
            if (part := self._and()) is not None:
                parts.append(part)
        return None if not parts else parts[0] if len(parts) == 1 else Op("or", tuple(parts))

    def _and(self) -> Node | None:
        parts: list[Node] = []
        while (item := self._peek()) is not None and item not in ("|", ")"):
            if item == "+":
                self.at += 1
                continue
            if (part := self._unary()) is not None:
                parts.append(part)
        return None if not parts else parts[0] if len(parts) == 1 else Op("and", tuple(parts))

    def _unary(self) -> Node | None:
        item = self._peek()
        self.at += 1
        if item == "-":
            inner = self._unary()
            return Op("not", (inner,)) if inner is not None else None
        if item == "(":
            inner = self.expr()
            if self._peek() == ")":
                self.at += 1
            return inner
        return item if isinstance(item, Term) else None


def parse_bulk_query(query: str) -> Node | None:
    return _Parser(_lex(query)).expr()


def _within(a: str, b: str, n: int) -> bool:
    """Levenshtein distance of a and b is at most n."""
    if abs(len(a) - len(b)) > n:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > n:
            return False
    return row[-1] <= n


def _resolve(term: Term, index: FieldIndex, everything: set[int]) -> set[int]:
    if not term.words:
        return everything
    if term.prefix:
        stem = term.words[0]
        return {doc for token, docs in index.postings.items() if token.startswith(stem) for doc in docs}
    if term.fuzz is not None and len(term.words) == 1:
        word = term.words[0]
        return {
            doc for token, docs in index.postings.items() if _within(word, token, term.fuzz) for doc in docs
        }
    return index.docs_matching(term.words, phrase=term.phrase)


def evaluate(node: Node, index: FieldIndex, everything: set[int]) -> set[int]:
    if isinstance(node, Term):
        return _resolve(node, index, everything)
    if node.op == "or":
        return set().union(*(evaluate(p, index, everything) for p in node.parts))
    if node.op == "not":
        return everything - evaluate(node.parts[0], index, everything)
    result = set(everything)
    for part in node.parts:
        result &= evaluate(part, index, everything)
    return result


def _token(query: str, offset: int) -> str:
    return f"B{offset}X{stable_hex('s2-bulk', query)[:16]}"


def _offset(token: str | None, query: str) -> int | None:
    """The offset a token this endpoint issued for `query` stands for; None for any other."""
    if token is None:
        return 0
    match = re.fullmatch(r"B(\d+)X([0-9a-f]{16})", token)
    if match is None or _token(query, int(match.group(1))) != token:
        return None
    return int(match.group(1))


def unacceptable(name: str, value: str) -> Response:
    return json_response({"error": f"Unacceptable query params: [{name}={value}]"}, status=400)


def bulk_search(
    request: Request,
    catalog: SourceCatalog,
    fields: list[str],
    *,
    render: Callable[[int], dict[str, Any]],
    years: tuple[int, int] | None,
    corpus: S2Corpus | None = None,
) -> Response:
    """The endpoint: `render(index) -> the projected paper` (the S2 module's rendering); `corpus`,
    the papers S2 holds beyond the universe, matched too."""
    unsupported = [f for f in fields if f in UNSUPPORTED]
    if unsupported:
        return json_response(
            {"error": f"Unrecognized or unsupported fields: [{', '.join(unsupported)}]"}, status=400
        )
    query = request.param("query") or ""
    sort = request.param("sort") or "paperId"
    field, _, order = sort.partition(":")
    if field not in SORT_FIELDS or order not in ("", "asc", "desc"):
        return unacceptable("sort", sort)
    if years is None:
        return unacceptable("year", request.param("year") or "")
    token = request.param("token")
    offset = _offset(token, query)
    if offset is None:
        return unacceptable("token", token or "")
    node = parse_bulk_query(query)
    everything = set(range(len(catalog)))
    matched = evaluate(node, catalog.text, everything) if node is not None else everything
    low, high = years
    if request.param("year"):
        matched = {i for i in matched if (y := catalog.works[i].year) is not None and low <= y <= high}
    papers = [render(i) for i in matched]
    if corpus is not None and len(corpus):
        # The rest of S2's corpus (`s2_corpus`): matched by the same query, over its own index.
        rest = set(range(len(corpus)))
        others = (corpus.render(i) for i in (evaluate(node, corpus.text, rest) if node is not None else rest))
        papers.extend(p for p in others if not request.param("year") or low <= p["year"] <= high)

    def key(paper: dict[str, Any]) -> tuple[Any, str]:
        value = paper.get(field)
        default: Any = 0 if field == "citationCount" else ""
        return (default if value is None else value), paper["paperId"]

    papers.sort(key=key, reverse=order == "desc")
    page = papers[offset : offset + PAGE]
    payload: dict[str, Any] = {"total": len(papers)}
    if offset + PAGE < len(papers):
        payload["token"] = _token(query, offset + PAGE)
    payload["data"] = [_project(p, fields) for p in page]
    return json_response(payload)


def _project(paper: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    projected = {"paperId": paper["paperId"]}
    for name in fields:
        projected[name] = paper.get(name)
    return projected
