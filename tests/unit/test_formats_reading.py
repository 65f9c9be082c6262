"""Issue 20, "every format read right": what the formats benchmark (`aletheia bench formats`) found
read wrongly in the references rendered by real `bibtex` (`plain`, `ieeetr`) and `pandoc
--citeproc` (Chicago author-date), one test per cause. Every example is a reference string of that
run whose reading differed from the `.bib` entry's (its `--diffs` rows, docs/benchmarks.md
section 6).
"""

from __future__ import annotations

from aletheia.core.authors import parse_author_list
from aletheia.core.bibliography.bbl import iter_bbl
from aletheia.core.bibliography.markdown import iter_markdown, markdown_to_text
from aletheia.core.bibliography.plain import iter_plain, parse_reference_string, reference_from_string
from aletheia.core.bibliography.plain_authors import read_authors
from aletheia.core.book_rules import is_book_like
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import decode_character_references
from aletheia.core.work_kinds import classify_kind


def _names(segment: str) -> list[str]:
    return [a.display for a in read_authors(segment)[0]]


def _families(reference: str) -> list[str | None]:
    return [a.family for a in parse_reference_string(reference).get("authors", ())]


def _bbl(body: str) -> dict[str, CitedReference]:
    text = "\\begin{thebibliography}{9}\n\n" + body + "\n\\end{thebibliography}\n"
    return {r.key: r for r in iter_bbl(text, origin="refs.bbl") if isinstance(r, CitedReference)}


def _cited(**fields: object) -> CitedReference:
    return CitedReference(key="k", **fields)  # type: ignore[arg-type]


# --- author lists ---------------------------------------------------------------------------------


def test_an_initial_with_a_spaced_period_is_one_initial() -> None:
    # PDF-extracted names in the ICLR set ("Y . Liu"); ieeetr abbreviates "Reuven Y ." to "R.~Y. .".
    assert _names("B. Han, Y . Liu, S.W. Ginzinger, and D.S. Wishart") == [
        "B. Han",
        "Y. Liu",
        "S.W. Ginzinger",
        "D.S. Wishart",
    ]
    assert _names("R. Y. . Rubinstein and D. P. Kroese") == ["R. Y. Rubinstein", "D. P. Kroese"]
    assert _families(
        "Kuprov, Ilya, Nicola Wagner-Rundell, and P . J. Hore. 2007. “Nmr of Large Proteins.” Progress."
    ) == ["Kuprov", "Wagner-Rundell", "Hore"]


def test_a_long_chicago_list_survives_one_mangled_name() -> None:
    # "Roberto Dess ı́" (a PDF's broken accent) and "Loı̈c" (a combining diaeresis) split the list
    # into "Schick" and "Timo" before.
    families = _families(
        "Schick, Timo, Jane Dwivedi-Yu, Roberto Dess ı́, Roberta Raileanu, Maria Lomeli, Eric Hambro, "
        "Luke Zettlemoyer, Nicola Cancedda, and Thomas Scialom. 2023. “Toolformer.” In Proc NeurIPS."
    )
    assert len(families) == 9 and families[:2] == ["Schick", "Dwivedi-Yu"] and families[-1] == "Scialom"
    assert _names("MacLeod, Benjamin P, Fraser GL Parlane, Loı̈c M Roch, Kevan E Dettelbach, et al.")[:3] == [
        "Benjamin P MacLeod",
        "Fraser GL Parlane",
        "Loı̈c M Roch",
    ]
    # A short list must fit the shape whole: "Zhang, Wei, Li, Na" stays uncertain.
    assert read_authors("Zhang, Wei, Li, Na, Wang, Fang")[2] is True


def test_particles_of_an_inverted_surname() -> None:
    # A capitalised particle opens the surname; Chicago writes a lower-case one after the given names.
    assert _names("De Kroon, Arnoud, Joris Mooij, and Danielle Belgrave") == [
        "Arnoud De Kroon",
        "Joris Mooij",
        "Danielle Belgrave",
    ]
    assert _names("Bono, Johann de, Joaquin Mateo, Karim Fizazi, et al.")[0] == "Johann de Bono"
    assert read_authors("Luxburg, Ulrike von")[0] == (Author(given="Ulrike", family="von Luxburg"),)
    assert _names("Jiang, Albert Q., Alexandre Sablayrolles, Diego de las Casas, et al.") == [
        "Albert Q. Jiang",
        "Alexandre Sablayrolles",
        "Diego de las Casas",
    ]
    # "Di" and "Da" are given names too: "Di Jin, Eileen Pan" is two whole names, as before.
    assert _names("Di Jin, Eileen Pan, Nassim Oufattole, and Wei-Hung Weng")[:2] == ["Di Jin", "Eileen Pan"]


def test_an_elided_particle_opens_a_surname() -> None:
    assert _names("d'Amore, Francesco, Daniel Mitropolsky, and Pierluigi Crescenzi") == [
        "Francesco d'Amore",
        "Daniel Mitropolsky",
        "Pierluigi Crescenzi",
    ]
    # Written given-first it is a whole name, and the list is sure (a swapped list is then major).
    authors, _, uncertain = read_authors(
        "Francesco d'Amore, Daniel Mitropolsky, and Christos H. Papadimitriou"
    )
    assert [a.family for a in authors] == ["d'Amore", "Mitropolsky", "Papadimitriou"] and not uncertain


def test_bare_initials_before_a_surname_are_a_whole_name() -> None:
    # "A Ercument Cicek" merged with the name before it ("A Ercument Cicek Halil Ibrahim Kuru").
    assert _names("Halil Ibrahim Kuru, A Ercument Cicek, and Oznur Tastan") == [
        "Halil Ibrahim Kuru",
        "A Ercument Cicek",
        "Oznur Tastan",
    ]
    assert _names("V A Traag, L Waltman, and N J van Eck") == ["V A Traag", "L Waltman", "N J van Eck"]
    assert _families(
        "Meyer, Jennifer Donovan, Andrea Corvillón, D-C Kim, and Enrique Mac. 2022. “T.” X."
    ) == [
        "Meyer",
        "Corvillón",
        "Kim",
        "Mac",
    ]


def test_a_suffix_piece_belongs_to_the_name_before_it() -> None:
    authors, _, uncertain = read_authors(
        "Timothy Chow, Anne Liu, Cosby A Stone, Jr, and Kimberly G Blumenthal"
    )
    assert [(a.family, a.suffix) for a in authors] == [
        ("Chow", None),
        ("Liu", None),
        ("Stone", "Jr"),
        ("Blumenthal", None),
    ]
    assert not uncertain


def test_html_character_references_are_decoded() -> None:
    # HALLMARK's metadata carries "&apos;": its ";" split the list into "Ch" and "apos".
    fields = parse_reference_string(
        "Parra, Álvaro, Shin-Fang Ch&apos;ng, Tat-Jun Chin, and Ian Reid. 2021. “Rotation Coordinate "
        "Descent for Fast Globally Optimal Rotation Averaging.” In CVPR."
    )
    assert [a.family for a in fields.get("authors", ())] == ["Parra", "Ch'ng", "Chin", "Reid"]
    # Crossref's "Ry&ocirc;fu" likewise; an unknown name is left alone.
    yamamoto = parse_reference_string(
        "Yamamoto, Mikio, Ry&ocirc;fu Miyasaya, and Jir&ocirc; Watanabe. 1952. “Light Figures.” J. Inst. Met."
    )
    assert [a.display for a in yamamoto.get("authors", ())] == [
        "Mikio Yamamoto",
        "Ryôfu Miyasaya",
        "Jirô Watanabe",
    ]
    assert decode_character_references("AT&T; &notaname; &#233;") == "AT&T; &notaname; é"
    assert parse_reference_string("A. B. Smith. Allocation &Amp; Regularization. In CVPR, 2023.")[
        "title"
    ] == ("Allocation & Regularization")
    # `raw` stays what was given.
    assert "&apos;" in (
        reference_from_string("Ch&apos;ng, Shin-Fang. 2021. “T.” X.", key="1", origin=None).raw or ""
    )


def test_a_particle_y_keeps_a_whole_name_whole() -> None:
    # "Blaise Agüera y Arcas" fitted no shape: the list was uncertain and a swapped list only minor.
    for segment in (
        "Mark Sandler, Max Vladymyrov, Andrew Jackson, and Blaise Agüera y Arcas",
        "M. Sandler, A. Jackson, and B. A. y Arcas",
    ):
        authors, _, uncertain = read_authors(segment)
        assert authors[-1].family == "y Arcas" and not uncertain, segment


def test_a_bibtex_author_field_with_character_references() -> None:
    # HALLMARK's "Shin-Fang Ch&apos;ng" was three authors in the `.bib` reading ("Ch", "apos", "ng").
    authors, _ = parse_author_list("Álvaro Parra and Shin-Fang Ch&apos;ng and Tat-Jun Chin")
    assert [a.family for a in authors] == ["Parra", "Ch'ng", "Chin"]


def test_an_escaped_markdown_mark_is_no_emphasis() -> None:
    # pandoc writes "HLA-B*5701" as "Hla-b\*5701": paired with the venue's `*`, the title lost its star
    # and the venue became "*PLoS Curr".
    text = markdown_to_text(
        "Ma, Joseph D. 2010. “Hla-b\\*5701 Testing to Predict Abacavir Hypersensitivity.” *PLoS Curr*."
    )
    assert text == "Ma, Joseph D. 2010. “Hla-b*5701 Testing to Predict Abacavir Hypersensitivity.” PLoS Curr."


# --- titles, years, venues ------------------------------------------------------------------------


def test_author_year_after_a_long_author_list() -> None:
    # The year came after 60% of the string, so it was no anchor: title None, venue "Deep Learning".
    fields = parse_reference_string(
        "Goodfellow, Ian, Yoshua Bengio, and Aaron Courville. 2016. Deep Learning. MIT Press."
    )
    assert (fields.get("title"), fields.get("venue"), fields.get("year")) == (
        "Deep Learning",
        "MIT Press",
        2016,
    )


def test_a_quoted_word_inside_a_title_is_no_quoted_title() -> None:
    fields = parse_reference_string(
        "T. Nicolaus Tideman and Florenz Plassmann. Which voting rule is most likely to choose the “best”’ "
        "candidate? Public Choice, 2014."
    )
    assert fields.get("title") == "Which voting rule is most likely to choose the “best”’ candidate?"
    assert _families("T. Nicolaus Tideman and Florenz Plassmann. Which rule? Public Choice, 2014.") == [
        "Tideman",
        "Plassmann",
    ]
    # IEEE quotes a title that quotes: the curly quotes nest.
    ieee = parse_reference_string(
        "T. N. Tideman and F. Plassmann, “Which voting rule is most likely to choose the “best”’ "
        "candidate?,” Public Choice, vol. 158, 2014."
    )
    assert ieee.get("title") == "Which voting rule is most likely to choose the “best”’ candidate?"
    assert ieee.get("venue") == "Public Choice"


def test_the_year_is_read_outside_a_quoted_title() -> None:
    fields = parse_reference_string(
        "Jialin Zhou, Ying Xu, and Dawei Chen, “Global burden of lung cancer in 2022 and projections to "
        "2050,” Cancer Epidemiol, 2024."
    )
    assert fields.get("year") == 2024


def test_abbreviated_venues_are_read_whole() -> None:
    cases = {
        "Chan, Alan, and Martha White. 2022. “Greedification Operators.” In J. Mach. Learn. Res. "
        "https://jmlr.org/papers/v23/21-054.html.": "J. Mach. Learn. Res",
        "Robbins, Herbert. 1952. “Some Aspects of the Sequential Design.” Bull. Amer. Math. Soc.": (
            "Bull. Amer. Math. Soc"
        ),
        "Luxburg, Ulrike von. 2010. “Clustering Stability.” Found. Trends Mach. Learn.": (
            "Found. Trends Mach. Learn"
        ),
        "Li, Da-Wei, and Rafael Brüschweiler. 2012. “PPM.” J. Biomol. NMR.": "J. Biomol. NMR",
        "Azari, Bahar. 2023. “Correlation Layer.” In Mach. Learn. https://doi.org/10.1007/x.": "Mach. Learn",
        # What follows a venue still ends it: a volume, a publisher in capitals.
        "Smith, J. 2020. “A Title.” In Advances in Neural Information Processing Systems. Vol. 33. Curran.": (
            "Advances in Neural Information Processing Systems"
        ),
        "Smith, J. 2019. “A Title.” In Proc. Int. Conf. Mach. Learn. PMLR.": "Proc. Int. Conf. Mach. Learn",
    }
    for reference, venue in cases.items():
        assert parse_reference_string(reference).get("venue") == venue, reference


def test_an_ellipsis_does_not_end_a_title() -> None:
    fields = parse_reference_string(
        "Laslier, Jean-François. 2012. And the Loser Is. . . Plurality Voting. Springer Berlin Heidelberg."
    )
    assert fields.get("title") == "And the Loser Is. . . Plurality Voting"
    assert fields.get("venue") == "Springer Berlin Heidelberg"


def test_a_year_glued_to_a_title_without_venue_is_the_year() -> None:
    # `plain.bst`'s @misc without howpublished: "Title, 2024." (title_near_miss before).
    for reference, title in {
        "Arindam Mitra, Hamed Khanpour, and Ahmed Awadallah. Orca-math: Unlocking the potential of slms in "
        "grade school math, 2024.": "Orca-math: Unlocking the potential of slms in grade school math",
        "Hannah Bast. How objective is peer review?, 2020.": "How objective is peer review?",
    }.items():
        fields = parse_reference_string(reference)
        assert (fields.get("title"), fields.get("year")) == (title, int(reference[-5:-1])), reference


# --- "———": the authors of the reference above ------------------------------------------------------


def test_a_three_em_dash_takes_the_authors_above() -> None:
    text = (
        "Agarwala, Atish, and Samuel S. Schoenholz. 2022. “Deep Ensembles Work.” In ICML.\n\n"
        "———. 2023. “Unified Discrete Diffusion for Simultaneous Vision-Language Generation.” In ICLR.\n\n"
        "———, et al. 2023b. “Another One.” In AAAI.\n"
    )
    refs = [r for r in iter_plain(text, origin="refs.txt") if isinstance(r, CitedReference)]
    assert [[a.family for a in r.authors] for r in refs] == [["Agarwala", "Schoenholz"]] * 3
    assert refs[1].title == "Unified Discrete Diffusion for Simultaneous Vision-Language Generation"
    assert refs[1].year == 2023 and refs[2].authors_truncated
    assert "authors" in refs[1].heuristic_fields
    markdown = "# References\n\n" + text.replace("“Deep", "“*Deep")
    read = [r for r in iter_markdown(markdown, origin="refs.md") if isinstance(r, CitedReference)]
    assert [[a.family for a in r.authors] for r in read] == [["Agarwala", "Schoenholz"]] * 3


# --- .bbl layout ------------------------------------------------------------------------------------


def test_bbl_misc_and_entries_without_authors() -> None:
    refs = _bbl(
        "\\bibitem{llama}\nMeta.\n\\newblock Llama 3.1 8b, 2024.\n\n"
        "\\bibitem{orca}\nArindam Mitra and Ahmed Awadallah.\n\\newblock Orca-math: Unlocking the potential"
        " of slms in grade school math,\n  2024.\n\n"
        "\\bibitem{txgemma}\nTxgemma: Efficient and agentic llms for therapeutics.\n"
        "\\newblock arXiv preprint arXiv:2504.06196, 2025.\n"
    )
    assert (refs["llama"].title, [a.display for a in refs["llama"].authors], refs["llama"].year) == (
        "Llama 3.1 8b",
        ["Meta"],
        2024,
    )
    assert refs["orca"].title == "Orca-math: Unlocking the potential of slms in grade school math"
    assert (refs["txgemma"].title, refs["txgemma"].authors, refs["txgemma"].arxiv_id) == (
        "Txgemma: Efficient and agentic llms for therapeutics",
        (),
        "2504.06196",
    )


def test_bbl_emphasised_title_is_a_book_and_emphasised_venue_is_the_venue() -> None:
    plain = _bbl(
        "\\bibitem{bishop}\nChristopher~M. Bishop.\n\\newblock {\\em Pattern Recognition and Machine "
        "Learning}.\n\\newblock Springer, 2006.\n\n"
        "\\bibitem{chan}\nAlan Chan and Martha White.\n\\newblock Greedification operators.\n"
        "\\newblock In {\\em J. Mach. Learn. Res.}, 2022.\n\n"
        "\\bibitem{tideman}\nT.~Nicolaus Tideman and Florenz Plassmann.\n\\newblock Which voting rule is "
        "most likely to choose the ``best''' candidate?\n"
        "\\newblock {\\em Public Choice}, 158:331--357, 2014.\n"
    )
    assert (plain["bishop"].entry_type, plain["bishop"].title, plain["bishop"].venue) == (
        "book",
        "Pattern Recognition and Machine Learning",
        "Springer",
    )
    assert plain["chan"].venue == "J. Mach. Learn. Res."
    title = plain["tideman"].title or ""
    assert title.startswith("Which voting rule is most likely to choose the ‘best’") and title.endswith(
        "candidate?"
    )
    assert plain["tideman"].venue == "Public Choice"
    ieeetr = _bbl(
        "\\bibitem{bishop}\nC.~M. Bishop, {\\em Pattern Recognition and Machine Learning}.\n"
        "\\newblock Springer, 2006.\n\n"
        "\\bibitem{chan}\nA.~Chan and M.~White, ``Greedification operators,'' {\\em J. Mach. Learn. Res.},\n"
        "  vol.~23, 2022.\n"
    )
    assert (ieeetr["bishop"].entry_type, ieeetr["bishop"].title) == (
        "book",
        "Pattern Recognition and Machine Learning",
    )
    assert [a.family for a in ieeetr["bishop"].authors] == ["Bishop"]
    assert ieeetr["chan"].venue == "J. Mach. Learn. Res."


# --- what the indexes hold: the signs left in the text ---------------------------------------------


def test_a_software_host_named_in_the_venue_is_out_of_scope() -> None:
    # ieeetr/plain print `howpublished` but no URL: the URL at huggingface.co was the .bib's sign.
    kind = classify_kind(
        _cited(title="Mistral-small-24b-instruct-2501", venue="Hugging Face model repository", year=2025)
    )
    assert kind is not None and kind.out_of_scope
    for title in ("Llama 3 model card", "Llama3.1 communitylicenseagreement"):
        kind = classify_kind(_cited(title=title, authors=(Author(family="Meta"),), year=2024))
        assert kind is not None and kind.out_of_scope, title


def test_a_publisher_for_venue_is_a_book() -> None:
    for venue in ("Springer", "John Wiley & Sons", "Springer Berlin Heidelberg", "Elsevier"):
        cited = _cited(title="The Cross-Entropy Method", venue=venue, year=2004)
        kind = classify_kind(cited)
        assert kind is not None and kind.name == "book" and not kind.out_of_scope, venue
        assert is_book_like(cited)
    for venue in ("Basic Books", "Dover books on advanced mathematics"):
        assert is_book_like(_cited(title="The Book of Why", venue=venue, year=2018)), venue
    # A proceedings publisher where the venue belongs says nothing about a book.
    for venue in ("PMLR", "IEEE", "OpenReview.net"):
        assert classify_kind(_cited(title="A Paper", venue=venue, year=2020)) is None, venue
    # A DOI settles it with the scholarly sources.
    assert classify_kind(_cited(title="A Chapter", venue="Springer", year=2020, doi="10.1007/x")) is None


def test_a_sized_model_or_an_organisation_without_venue_is_partly_indexed() -> None:
    for title in ("Llama 3.1 8b", "Nvidia llama 3.3 70b instruct fp8", "Mistral-small-24b-instruct-2501"):
        kind = classify_kind(_cited(title=title, year=2025))
        assert kind is not None and kind.name == "model release" and not kind.out_of_scope, title
    kind = classify_kind(
        _cited(title="Qwen2.5: A party of foundation models", authors=(Author(family="Qwen Team"),))
    )
    assert kind is not None and not kind.out_of_scope
    # With a venue or an identifier, or by people, they are papers like any other.
    assert classify_kind(_cited(title="Mistral 7b", arxiv_id="2310.06825", year=2023)) is None
    assert classify_kind(_cited(title="Mistral 7b", venue="Journal of Things", year=2023)) is None
    gemma = "Gemma: Open models based on Gemini research and technology"
    smith = (Author(given="Ann", family="Smith"),)
    assert classify_kind(_cited(title=gemma, authors=smith, year=2024)) is None
    # A one-word title names a thing, whoever wrote it (issue 21): searched like a paper, and
    # `unverifiable` rather than `not_found` when no index has it.
    kind = classify_kind(_cited(title="Gemma", authors=smith, year=2024))
    assert kind is not None and kind.outside_indexes and not kind.out_of_scope
