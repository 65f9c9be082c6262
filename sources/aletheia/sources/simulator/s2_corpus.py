"""The rest of Semantic Scholar's corpus: papers no reference cites, which a bulk search matches
as well (issue 32).

Semantic Scholar holds about 200 million papers; a universe holds the few hundred a benchmark
cites. `paper/search/bulk` matches its query over the titles and abstracts of them all, so a phrase
common in the field ("image recognition", "language models") matches far more papers than the
1,000 one call returns, and the answer comes back with a continuation token: cut short, it
proves no title absent. A universe alone never shows that (its few hundred titles, without
abstracts, never fill a page).

`S2Corpus` is a seeded sample of that rest: `papers` generated papers whose titles and abstracts
are written in the field's own phrases, the runs of two and three words of the universe's titles
(first and last word not a stop word), each drawn as often as titles of the universe hold it: a
phrase that many cited titles share ("neural networks") is common in the field's abstracts, one
that a single title holds is rarer but still in many abstracts (as "boundary conformal field" is
in thousands of real ones). The sample is far smaller than the real corpus, so what it makes
common is a lower bound of what S2 answers. Only the bulk search reads it: `match` and the
relevance search rank and answer a few papers (the universe's, as before), and a paper of the
sample is never looked up (nothing cites it).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Final

from aletheia.sources.simulator.ids import stable_hex, stable_int
from aletheia.sources.simulator.search import STOPWORDS, FieldIndex, tokenize

_WORD: Final = re.compile(r"[^\W_]+")
# How a generated title joins two phrases, and the sentences of a generated abstract (`{}` a
# phrase): the shapes of real CS abstracts (problem, method, experiments, result).
_TITLE_SHAPES: Final = ("{} for {}", "{} with {}", "{}: {}", "Towards {} in {}", "{} via {}", "On {} and {}")
_SENTENCES: Final = (
    "We study {} in the setting of {}.",
    "Existing approaches to {} rely on {}, which limits {}.",
    "We propose a method that combines {} with {}.",
    "Our analysis of {} shows that {} improves {}.",
    "Experiments on {} demonstrate gains over {}.",
    "We further discuss {} and its relation to {}.",
    "The results suggest that {} is key to {}.",
)
_SENTENCES_PER_ABSTRACT: Final = 5
_NAMES: Final = ("Chen", "Smith", "Wang", "Garcia", "Kumar", "Müller", "Kim", "Rossi", "Novak", "Sato")
_INITIALS: Final = "ABCDEFGHJKLMNPRSTW"


def field_phrases(titles: Iterable[str]) -> Counter[str]:
    """Each run of two or three words of the titles (lower case, first and last word not a stop
    word) -> how many titles hold it."""
    counts: Counter[str] = Counter()
    for title in titles:
        words = _WORD.findall(title.lower())
        held: set[str] = set()
        for width in (2, 3):
            for i in range(len(words) - width + 1):
                run = words[i : i + width]
                if run[0] not in STOPWORDS and run[-1] not in STOPWORDS:
                    held.add(" ".join(run))
        counts.update(held)
    return counts


class S2Corpus:
    """`papers` generated papers (title and abstract), indexed as the bulk search reads them."""

    def __init__(self, titles: Iterable[str], papers: int, seed: int = 0) -> None:
        counts = field_phrases(titles)
        # In a fixed order: the same papers in every process (a set's order is not).
        phrases = sorted(counts)
        weights = [counts[p] for p in phrases]
        rng = random.Random(stable_int("s2-corpus", str(seed), digits=12))
        self.titles: list[str] = []
        self.abstracts: list[str] = []

        def draw(k: int) -> list[str]:
            return rng.choices(phrases, weights=weights, k=k)

        for _ in range(papers if phrases else 0):
            self.titles.append(rng.choice(_TITLE_SHAPES).format(*draw(2)).capitalize())
            sentences = rng.sample(_SENTENCES, _SENTENCES_PER_ABSTRACT)
            self.abstracts.append(" ".join(s.format(*draw(s.count("{}"))).capitalize() for s in sentences))
        self.text = FieldIndex(
            [tokenize(f"{t} {a}") for t, a in zip(self.titles, self.abstracts, strict=True)]
        )
        self._seed = seed

    def __len__(self) -> int:
        return len(self.titles)

    def render(self, index: int) -> dict[str, Any]:
        """One paper as the bulk search serves it (the fields a paper of the universe has)."""
        paper_id = stable_hex("s2-corpus-paper", f"{self._seed}:{index}")[:40]
        first = _NAMES[stable_int("s2-corpus-author", paper_id, digits=3) % len(_NAMES)]
        initial = _INITIALS[stable_int("s2-corpus-initial", paper_id, digits=3) % len(_INITIALS)]
        year = 1995 + stable_int("s2-corpus-year", paper_id, digits=3) % 30
        return {
            "paperId": paper_id,
            "externalIds": {"CorpusId": stable_int("s2-corpus-id", paper_id, digits=9)},
            "corpusId": stable_int("s2-corpus-id", paper_id, digits=9),
            "url": f"https://www.semanticscholar.org/paper/{paper_id}",
            "title": self.titles[index],
            "abstract": self.abstracts[index],
            "venue": "",
            "year": year,
            "publicationDate": f"{year:04d}-01-01",
            "citationCount": stable_int("s2-corpus-cited", paper_id, digits=2),
            "authors": [{"authorId": str(stable_int("s2author", first)), "name": f"{initial}. {first}"}],
        }
