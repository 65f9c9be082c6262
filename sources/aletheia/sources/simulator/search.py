"""Small, real retrieval for the simulator: tokens, BM25 per field, and a boolean query language.

Every search endpoint of the simulator runs over these indexes, so a title-only reference is
found (or missed) by the same kind of matching the real services do: ranked bag-of-words for
Crossref's `query.bibliographic` and Semantic Scholar's search, boolean AND of terms for OpenAlex's
`search`, arXiv's `search_query` and PubMed's `term`. Tokens are accent-folded, case-folded,
stop-word-free and lightly stemmed (plural -s), on both the index side and the query side.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from aletheia.core.text import index_word

STOPWORDS: Final = frozenset(
    [
        "a",
        "about",
        "all",
        "also",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "not",
        "of",
        "on",
        "or",
        "our",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "which",
        "while",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)

_WORD: Final = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Accents removed, case folded: "Schrödinger" -> "schrodinger"."""
    # Case folding can produce decomposable or combining characters and decomposing can produce
    # upper case ("ℌ" -> "H"): repeat until nothing changes, so folding is idempotent.
    for _ in range(4):
        decomposed = unicodedata.normalize("NFKD", text)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
        if folded == text:
            break
        text = folded
    return text


def tokenize(text: str) -> list[str]:
    # A stem can itself be a stop word ("thes" -> "the"): dropped too, so tokenizing the tokens
    # again changes nothing.
    tokens = []
    for word in _WORD.findall(fold(text)):
        # Single Latin letters (initials, the "s" of a possessive) carry no meaning in a title.
        if word in STOPWORDS or (len(word) == 1 and "a" <= word <= "z"):
            continue
        stemmed = index_word(word)
        if stemmed not in STOPWORDS:
            tokens.append(stemmed)
    return tokens


class FieldIndex:
    """One field of every document: an inverted index with BM25 statistics."""

    K1: Final = 1.2
    B: Final = 0.75

    def __init__(self, docs: Sequence[list[str]]) -> None:
        self.docs = list(docs)
        self.lengths = [len(d) for d in self.docs]
        self.average_length = (sum(self.lengths) / len(self.docs)) if self.docs else 1.0
        self.postings: dict[str, dict[int, int]] = {}
        for doc, tokens in enumerate(self.docs):
            for token in tokens:
                counts = self.postings.setdefault(token, {})
                counts[doc] = counts.get(doc, 0) + 1

    def __len__(self) -> int:
        return len(self.docs)

    def docs_with(self, token: str) -> set[int]:
        return set(self.postings.get(token, ()))

    def docs_with_all(self, tokens: Iterable[str]) -> set[int]:
        wanted = list(dict.fromkeys(tokens))
        if not wanted:
            return set()
        wanted.sort(key=lambda t: len(self.postings.get(t, ())))
        result = self.docs_with(wanted[0])
        for token in wanted[1:]:
            if not result:
                break
            result &= self.postings.get(token, {}).keys()
        return result

    def docs_with_phrase(self, tokens: Sequence[str]) -> set[int]:
        phrase = list(tokens)
        if len(phrase) <= 1:
            return self.docs_with_all(phrase)
        found = set()
        width = len(phrase)
        for doc in self.docs_with_all(phrase):
            words = self.docs[doc]
            if any(words[i : i + width] == phrase for i in range(len(words) - width + 1)):
                found.add(doc)
        return found

    def docs_matching(self, tokens: Sequence[str], *, phrase: bool) -> set[int]:
        """The documents holding every token, contiguously when `phrase`."""
        return self.docs_with_phrase(tokens) if phrase else self.docs_with_all(tokens)

    def idf(self, token: str) -> float:
        n = len(self.postings.get(token, ()))
        total = len(self.docs)
        return math.log(1.0 + (total - n + 0.5) / (n + 0.5))

    def scores(self, tokens: Iterable[str], candidates: Iterable[int] | None = None) -> dict[int, float]:
        """BM25 of each document (among `candidates`, if given) that holds at least one token."""
        allowed = set(candidates) if candidates is not None else None
        totals: dict[int, float] = {}
        for token in dict.fromkeys(tokens):
            postings = self.postings.get(token)
            if not postings:
                continue
            idf = self.idf(token)
            for doc, tf in postings.items():
                if allowed is not None and doc not in allowed:
                    continue
                norm = 1 - self.B + self.B * self.lengths[doc] / self.average_length
                totals[doc] = totals.get(doc, 0.0) + idf * tf * (self.K1 + 1) / (tf + self.K1 * norm)
        return totals

    def ranked(
        self,
        tokens: Sequence[str],
        *,
        candidates: Iterable[int] | None = None,
        min_share: float = 0.0,
    ) -> list[tuple[int, float]]:
        """Documents best first; `min_share` is the share of distinct query tokens a document must
        hold (Elasticsearch's `minimum_should_match`)."""
        distinct = list(dict.fromkeys(tokens))
        scored = self.scores(distinct, candidates)
        if min_share > 0 and distinct:
            need = math.ceil(min_share * len(distinct))
            scored = {
                doc: score
                for doc, score in scored.items()
                if sum(1 for t in distinct if doc in self.postings.get(t, {})) >= need
            }
        return sorted(scored.items(), key=lambda item: (-item[1], item[0]))


# --- a boolean query language, in the three dialects the sources speak -------------------------


@dataclass(frozen=True)
class Clause:
    """Words that must all occur in `field` (None: the dialect's default field); a phrase must
    occur contiguously."""

    field: str | None
    text: str
    phrase: bool = False


@dataclass(frozen=True)
class BoolOp:
    op: Literal["AND", "OR", "NOT"]
    left: Node | None  # None: a leading NOT ("NOT cookie": everything but)
    right: Node


Node = Clause | BoolOp
Dialect = Literal["arxiv", "pubmed", "plain"]

_OPERATORS: Final = {"AND": "AND", "OR": "OR", "NOT": "NOT", "ANDNOT": "NOT"}
_LEXEME: Final = re.compile(
    r"""\s*(?:
        (?P<lparen>\()|(?P<rparen>\))
      | (?P<prefixed>[A-Za-z]+):(?:"(?P<pphrase>[^"]*)"|(?P<pword>[^\s()"]+))
      | "(?P<phrase>[^"]*)"(?:\[(?P<ptag>[^\]]+)\])?
      | (?P<word>[^\s()"\[]+)(?:\[(?P<tag>[^\]]+)\])?
      | \[(?P<lonetag>[^\]]+)\]
    )""",
    re.VERBOSE,
)


@dataclass
class _Pending:
    """A word not yet given its field: PubMed's tag applies to the run of bare words before it."""

    text: str


def _lex(query: str, dialect: Dialect) -> list[str | Clause]:
    items: list[str | Clause | _Pending] = []
    position = 0
    while position < len(query):
        if not query[position:].strip():
            break
        match = _LEXEME.match(query, position)
        if match is None or match.end() == position:
            position += 1
            continue
        position = match.end()
        if match.group("lparen"):
            items.append("(")
        elif match.group("rparen"):
            items.append(")")
        elif match.group("prefixed") is not None and dialect == "arxiv":
            field = match.group("prefixed").lower()
            if match.group("pphrase") is not None:
                items.append(Clause(field, match.group("pphrase"), phrase=True))
            else:
                # arXiv writes multi-word author names with underscores: au:del_maestro.
                items.append(Clause(field, match.group("pword").replace("_", " ")))
        elif match.group("prefixed") is not None:
            items.append(_Pending(match.group(0).strip()))
        elif match.group("phrase") is not None:
            tag = match.group("ptag")
            items.append(Clause(tag.lower().strip() if tag else None, match.group("phrase"), phrase=True))
        elif match.group("word") is not None:
            word = match.group("word")
            tag = match.group("tag")
            # Operators are upper case at OpenAlex, arXiv and PubMed alike: "Not at Random" in a
            # title is three words, not a negation.
            if word in _OPERATORS and tag is None:
                items.append(_OPERATORS[word])
            elif tag is not None and dialect == "pubmed":
                _apply_tag(items, word, tag)
            else:
                items.append(_Pending(word))
        elif match.group("lonetag") is not None and dialect == "pubmed":
            _apply_tag(items, "", match.group("lonetag"))
    # Words no tag claimed search the dialect's default field.
    return [Clause(None, item.text) if isinstance(item, _Pending) else item for item in items]


def _apply_tag(items: list[str | Clause | _Pending], last_word: str, tag: str) -> None:
    words = [last_word] if last_word else []
    while items and isinstance(items[-1], _Pending):
        pending = items.pop()
        assert isinstance(pending, _Pending)
        words.insert(0, pending.text)
    items.append(Clause(tag.lower().strip(), " ".join(words)))


def parse_query(query: str, dialect: Dialect) -> Node | None:
    """Parse `query`; operators apply left to right (as PubMed does), parentheses group, adjacent
    clauses are joined by AND. None for a query with no clause at all."""
    items = _lex(query, dialect)
    node, _ = _parse_sequence(items, 0)
    return node


def _parse_sequence(items: list[str | Clause], start: int) -> tuple[Node | None, int]:
    node: Node | None = None
    pending_op: Literal["AND", "OR", "NOT"] | None = None
    index = start
    while index < len(items):
        item = items[index]
        index += 1
        operand: Node | None
        if item == ")":
            break
        if item == "(":
            operand, index = _parse_sequence(items, index)
        elif isinstance(item, Clause):
            operand = item
        elif item in ("AND", "OR", "NOT"):
            pending_op = item  # type: ignore[assignment]
            continue
        else:
            continue
        if operand is None:
            continue
        if node is None:
            node = BoolOp("NOT", None, operand) if pending_op == "NOT" else operand
        else:
            node = BoolOp(pending_op or "AND", node, operand)
        pending_op = None
    return node, index


def evaluate(node: Node, resolve: Callable[[Clause], set[int]], everything: set[int]) -> set[int]:
    if isinstance(node, Clause):
        return resolve(node)
    right = evaluate(node.right, resolve, everything)
    left = evaluate(node.left, resolve, everything) if node.left is not None else everything
    if node.op == "AND":
        return left & right
    if node.op == "OR":
        return left | right
    return left - right


def positive_clauses(node: Node | None) -> list[Clause]:
    """The clauses a match is ranked by (those under NOT are excluded)."""
    if node is None:
        return []
    if isinstance(node, Clause):
        return [node]
    left = positive_clauses(node.left)
    return left if node.op == "NOT" else left + positive_clauses(node.right)


def ranking_words(node: Node | None) -> list[str]:
    """The words of the clauses a match is ranked by (`positive_clauses`), in order."""
    return [word for clause in positive_clauses(node) for word in tokenize(clause.text)]
