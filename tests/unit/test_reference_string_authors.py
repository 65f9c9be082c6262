"""Issue 20: author lists read from reference strings, and how sure the reading is.

Chicago and MLA invert only the first author ("Lin, Zhiyuan Jerry, Raul Astudillo, and Eytan
Bakshy"): read as a comma list, that is four authors "Lin", "Zhiyuan Jerry", ... and a false major
author error on more than half of a pandoc-rendered list. A list whose split admits another reading
is marked `authors_uncertain`, and `decide` never makes a disagreement on it a major error.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.bibliography.plain import parse_reference_string, reference_from_string


def _families(reference: str) -> list[str | None]:
    return [a.family for a in parse_reference_string(reference).get("authors", ())]


def test_chicago_inverted_first_author_is_one_author() -> None:
    fields = parse_reference_string(
        "Lin, Zhiyuan Jerry, Raul Astudillo, Peter Frazier, and Eytan Bakshy. 2024. “Preference Learning "
        "for Multi-Objective Decisions.” In Proceedings of the 41st International Conference on Machine "
        "Learning."
    )
    authors = fields.get("authors", ())
    assert [a.family for a in authors] == ["Lin", "Astudillo", "Frazier", "Bakshy"]
    assert authors[0].given == "Zhiyuan Jerry"
    assert not fields.get("authors_uncertain")


def test_chicago_and_mla_with_initials_and_two_authors() -> None:
    for reference in (
        "Zicha, J., J. Křeček, and H. Dlouhá. 1982. “Age-Dependent Salt Hypertension.” Annals 394: 330–342.",
        "Zicha, J., J. Křeček, and H. Dlouhá. “Age-Dependent Salt Hypertension.” Annals 394 (1982): 330–342.",
    ):
        assert _families(reference) == ["Zicha", "Křeček", "Dlouhá"]
    assert _families("Suresh, M.R., and C. Milstein. 1985. “A Direct Assay.” Anal. Biochem. 151: 192.") == [
        "Suresh",
        "Milstein",
    ]
    # A compound surname is anchored by the initial that ends the given names.
    assert _families(
        "Abdul Salam, Vahitha B., Ka H. Lao, and Hilda Tsang. 2012. “Chloride Channels.” Circ. 5: 1."
    ) == ["Abdul Salam", "Lao", "Tsang"]
    # MLA: the first author and "et al.".
    fields = parse_reference_string(
        "Gray, Stacy W. et al. “Colon Cancer Patient Information.” Cancer 115.7 (2009)."
    )
    assert [a.family for a in fields.get("authors", ())] == ["Gray"] and fields.get("authors_truncated")


def test_apa_ellipsis_cuts_the_list() -> None:
    fields = parse_reference_string(
        "Swanson, D. E., Reich, C., Abbas, A., Shimpi, T., Liu, H., Ponce, F. A., … Holman, Z. C. (2018). "
        "CdCl2 passivation of polycrystalline CdMgTe. Journal of Applied Physics, 123(20), 203101."
    )
    assert [a.family for a in fields.get("authors", ())] == [
        "Swanson",
        "Reich",
        "Abbas",
        "Shimpi",
        "Liu",
        "Ponce",
    ]
    assert fields.get("authors_truncated") is True


def test_unambiguous_shapes_are_certain() -> None:
    for reference in (
        "Suresh, M. R., & Milstein, C. (1985). A direct assay. Analytical Biochemistry, 151(1), 192–195.",
        "[4] M. R. Suresh and C. Milstein, “A direct assay,” Analytical Biochemistry, vol. 151, 1985.",
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A Pretrained Language Model. In EMNLP.",
        "(1) Suresh, M. R.; Milstein, C. Analytical Biochemistry 1985, 151, 192–195.",
        "Patton GC, Selzer R, Coffey C. Onset of eating disorders. Br Med J. 1999;318:765–8.",
    ):
        fields = parse_reference_string(reference)
        assert fields.get("authors") and not fields.get("authors_uncertain"), reference


def test_ambiguous_splits_are_marked_uncertain() -> None:
    # "Family, Given" pairs with full given names, or single words: pairs or one-word authors?
    for reference in (
        "Zhang, Wei, Li, Na, Wang, Fang. 2019. A study of things. Journal of Things, 3, 1–9.",
        "Lin, Zhiyuan Jerry, Astudillo, Raul. 2024. Preference learning. In ICML.",
    ):
        fields = parse_reference_string(reference)
        assert fields.get("authors") and fields.get("authors_uncertain") is True, reference
    cited = reference_from_string(
        "Zhang, Wei, Li, Na, Wang, Fang. 2019. A study of things. Journal of Things, 3, 1–9.",
        key="1",
        origin="refs.txt:1",
    )
    assert cited.authors_uncertain is True


_GIVEN = st.from_regex(r"[A-Z][a-z]{2,8}", fullmatch=True)
_INITIAL = st.from_regex(r"[A-Z]\.", fullmatch=True)
_FAMILY = st.from_regex(r"[A-Z][a-z]{2,10}(?:-[A-Z][a-z]{2,8})?", fullmatch=True)
_PERSON = st.tuples(st.lists(st.one_of(_GIVEN, _INITIAL), min_size=1, max_size=3), _FAMILY)
_NOT_NAMES = {"And", "The", "Van", "Von", "Der", "Den", "Del", "Da", "Di", "Du", "Le", "La", "Dos", "Al"}


@settings(max_examples=150, deadline=None)
@given(st.lists(_PERSON, min_size=1, max_size=7))
@example(
    [(["Zhiyuan", "Jerry"], "Lin"), (["Raul"], "Astudillo"), (["Peter"], "Frazier"), (["Eytan"], "Bakshy")]
)
@example([(["M.", "R."], "Suresh"), (["C."], "Milstein")])
def test_chicago_inverted_lists_read_back(people: list[tuple[list[str], str]]) -> None:
    """Chicago author-date renders the first author inverted, the others given-first, "and" before
    the last: every generated list reads back as the same surnames, in order."""
    if any(word in _NOT_NAMES for given_names, family in people for word in (*given_names, family)):
        return
    names = [f"{people[0][1]}, {' '.join(people[0][0])}"] + [f"{' '.join(g)} {f}" for g, f in people[1:]]
    if len(names) == 1:
        authors = names[0]
    elif len(names) == 2:
        authors = f"{names[0]}, and {names[1]}"
    else:
        authors = ", ".join(names[:-1]) + f", and {names[-1]}"
    reference = f"{authors.rstrip('.')}. 2021. “A Title of Some Length.” Journal of Things 3 (2): 1–9."
    fields = parse_reference_string(reference)
    assert [a.family for a in fields.get("authors", ())] == [family for _, family in people]
    assert not fields.get("authors_uncertain")
