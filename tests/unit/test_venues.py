"""Venues: alias keys, "no venue claim", agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.venues import (
    VenueAlias,
    canonical_venue,
    clean_venue,
    is_no_venue_claim,
    venue_aliases,
    venue_name,
    venue_similarity,
    venues_agree,
)

VENUE_ALIASES = venue_aliases()


@pytest.mark.parametrize(
    ("venue", "key"),
    [
        ("Proceedings of the 40th International Conference on Machine Learning", "icml"),
        ("Proceedings of The 33rd International Conference on Machine Learning", "icml"),
        ("ICML 2023 (Oral)", "icml"),
        ("Int. Conf. Mach. Learn.", "icml"),
        ("NeurIPS 2023", "neurips"),
        ("NeurIPS'23", "neurips"),
        ("Advances in Neural Information Processing Systems 33", "neurips"),
        ("Adv. Neural Inf. Process. Syst.", "neurips"),
        ("Thirty-seventh Conference on Neural Information Processing Systems", "neurips"),
        ("NIPS", "neurips"),
        ("In CVPR", "cvpr"),
        ("2023 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)", "cvpr"),
        ("Computer Vision and Pattern Recognition", "cvpr"),
        ("2023 IEEE/CVF International Conference on Computer Vision (ICCV)", "iccv"),
        ("European Conference on Computer Vision", "eccv"),
        ("Proc. of ACL", "acl"),
        ("Proceedings of the 59th Annual Meeting of the Association for Computational Linguistics", "acl"),
        ("ACL-IJCNLP 2021", "acl"),
        ("Transactions of the Association for Computational Linguistics", "tacl"),
        ("NAACL-HLT", "naacl"),
        ("Findings of the Association for Computational Linguistics: EMNLP 2021", "findings-emnlp"),
        ("Findings of ACL 2023", "findings-acl"),
        ("EMNLP-IJCNLP", "emnlp"),
        ("The Eleventh International Conference on Learning Representations", "iclr"),
        ("Proceedings of the AAAI Conference on Artificial Intelligence", "aaai"),
        ("Proceedings of the International AAAI Conference on Web and Social Media", "icwsm"),
        ("IJCAI-21", "ijcai"),
        ("Proceedings of the 28th ACM SIGKDD Conference on Knowledge Discovery and Data Mining", "kdd"),
        ("Pacific-Asia Conference on Knowledge Discovery and Data Mining", "pakdd"),
        ("WWW '22: Proceedings of the ACM Web Conference 2022", "www"),
        ("SIGIR", "sigir"),
        ("J. Mach. Learn. Res.", "jmlr"),
        ("Journal of Machine Learning Research", "jmlr"),
        ("Trans. Mach. Learn. Res.", "tmlr"),
        ("Mach. Learn.", "mlj"),
        ("IEEE Trans. Pattern Anal. Mach. Intell.", "tpami"),
        ("COLING", "coling"),
        ("Proceedings of the Thirty-Sixth Conference on Uncertainty in Artificial Intelligence", "uai"),
        ("AISTATS", "aistats"),
        ("Conference on Learning Theory", "colt"),
        ("Nature", "nature"),
        ("Science (New York, N.Y.)", "science"),
        ("Proc Natl Acad Sci U S A", "pnas"),
        ("Proceedings of Machine Learning Research", "pmlr"),
        ("JMLR W&CP", "pmlr"),
        # Not in the table, or not the conference itself.
        ("Nature Communications", None),
        ("Science Advances", None),
        ("International Conference on Machine Learning and Applications", None),
        ("International Conference on Algorithmic Learning Theory", None),
        ("Pacific Rim Symposium on Neural Information Systems", None),
        ("NeurIPS Workshop on Adversarial Training", None),
        ("CVPR Workshops", None),
        ("AAAI Spring Symposium", None),
        ("Companion Proceedings of the ACM Web Conference 2023", None),
        ("arXiv preprint arXiv:2106.09685", None),
        (None, None),
    ],
)
def test_canonical_venue(venue: str | None, key: str | None) -> None:
    assert canonical_venue(venue) == key


@pytest.mark.parametrize(
    "venue",
    [
        None,
        "",
        "   ",
        "arXiv",
        "ArXiv",
        "arXiv.org",
        "arXiv preprint arXiv:2106.09685",
        "arXiv e-prints",
        "CoRR",
        "CoRR abs/2103.00020",
        "Computing Research Repository",
        "bioRxiv",
        "medRxiv",
        "SSRN Electronic Journal",
        "Social Science Research Network",
        "preprint",
        "Preprint",
        "Research Square",
        "Under review",
        "Submitted to ICLR 2024",
        "In arXiv",
        "2023",
    ],
)
def test_no_venue_claim(venue: str | None) -> None:
    assert is_no_venue_claim(venue)


@pytest.mark.parametrize(
    "venue",
    [
        "NeurIPS",
        "Nature",
        "Journal of Physics A",
        "Proceedings of Machine Learning Research",
        "Archives of Virology",
    ],
)
def test_venue_claims(venue: str) -> None:
    assert not is_no_venue_claim(venue)


@pytest.mark.parametrize(
    ("a", "b", "agree"),
    [
        ("ICML", "Proceedings of the 40th International Conference on Machine Learning", True),
        ("NIPS", "NeurIPS 2020", True),
        ("Phys. Rev. Lett.", "Physical Review Letters", True),
        ("J. Amer. Statist. Assoc.", "Journal of the American Statistical Association", True),
        ("Proc. IEEE", "Proceedings of the IEEE", True),
        ("Ann. Statist.", "The Annals of Statistics", True),
        ("Computer Vision and Image Understanding (CVIU)", "Computer Vision and Image Understanding", True),
        ("Neural Computing and Aplications", "Neural Computing and Applications", True),
        ("Journal of Physics A", "Journal of Physics B", False),
        (
            "IEEE Transactions on Neural Networks",
            "IEEE Transactions on Neural Networks and Learning Systems",
            False,
        ),
        ("Neural Computation", "Neural Computing and Applications", False),
        ("ICML", "International Conference on Machine Learning Workshops", False),
        ("ICML", "NeurIPS", False),
        ("Findings of EMNLP", "EMNLP", False),
        ("Findings of EMNLP", "Findings of ACL", False),
        ("AISTATS", "PMLR", None),
        ("PMLR", "Proceedings of Machine Learning Research", True),
        ("ECCV", "Proceedings of Machine Learning Research", False),
        ("arXiv", "NeurIPS", None),
        ("", "NeurIPS", None),
        (None, None, None),
    ],
)
def test_venues_agree(a: str | None, b: str | None, agree: bool | None) -> None:
    assert venues_agree(a, b) is agree
    assert venues_agree(b, a) is agree


def test_venue_similarity_values() -> None:
    assert venue_similarity("NeurIPS", "Advances in Neural Information Processing Systems 35") == 1.0
    assert venue_similarity("Pattern Recognition", "Pattern Recognition Letters") == pytest.approx(0.8)
    assert venue_similarity(None, "ICML") == 0.0


def test_clean_venue_drops_edition_noise() -> None:
    assert clean_venue("Proceedings of the 40th International Conference on Machine Learning, 2023") == (
        "international conference on machine learning"
    )
    assert clean_venue("In Proc. of the Thirty-Seventh AAAI Conference") == "aaai conference"


def test_every_alias_key_is_unique_and_named() -> None:
    keys = [alias.key for alias in VENUE_ALIASES]
    assert len(keys) == len(set(keys))
    for key in keys:
        assert venue_name(key)
    assert venue_name("findings-emnlp") == "Findings of EMNLP"
    assert venue_name("no-such-venue") is None


@pytest.mark.parametrize("alias", VENUE_ALIASES, ids=[alias.key for alias in VENUE_ALIASES])
def test_every_alias_maps_its_own_name(alias: VenueAlias) -> None:
    assert canonical_venue(venue_name(alias.key)) == alias.key
    for acronym in alias.acronyms:
        assert canonical_venue(acronym.upper()) == alias.key


# --- properties -------------------------------------------------------------------------------

_VENUE_TEXT = st.sampled_from(
    [
        "ICML",
        "NeurIPS 2021",
        "Proceedings of Machine Learning Research",
        "AISTATS",
        "arXiv",
        "Nature",
        "Nature Communications",
        "Journal of Physics A",
        "J. Phys. A",
        "Phys. Rev. Lett.",
        "Physical Review Letters",
        "NeurIPS Workshop on X",
        "",
        "Findings of ACL",
    ]
) | st.text(max_size=60)


@settings(max_examples=300, deadline=None)
@given(st.none() | _VENUE_TEXT, st.none() | _VENUE_TEXT)
@example("ICML", "PMLR")
@example("J. Phys. A", "Journal of Physics A")
def test_agreement_and_similarity_are_symmetric(a: str | None, b: str | None) -> None:
    assert venues_agree(a, b) == venues_agree(b, a)
    similarity = venue_similarity(a, b)
    assert 0.0 <= similarity <= 1.0
    assert similarity == venue_similarity(b, a)


@settings(max_examples=200, deadline=None)
@given(_VENUE_TEXT)
def test_a_venue_agrees_with_itself_unless_it_claims_nothing(venue: str) -> None:
    agree = venues_agree(venue, venue)
    if is_no_venue_claim(venue):
        assert agree is None
    else:
        assert agree is True


# --- real data (skipped without ../shared) --------------------------------------------------------


@pytest.mark.shared
def test_every_common_hallmark_venue_has_a_key(shared_data: Path) -> None:
    path = shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"
    if not path.is_file():
        pytest.skip("hallmark-dev is absent")
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    valid_venues = {
        str(row["fields"].get("booktitle") or row["fields"].get("journal"))
        for row in rows
        if row["label"] == "VALID" and (row["fields"].get("booktitle") or row["fields"].get("journal"))
    }
    assert valid_venues
    for venue in valid_venues:
        assert is_no_venue_claim(venue) or canonical_venue(venue) is not None, venue
