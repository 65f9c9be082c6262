"""Issue 20: `.bbl` files as real `bibtex` writes them (styles `plain` and `ieeetr`).

`~` is a tie, a non-breaking space inside a name ("Diederik~P. Kingma"), and `\\newblock`
separates the blocks BibTeX's styles write (authors, title, venue): the author list is the first
block and the title the second, whatever the parser of a plain string would guess ("Diederik P."
read as a Vancouver name gave author "P Diederik" and title "Kingma and Jimmy Ba"). The fixture
`.bib` is rendered by the real `bibtex` when it is installed (`.ci/run` installs it); the same
output, as bibtex 0.99d wrote it, is also pinned here so the reading is tested everywhere.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aletheia.core.bibliography.bbl import iter_bbl
from aletheia.core.records import CitedReference

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "bibtex_render" / "bibtex_styles.bib"

PLAIN_BBL = r"""\begin{thebibliography}{1}

\bibitem{etal2020}
Alice Author, Bob Builder, Carol Coder, et~al.
\newblock A paper with many authors.
\newblock {\em Journal of Things}, 2020.

\bibitem{goodfellow2014gan}
Ian~J. Goodfellow, Jean Pouget-Abadie, Mehdi Mirza, Bing Xu, David
  Warde-Farley, Sherjil Ozair, Aaron Courville, and Yoshua Bengio.
\newblock Generative adversarial nets.
\newblock In {\em Advances in Neural Information Processing Systems}, 2014.

\bibitem{kingma2015adam}
Diederik~P. Kingma and Jimmy Ba.
\newblock Adam: A method for stochastic optimization.
\newblock In {\em International Conference on Learning Representations}, 2015.

\bibitem{kuhn1962}
Thomas~S. Kuhn.
\newblock {\em The Structure of Scientific Revolutions}.
\newblock University of Chicago Press, 1962.

\bibitem{shannon1948}
Claude~E. Shannon.
\newblock A mathematical theory of communication.
\newblock {\em Bell System Technical Journal}, 27:379--423, 1948.

\bibitem{vaswani2017}
Ashish Vaswani, Noam Shazeer, and Niki Parmar.
\newblock Attention is all you need.
\newblock arXiv:1706.03762, 2017.

\end{thebibliography}
"""

IEEETR_BBL = r"""\begin{thebibliography}{1}

\bibitem{kingma2015adam}
D.~P. Kingma and J.~Ba, ``Adam: A method for stochastic optimization,'' in {\em
  International Conference on Learning Representations}, 2015.

\bibitem{goodfellow2014gan}
I.~J. Goodfellow, J.~Pouget-Abadie, M.~Mirza, B.~Xu, D.~Warde-Farley, S.~Ozair,
  A.~Courville, and Y.~Bengio, ``Generative adversarial nets,'' in {\em
  Advances in Neural Information Processing Systems}, 2014.

\bibitem{shannon1948}
C.~E. Shannon, ``A mathematical theory of communication,'' {\em Bell System
  Technical Journal}, vol.~27, pp.~379--423, 1948.

\bibitem{kuhn1962}
T.~S. Kuhn, {\em The Structure of Scientific Revolutions}.
\newblock University of Chicago Press, 1962.

\bibitem{etal2020}
A.~Author, B.~Builder, C.~Coder, {\em et~al.}, ``A paper with many authors,''
  {\em Journal of Things}, 2020.

\bibitem{vaswani2017}
A.~Vaswani, N.~Shazeer, and N.~Parmar, ``Attention is all you need.''
  arXiv:1706.03762, 2017.

\end{thebibliography}
"""

# key -> (surnames, title, year, "et al.")
EXPECTED: dict[str, tuple[list[str], str, int, bool]] = {
    "kingma2015adam": (["Kingma", "Ba"], "Adam: A method for stochastic optimization", 2015, False),
    "goodfellow2014gan": (
        ["Goodfellow", "Pouget-Abadie", "Mirza", "Xu", "Warde-Farley", "Ozair", "Courville", "Bengio"],
        "Generative adversarial nets",
        2014,
        False,
    ),
    "shannon1948": (["Shannon"], "A mathematical theory of communication", 1948, False),
    "kuhn1962": (["Kuhn"], "The Structure of Scientific Revolutions", 1962, False),
    "etal2020": (["Author", "Builder", "Coder"], "A paper with many authors", 2020, True),
    "vaswani2017": (["Vaswani", "Shazeer", "Parmar"], "Attention is all you need", 2017, False),
}


def _check(bbl: str) -> None:
    refs = {r.key: r for r in iter_bbl(bbl, origin="refs.bbl") if isinstance(r, CitedReference)}
    assert set(refs) == set(EXPECTED)
    for key, (surnames, title, year, cut) in EXPECTED.items():
        ref = refs[key]
        assert [a.family for a in ref.authors] == surnames, key
        assert ref.title == title, key
        assert ref.year == year, key
        assert ref.authors_truncated is cut, key
        assert not ref.authors_uncertain, key
    assert (
        refs["kingma2015adam"].authors[0].given == "Diederik P."
        or refs["kingma2015adam"].authors[0].given == "D. P."
    )
    assert refs["kingma2015adam"].raw is not None and "~" not in refs["kingma2015adam"].raw


@pytest.mark.parametrize("bbl", [PLAIN_BBL, IEEETR_BBL], ids=["plain", "ieeetr"])
def test_bibtex_output_is_read_block_by_block(bbl: str) -> None:
    _check(bbl)


@pytest.mark.parametrize("style", ["plain", "ieeetr"])
def test_real_bibtex_output(tmp_path: Path, style: str) -> None:
    bibtex = shutil.which("bibtex")
    if bibtex is None:
        pytest.skip("bibtex is not installed (Debian texlive-binaries, texlive-base)")
    shutil.copy(FIXTURE, tmp_path / "refs.bib")
    (tmp_path / "doc.aux").write_text(f"\\relax\n\\citation{{*}}\n\\bibstyle{{{style}}}\n\\bibdata{{refs}}\n")
    run = subprocess.run([bibtex, "-terse", "doc"], cwd=tmp_path, capture_output=True, text=True, check=False)
    bbl = tmp_path / "doc.bbl"
    if not bbl.exists():
        pytest.skip(f"bibtex could not render the {style} style: {run.stdout}{run.stderr}")
    _check(bbl.read_text(encoding="utf-8"))
