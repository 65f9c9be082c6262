"""Citation artifacts (seed 000 §6): slugs, the frontmatter schema, render/parse, the excerpt rule."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from aletheia.core.artifacts import (
    DECISIVE_FIELDS,
    SLUG_MAX_LENGTH,
    ArtifactBody,
    ArtifactFormatError,
    ArtifactFrontmatter,
    ArtifactPathError,
    ArtifactUrls,
    CitationArtifact,
    Excerpt,
    OverriddenConflict,
    Triangulation,
    artifact_path,
    excerpt_verifies,
    frontmatter_from_record,
    parse_artifact,
    render_artifact,
    slug_for_paper,
    slug_for_record,
    title_keyword,
    validate_slug,
)
from aletheia.core.records import Author, RetractionKind, SourceName, WorkRecord
from aletheia.core.render import body_from_record

SOK_TITLE = "SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning"
SOK_AUTHORS = [
    ("Heyi", "Zhang"),
    ("Yule", "Liu"),
    ("Xinlei", "He"),
    ("Jun", "Wu"),
    ("Tianshuo", "Cong"),
    ("Xinyi", "Huang"),
]
SOK_CLAIM = "FLPoison canonical headliner set includes ALIE, Fang, sign-flip"
VERIFIED_AT = datetime(2026, 5, 23, 17, 42, tzinfo=UTC)

# The frontmatter values of the seed's example (seed 000 §6.2), typed out by hand.
SEED_FRONTMATTER = """
title: "SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning"
authors: [Heyi Zhang, Yule Liu, Xinlei He, Jun Wu, Tianshuo Cong, Xinyi Huang]
year: 2025
venue: "arXiv preprint"
venue_full: null
arxiv_id: "2502.03801"
doi: null
urls:
  abs: https://arxiv.org/abs/2502.03801
  pdf: https://arxiv.org/pdf/2502.03801
  html: https://arxiv.org/html/2502.03801
sources_consulted: [semantic_scholar, openalex]
triangulation:
  primary_source: semantic_scholar
  secondary_source: openalex
  decisive_fields_agreed: true
  decisive_fields_checked: [title, first_author_surname, year, arxiv_id]
  notes: []
single_source_verified: false
verified_by: aletheia
verified_at: "2026-05-23T17:42:00Z"
verification_version: "1.0"
human_overridden: false
override_reason: null
claim_supported: "FLPoison canonical headliner set includes ALIE, Fang, sign-flip"
"""

SEED_EXCERPTS = [
    Excerpt(
        text="We evaluate 15 representative poisoning attacks and 17 defense\n"
        "strategies in a unified benchmark...",
        location="Abstract, paragraph 2",
    ),
    Excerpt(
        text="Our headliner attack set includes ALIE [Baruch et al. 2019],\n"
        "Fang [Fang et al. 2020], and sign-flipping...",
        location="Section 3.1, p. 4",
    ),
]


def sok_record() -> WorkRecord:
    return WorkRecord(
        source=SourceName.ARXIV,
        title=SOK_TITLE,
        authors=tuple(Author(given=g, family=f) for g, f in SOK_AUTHORS),
        year=2025,
        arxiv_id="2502.03801",
        is_preprint=True,
        work_type="preprint",
        abstract="Federated learning is vulnerable to poisoning attacks.",
    )


def seed_triangulation() -> Triangulation:
    return Triangulation(
        primary_source=SourceName.SEMANTIC_SCHOLAR,
        secondary_source=SourceName.OPENALEX,
        decisive_fields_agreed=True,
        decisive_fields_checked=["title", "first_author_surname", "year", "arxiv_id"],
    )


def seed_artifact() -> CitationArtifact:
    record = sok_record()
    front = frontmatter_from_record(
        record,
        sources_consulted=[SourceName.SEMANTIC_SCHOLAR, SourceName.OPENALEX],
        triangulation=seed_triangulation(),
        verified_at=VERIFIED_AT,
        verification_version="1.0",
        claim_supported=SOK_CLAIM,
    )
    return CitationArtifact(frontmatter=front, body=body_from_record(record, SEED_EXCERPTS))


def frontmatter_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "title": SOK_TITLE,
        "authors": ["Heyi Zhang"],
        "year": 2025,
        "arxiv_id": "2502.03801",
        "sources_consulted": ["semantic_scholar", "openalex"],
        "triangulation": {
            "primary_source": "semantic_scholar",
            "secondary_source": "openalex",
            "decisive_fields_agreed": True,
        },
        "verified_at": VERIFIED_AT,
        "verification_version": "1.0",
    }
    fields.update(overrides)
    return fields


def frontmatter_text(text: str) -> str:
    return text.split("\n---\n", 1)[0].removeprefix("---\n")


# --- the seed's example ----------------------------------------------------------------------------


def test_seed_example_frontmatter_has_the_seed_values() -> None:
    rendered = yaml.safe_load(frontmatter_text(render_artifact(seed_artifact())))
    expected = yaml.safe_load(SEED_FRONTMATTER)
    for key, value in expected.items():
        assert rendered[key] == value, key
    # The additions beyond the seed, at their defaults.
    assert rendered["pmid"] is None
    assert rendered["retraction_status"] is None
    assert rendered["text_excerpts_unavailable"] is False


def test_seed_example_has_the_seed_comment_headers_and_fences() -> None:
    text = render_artifact(seed_artifact())
    assert text.startswith("---\n# === Identity (verbatim from API; never LLM-generated) ===\ntitle: ")
    for header in (
        "# === Resolvable URLs ===",
        "# === Verification trail (Aletheia-populated) ===",
        "# === Human override (optional) ===",
        "# === Claim linkage (LLM-generated; supported by verbatim excerpts below) ===",
    ):
        assert f"\n{header}\n" in text
    assert "\n# === Identifiers (at least one of arxiv_id, doi required" in text
    assert "\nsources_consulted: [semantic_scholar, openalex]\n" in text
    assert '\nverified_at: "2026-05-23T17:42:00Z"\n' in text
    assert '\n  - "Heyi Zhang"\n' in text


def test_seed_example_body_sections() -> None:
    text = render_artifact(seed_artifact())
    body = text.split("\n---\n", 1)[1]
    headers = [line for line in body.split("\n") if line.startswith("## ")]
    assert headers == ["## Abstract", "## Excerpts supporting the claim", "## Citation snippet", "## BibTeX"]
    assert (
        '> "We evaluate 15 representative poisoning attacks and 17 defense\n'
        '> strategies in a unified benchmark..."\n'
        "> (Abstract, paragraph 2)\n"
        "\n"
        '> "Our headliner attack set includes ALIE [Baruch et al. 2019],\n'
        '> Fang [Fang et al. 2020], and sign-flipping..."\n'
        "> (Section 3.1, p. 4)\n"
    ) in body
    assert (
        "## Citation snippet\n\n"
        "Heyi Zhang, Yule Liu, Xinlei He, Jun Wu, Tianshuo Cong, Xinyi Huang. "
        "*SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning*. "
        "arXiv:2502.03801 (2025).\n"
    ) in body
    assert (
        "## BibTeX\n\n```bibtex\n@article{zhang2025sok,\n"
        "  title={SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning},\n"
        "  author={Zhang, Heyi and Liu, Yule and He, Xinlei and Wu, Jun"
        " and Cong, Tianshuo and Huang, Xinyi},\n"
        "  journal={arXiv preprint arXiv:2502.03801},\n"
        "  year={2025},\n"
    ) in body
    assert body.endswith("}\n```\n")


def test_seed_example_round_trips() -> None:
    artifact = seed_artifact()
    assert parse_artifact(render_artifact(artifact)) == artifact


def _top_level_keys(text: str) -> list[str]:
    return [line.split(":", 1)[0] for line in text.split("\n") if re.match(r"[a-z_]+:", line)]


def test_frontmatter_groups_cover_every_field_once() -> None:
    # `overridden_conflicts` is written only when an override accepted something (below).
    top_level_keys = _top_level_keys(frontmatter_text(render_artifact(seed_artifact())))
    assert sorted(top_level_keys) == sorted(set(ArtifactFrontmatter.model_fields) - {"overridden_conflicts"})


def test_accepted_conflicts_are_written_under_the_override() -> None:
    artifact = seed_artifact()
    front = artifact.frontmatter.model_copy(
        update={
            "human_overridden": True,
            "override_reason": "S2 has a stale author list",
            "overridden_conflicts": [
                OverriddenConflict(
                    field="first_author_surname", source=SourceName.ARXIV, recorded="Zhang", accepted="Liu"
                )
            ],
        }
    )
    overridden = artifact.model_copy(update={"frontmatter": front})
    text = render_artifact(overridden)
    assert sorted(_top_level_keys(frontmatter_text(text))) == sorted(ArtifactFrontmatter.model_fields)
    assert (
        'override_reason: "S2 has a stale author list"\noverridden_conflicts:\n'
        "  - field: first_author_surname\n    source: arxiv\n"
    ) in text
    assert parse_artifact(text) == overridden


def test_accepted_conflicts_need_an_override() -> None:
    conflict = {"field": "year", "source": "openalex", "recorded": "2024", "accepted": "2025"}
    assert "overridden_conflicts" in schema_error(overridden_conflicts=[conflict])
    assert "field" in schema_error(
        human_overridden=True, override_reason="AJ", overridden_conflicts=[{**conflict, "field": "venue"}]
    )


def test_frontmatter_from_a_published_record() -> None:
    record = WorkRecord(
        source=SourceName.CROSSREF,
        title="Robust Aggregation for Federated Learning",
        authors=(Author(given="Krishna", family="Pillutla"), Author(literal="The FL Consortium")),
        year=2022,
        venue="IEEE Transactions on Signal Processing",
        work_type="journal-article",
        doi="10.1109/tsp.2022.3153135",
        urls={"landing": "https://ieeexplore.ieee.org/document/9721118", "pdf": "ftp://not-http/x.pdf"},
    )
    front = frontmatter_from_record(
        record,
        sources_consulted=[SourceName.CROSSREF, SourceName.OPENALEX],
        triangulation=Triangulation(
            primary_source=SourceName.CROSSREF,
            secondary_source=SourceName.OPENALEX,
            decisive_fields_agreed=True,
        ),
        verified_at=VERIFIED_AT,
        verification_version="1.0",
    )
    assert front.venue == "IEEE Transactions on Signal Processing"
    assert front.authors == ["Krishna Pillutla", "The FL Consortium"]
    assert front.urls == ArtifactUrls(
        abs="https://ieeexplore.ieee.org/document/9721118", doi="https://doi.org/10.1109/tsp.2022.3153135"
    )
    untitled = record.model_copy(update={"title": None})
    with pytest.raises(ValidationError, match="title"):
        frontmatter_from_record(
            untitled,
            sources_consulted=[SourceName.CROSSREF],
            triangulation=Triangulation(primary_source=SourceName.CROSSREF, decisive_fields_agreed=True),
            verified_at=VERIFIED_AT,
            verification_version="1.0",
        )


# --- slugs --------------------------------------------------------------------------------------------


def test_seed_slug_examples_with_their_mnemonic_keywords() -> None:
    # The seed's keywords are hand-picked mnemonics (benchmark, method and rule names).
    assert (
        slug_for_paper(
            doi=None, arxiv_id="2502.03801", first_author_surname="Zhang", title=SOK_TITLE, keyword="FLPoison"
        )
        == "2502.03801-zhang-flpoison"
    )
    assert (
        slug_for_paper(
            doi="10.1109/TSP.2022.3153135",
            arxiv_id=None,
            first_author_surname="Pillutla",
            title="Robust Aggregation for Federated Learning",
            keyword="RFA",
        )
        == "10.1109_tsp.2022.3153135-pillutla-rfa"
    )
    krum = slug_for_paper(
        doi=None,
        arxiv_id=None,
        first_author_surname="Blanchard",
        title="Machine Learning with Adversaries: Byzantine Tolerant Gradient Descent",
        keyword="krum",
    )
    assert re.fullmatch(r"noid-blanchard-krum-[0-9a-f]{4}", krum)


def test_slug_keyword_is_the_first_significant_title_word() -> None:
    assert slug_for_record(sok_record()) == "2502.03801-zhang-sok"
    assert title_keyword("The Byzantine Generals Problem") == "byzantine"
    assert title_keyword("On the Convergence of FedAvg on Non-IID Data") == "convergence"
    assert title_keyword("A 3D U-Net for segmentation") == "3d"
    assert title_keyword(r"{\"U}ber die Elektrodynamik bewegter K{\"o}rper") == "uber"
    assert title_keyword("L'apprentissage fédéré") == "apprentissage"
    assert title_keyword(None) == "untitled"
    assert re.fullmatch(r"u[0-9a-f]{6}", title_keyword("联邦学习中的投毒攻击"))


def test_slug_identifier_forms_agree() -> None:
    plain = slug_for_paper(doi=None, arxiv_id="2502.03801", first_author_surname="Zhang", title=SOK_TITLE)
    for spelling in ("arXiv:2502.03801v2", "https://arxiv.org/abs/2502.03801v1", " 2502.03801 "):
        assert (
            slug_for_paper(doi=None, arxiv_id=spelling, first_author_surname="Zhang", title=SOK_TITLE)
            == plain
        )
    doi_plain = slug_for_paper(
        doi="10.1109/tsp.2022.3153135", arxiv_id=None, first_author_surname="P", title="x y"
    )
    doi_url = slug_for_paper(
        doi="https://doi.org/10.1109/TSP.2022.3153135", arxiv_id=None, first_author_surname="P", title="x y"
    )
    assert doi_plain == doi_url
    # arXiv wins over the DOI; an old-style id keeps its archive.
    assert slug_for_paper(
        doi="10.1/x", arxiv_id="hep-th/9901001", first_author_surname="Witten", title="Anti de Sitter"
    ) == ("hep-th_9901001-witten-anti")
    # An identifier that does not parse is ignored.
    assert slug_for_paper(
        doi="not a doi", arxiv_id="2513.00001", first_author_surname="Z", title="Deep"
    ).startswith("noid-z-deep-")


def test_slug_surnames_are_folded_to_ascii_or_hashed() -> None:
    def surname_part(surname: str) -> str:
        return slug_for_paper(
            doi="10.1000/x", arxiv_id=None, first_author_surname=surname, title="Deep"
        ).split("-")[1]

    assert surname_part("Hegedűs") == "hegedus"
    assert surname_part("García-Pérez") == "garciaperez"
    assert surname_part("van der Maaten") == "vandermaaten"
    assert surname_part("Łukasiewicz") == "lukasiewicz"
    assert re.fullmatch(r"u[0-9a-f]{6}", surname_part("张"))
    assert surname_part("张") != surname_part("王")
    assert (
        slug_for_paper(doi="10.1000/x", arxiv_id=None, first_author_surname=None, title="Deep")
        == "10.1000_x-anon-deep"
    )
    organisation = WorkRecord(
        source=SourceName.CROSSREF,
        title="Observation of a new boson",
        doi="10.1000/h",
        authors=(Author(literal="The ATLAS Collaboration"),),
    )
    assert slug_for_record(organisation) == "10.1000_h-atlascollaboration-observation"


def test_slug_for_unusual_dois_stays_distinct() -> None:
    sici = slug_for_paper(
        doi="10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0",
        arxiv_id=None,
        first_author_surname="Smith",
        title="Citation analysis",
    )
    assert validate_slug(sici) == sici
    other = slug_for_paper(
        doi="10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI5>3.0.CO;2-0",
        arxiv_id=None,
        first_author_surname="Smith",
        title="Citation analysis",
    )
    assert sici != other


def test_long_slugs_are_cut_with_a_hash() -> None:
    long_doi = "10.1000/" + "a" * 150
    slug = slug_for_paper(doi=long_doi, arxiv_id=None, first_author_surname="Smith", title="Deep")
    assert len(slug) <= SLUG_MAX_LENGTH
    other = slug_for_paper(doi=long_doi + "b", arxiv_id=None, first_author_surname="Smith", title="Deep")
    assert slug != other
    assert re.search(r"-[0-9a-f]{4}$", slug)


@pytest.mark.parametrize(
    "slug",
    [
        "",
        "..",
        "../etc/passwd",
        "a/../../b",
        "/etc/passwd",
        "a/b",
        "a\\b",
        "C:\\x",
        "a\x00b",
        ".hidden",
        "a..b",
        "Zhang",
        "ｚｈａｎｇ",  # fullwidth look-alikes
        "zhang\u200b",  # zero-width space
        "zhāng",
        "a b",
        "a\nb",
        "-a",
        "a.",
        "con",
        "nul.md",
        "lpt1",
        "x" * (SLUG_MAX_LENGTH + 1),
    ],
)
def test_hostile_slugs_are_rejected(slug: str) -> None:
    with pytest.raises(ArtifactPathError):
        validate_slug(slug)
    with pytest.raises(ArtifactPathError):
        artifact_path(slug)


def test_artifact_path() -> None:
    assert artifact_path("2502.03801-zhang-sok") == "docs/citations/2502.03801-zhang-sok.md"
    assert artifact_path("x1", citations_dir="citations") == "citations/x1.md"
    for directory in ("/abs", "../up", "docs/../..", "docs//x", "", "docs\\x"):
        with pytest.raises(ArtifactPathError):
            artifact_path("x1", citations_dir=directory)


optional_text = st.none() | st.text(max_size=200)


@settings(max_examples=300)
@given(
    doi=optional_text,
    arxiv_id=optional_text,
    surname=optional_text,
    title=optional_text,
    keyword=optional_text,
)
@example(doi="10.1000/..a", arxiv_id=None, surname="..", title="..", keyword=None)
@example(doi="10.1000/-._", arxiv_id=None, surname=None, title=None, keyword="...")
@example(doi=None, arxiv_id=None, surname="\u0130", title="\u0301", keyword="\x00")
def test_slug_is_always_safe_and_deterministic(
    doi: str | None, arxiv_id: str | None, surname: str | None, title: str | None, keyword: str | None
) -> None:
    slug = slug_for_paper(
        doi=doi, arxiv_id=arxiv_id, first_author_surname=surname, title=title, keyword=keyword
    )
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*", slug)
    assert ".." not in slug
    assert len(slug) <= SLUG_MAX_LENGTH
    assert validate_slug(slug) == slug
    again = slug_for_paper(
        doi=doi, arxiv_id=arxiv_id, first_author_surname=surname, title=title, keyword=keyword
    )
    assert again == slug


# --- the schema -----------------------------------------------------------------------------------------


def schema_error(**overrides: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        ArtifactFrontmatter(**frontmatter_fields(**overrides))
    return str(caught.value)


def test_valid_frontmatter_builds() -> None:
    front = ArtifactFrontmatter(**frontmatter_fields())
    assert front.verified_by == "aletheia"
    assert front.single_source_verified is False


def test_an_identifier_is_required_unless_single_source() -> None:
    message = schema_error(arxiv_id=None)
    assert "arxiv_id" in message and "doi" in message
    single = ArtifactFrontmatter(
        **frontmatter_fields(
            arxiv_id=None,
            sources_consulted=["semantic_scholar"],
            triangulation={
                "primary_source": "semantic_scholar",
                "decisive_fields_agreed": True,
                "notes": ["no_secondary_source_available"],
            },
            single_source_verified=True,
        )
    )
    assert single.triangulation.secondary_source is None
    assert ArtifactFrontmatter(**frontmatter_fields(arxiv_id=None, pmid="31452104")).pmid == "31452104"


def test_single_source_flag_matches_the_triangulation() -> None:
    assert "single_source_verified" in schema_error(single_source_verified=True)


def test_override_needs_a_reason_and_a_reason_needs_an_override() -> None:
    assert "override_reason" in schema_error(human_overridden=True)
    assert "override_reason" in schema_error(human_overridden=True, override_reason="  ")
    assert "override_reason" in schema_error(override_reason="because")
    overridden = ArtifactFrontmatter(
        **frontmatter_fields(
            human_overridden=True,
            override_reason="S2 lists the workshop version; AJ confirmed",
            triangulation={
                "primary_source": "semantic_scholar",
                "secondary_source": "openalex",
                "decisive_fields_agreed": False,
            },
        )
    )
    assert overridden.human_overridden


def test_disagreeing_decisive_fields_need_an_override() -> None:
    message = schema_error(
        triangulation={
            "primary_source": "semantic_scholar",
            "secondary_source": "openalex",
            "decisive_fields_agreed": False,
        }
    )
    assert "decisive_fields_agreed" in message and "human_overridden" in message


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"titel": "typo"}, "titel"),
        ({"title": "   "}, "title"),
        ({"arxiv_id": "2502.03801v2"}, "arxiv_id"),
        ({"arxiv_id": "arXiv:2502.03801"}, "arxiv_id"),
        ({"arxiv_id": "not-an-id"}, "arxiv_id"),
        ({"doi": "https://doi.org/10.1109/TSP.2022.3153135"}, "doi"),
        ({"doi": "10.1109/tsp.2022.3153135."}, "doi"),
        ({"pmid": "0123"}, "pmid"),
        ({"year": "2025"}, "year"),
        ({"year": 25}, "year"),
        ({"verified_at": datetime(2026, 5, 23, 17, 42)}, "verified_at"),
        ({"sources_consulted": []}, "sources_consulted"),
        ({"sources_consulted": ["semantic_scholar", "google_scholar"]}, "sources_consulted"),
        ({"sources_consulted": ["openalex"]}, "sources_consulted"),
        ({"sources_consulted": ["semantic_scholar", "openalex", "openalex"]}, "sources_consulted"),
        ({"single_source_verified": "yes"}, "single_source_verified"),
        ({"urls": {"abs": "javascript:alert(1)"}}, "urls.abs"),
        ({"urls": {"landing": "https://x.org"}}, "urls.landing"),
        ({"authors": ["Heyi Zhang", ""]}, "authors.1"),
        ({"claim_supported": ""}, "claim_supported"),
        ({"retraction_status": "gone"}, "retraction_status"),
        (
            {
                "triangulation": {
                    "primary_source": "openalex",
                    "secondary_source": "openalex",
                    "decisive_fields_agreed": True,
                }
            },
            "secondary_source",
        ),
        (
            {
                "triangulation": {
                    "primary_source": "semantic_scholar",
                    "secondary_source": "openalex",
                    "decisive_fields_agreed": True,
                    "decisive_fields_checked": ["title", "venue"],
                }
            },
            "decisive_fields_checked",
        ),
    ],
)
def test_schema_violations_name_the_field(overrides: dict[str, Any], field: str) -> None:
    assert field in schema_error(**overrides)


def test_verified_at_is_stored_in_utc_to_the_second() -> None:
    local = datetime(2026, 5, 23, 19, 42, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    front = ArtifactFrontmatter(**frontmatter_fields(verified_at=local))
    assert front.verified_at == VERIFIED_AT
    assert front.verified_at.tzinfo == UTC
    assert front.model_dump(mode="json")["verified_at"] == "2026-05-23T17:42:00Z"
    parsed = ArtifactFrontmatter(**frontmatter_fields(verified_at="2026-05-23T17:42:00Z"))
    assert parsed.verified_at == VERIFIED_AT


def test_body_rules() -> None:
    with pytest.raises(ValidationError, match="location"):
        Excerpt(text="quote", location="line one\nline two")
    with pytest.raises(ValidationError, match="text"):
        Excerpt(text=" \n ", location="p. 1")
    body = ArtifactBody(abstract="", citation_snippet="Z. *T*.", bibtex="@misc{k,\n}")
    assert body.abstract is None
    assert ArtifactBody(abstract="a\r\nb\rc", citation_snippet="s", bibtex="b").abstract == "a\nb\nc"
    with pytest.raises(ValidationError, match="citation_snippet"):
        ArtifactBody(citation_snippet=" ", bibtex="b")


def test_lone_surrogates_are_refused() -> None:
    with pytest.raises(ValidationError, match="surrogate"):
        Excerpt(text="bad \ud800 text", location="p. 1")
    assert "surrogate" in schema_error(title="bad \udfff title")


def test_a_supported_claim_always_needs_a_verbatim_excerpt() -> None:
    """Issue 19: no artifact without an excerpt, full text or not; without full text the excerpts
    are the abstract's own sentences, located in it."""
    front = ArtifactFrontmatter(**frontmatter_fields(claim_supported=SOK_CLAIM))
    empty = ArtifactBody(citation_snippet="s", bibtex="b", abstract="We prove a bound. It is tight.")
    with pytest.raises(ValidationError, match="claim_supported"):
        CitationArtifact(frontmatter=front, body=empty)
    unavailable = front.model_copy(update={"text_excerpts_unavailable": True})
    with pytest.raises(ValidationError, match="claim_supported"):
        CitationArtifact(frontmatter=unavailable, body=empty)
    from_abstract = empty.model_copy(update={"excerpts": [Excerpt(text="It is tight.", location="Abstract")]})
    assert CitationArtifact(frontmatter=unavailable, body=from_abstract).body.excerpts
    elsewhere = empty.model_copy(update={"excerpts": [Excerpt(text="It is tight.", location="p. 1")]})
    with pytest.raises(ValidationError, match="location 'Abstract'"):
        CitationArtifact(frontmatter=unavailable, body=elsewhere)
    invented = empty.model_copy(update={"excerpts": [Excerpt(text="It is loose.", location="Abstract")]})
    with pytest.raises(ValidationError, match="not found verbatim"):
        CitationArtifact(frontmatter=unavailable, body=invented)
    # Without a claim (a bibliography artifact) nothing is required.
    plain = front.model_copy(update={"claim_supported": None})
    assert CitationArtifact(frontmatter=plain, body=empty).body.excerpts == []


# --- parsing: strict, with named problems ---------------------------------------------------------------


def rendered_seed() -> str:
    return render_artifact(seed_artifact())


def parse_error(text: str) -> str:
    with pytest.raises(ArtifactFormatError) as caught:
        parse_artifact(text)
    return str(caught.value)


def test_parse_rejects_missing_or_unterminated_frontmatter() -> None:
    text = rendered_seed()
    assert "missing frontmatter" in parse_error(text.removeprefix("---\n"))
    assert "missing frontmatter" in parse_error("\n" + text)
    assert "unterminated" in parse_error("---\ntitle: x\n")


def test_parse_reports_yaml_errors_with_the_line() -> None:
    text = rendered_seed().replace('venue: "arXiv preprint"', "venue: arXiv: preprint", 1)
    line = next(number for number, content in enumerate(text.split("\n"), 1) if content.startswith("venue: "))
    message = parse_error(text)
    assert "not valid YAML" in message
    assert f"line {line}," in message


def test_parse_rejects_non_mapping_and_duplicate_keys() -> None:
    assert "mapping" in parse_error("---\n- a\n- b\n---\n")
    duplicated = rendered_seed().replace("year: 2025\n", "year: 2025\nyear: 2024\n", 1)
    assert "'year' appears twice" in parse_error(duplicated)


def test_parse_names_schema_errors() -> None:
    text = rendered_seed()
    assert "frontmatter.year" in parse_error(text.replace("year: 2025", 'year: "soon"', 1))
    assert "frontmatter.titel" in parse_error(text.replace("title:", "titel:", 1))
    assert "frontmatter: override_reason: required" in parse_error(
        text.replace("human_overridden: false", "human_overridden: true")
    )


def test_parse_refuses_unsafe_yaml_tags() -> None:
    text = rendered_seed().replace(
        'venue: "arXiv preprint"', "venue: !!python/object/apply:os.system [echo hi]", 1
    )
    assert "not valid YAML" in parse_error(text)


@pytest.mark.parametrize(
    "header", ["## Abstract", "## Excerpts supporting the claim", "## Citation snippet", "## BibTeX"]
)
def test_parse_names_a_missing_section(header: str) -> None:
    text = rendered_seed().replace(f"\n{header}\n", "\n", 1)
    assert f"missing section {header!r}" in parse_error(text)


def test_parse_rejects_malformed_excerpts_and_bibtex() -> None:
    text = rendered_seed()
    assert "quote blocks" in parse_error(text.replace("> (Abstract, paragraph 2)", "(Abstract, paragraph 2)"))
    assert "(location)" in parse_error(text.replace("> (Abstract, paragraph 2)\n", "", 1))
    assert "double quotes" in parse_error(text.replace('> "We evaluate', "> We evaluate", 1))
    assert "BibTeX" in parse_error(text.removesuffix("```\n"))
    assert "BibTeX" in parse_error(text.replace("```bibtex", "```", 1))
    assert "before '## Abstract'" in parse_error(text.replace("\n## Abstract\n", "\nstray\n## Abstract\n", 1))


def test_parse_accepts_crlf_line_endings() -> None:
    artifact = seed_artifact()
    assert parse_artifact(render_artifact(artifact).replace("\n", "\r\n")) == artifact


def test_prose_that_looks_like_structure_round_trips() -> None:
    tricky = (
        "## BibTeX\n# heading\n\\## escaped already\n```\n~~~\n---\n> quote\n"
        '"quoted" *markdown* [link](x)\n\n\nend\n'
    )
    artifact = seed_artifact()
    body = artifact.body.model_copy(
        update={
            "abstract": tricky,
            "citation_snippet": tricky,
            "excerpts": [Excerpt(text=tricky, location="(p. 1)")],
            "bibtex": "@misc{k,\n  note={```` and ``` }\n}\n## Abstract\n",
        }
    )
    changed = artifact.model_copy(update={"body": body})
    text = render_artifact(changed)
    assert parse_artifact(text) == changed
    # Only the real headers start a line with `## `; the last one is inside the BibTeX code block.
    headers = [line for line in text.split("\n") if line.startswith("## ")]
    assert headers == [
        "## Abstract",
        "## Excerpts supporting the claim",
        "## Citation snippet",
        "## BibTeX",
        "## Abstract",
    ]


@pytest.mark.parametrize(
    "word", ["null", "yes", "no", "on", "off", "true", "y", "n", "nan", "inf", "aletheia"]
)
def test_yaml_lookalike_words_stay_strings(word: str) -> None:
    artifact = seed_artifact()
    front = artifact.frontmatter.model_copy(
        update={"title": word, "authors": [word], "venue": word, "verification_version": word}
    )
    changed = artifact.model_copy(update={"frontmatter": front})
    assert parse_artifact(render_artifact(changed)) == changed


def test_empty_abstract_and_no_excerpts_round_trip() -> None:
    artifact = seed_artifact()
    front = artifact.frontmatter.model_copy(update={"claim_supported": None})
    body = artifact.body.model_copy(update={"abstract": None, "excerpts": []})
    bare = CitationArtifact(frontmatter=front, body=body)
    text = render_artifact(bare)
    assert "## Abstract\n\n## Excerpts supporting the claim\n\n## Citation snippet\n" in text
    assert parse_artifact(text) == bare


# --- the round trip over generated artifacts -------------------------------------------------------------

# Arbitrary Unicode, weighted towards what could break the format: line breaks of every kind,
# quotes, `>`, `#`, backticks, YAML indicators, NUL, BOM, astral characters.
TRICKY = list("\n\r\t \"'>#`~-\\:{}[]|&*!%@,\x00\x85\u2028\ufeff\U0001f600é中")
text = st.text(st.sampled_from(TRICKY) | st.characters(codec="utf-8"), max_size=80)
non_blank = text.filter(lambda s: bool(s.strip()))
one_line = non_blank.filter(lambda s: "\n" not in s and "\r" not in s)
urls = st.builds(lambda path: "https://example.org/" + path, st.text("abcxyz019-._~/?=&%", max_size=20))
sources = st.lists(st.sampled_from(list(SourceName)), min_size=1, max_size=4, unique=True)


@st.composite
def artifacts(draw: st.DrawFn) -> CitationArtifact:
    consulted = draw(sources)
    primary = consulted[0]
    secondary = consulted[1] if len(consulted) > 1 and draw(st.booleans()) else None
    overridden = draw(st.booleans())
    identifiers = draw(
        st.fixed_dictionaries(
            {
                "arxiv_id": st.sampled_from([None, "2502.03801", "hep-th/9901001", "0704.0001"]),
                "doi": st.sampled_from(
                    [
                        None,
                        "10.1109/TSP.2022.3153135",
                        "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0",
                    ]
                ),
                "pmid": st.sampled_from([None, "31452104"]),
            }
        )
    )
    if secondary is not None and not any(identifiers.values()):
        identifiers["doi"] = "10.1000/xyz"
    excerpts_unavailable = draw(st.booleans())
    if excerpts_unavailable:
        # No full text: the excerpts are the abstract's own words, located in it (issue 19).
        abstract = draw(st.none() | non_blank)
        excerpts = [Excerpt(text=abstract, location="Abstract")] if abstract and draw(st.booleans()) else []
    else:
        abstract = draw(st.none() | text)
        excerpts = draw(st.lists(st.builds(Excerpt, text=non_blank, location=one_line), max_size=3))
    claim = draw(st.none() | non_blank)
    if claim is not None and not excerpts:
        claim = None
    front = ArtifactFrontmatter(
        title=draw(non_blank),
        authors=draw(st.lists(non_blank, max_size=4)),
        year=draw(st.none() | st.integers(1000, 2999)),
        venue=draw(st.none() | text),
        venue_full=draw(st.none() | text),
        urls=ArtifactUrls(abs=draw(st.none() | urls), pdf=draw(st.none() | urls), doi=draw(st.none() | urls)),
        sources_consulted=consulted,
        triangulation=Triangulation(
            primary_source=primary,
            secondary_source=secondary,
            decisive_fields_agreed=True if not overridden else draw(st.booleans()),
            decisive_fields_checked=draw(st.lists(st.sampled_from(DECISIVE_FIELDS), unique=True)),
            notes=draw(st.lists(non_blank, max_size=3)),
        ),
        single_source_verified=secondary is None,
        verified_by=draw(st.sampled_from(["aletheia", "Aletheia 2.0 (CI)"])),
        verified_at=draw(
            st.datetimes(
                min_value=datetime(2000, 1, 1),
                max_value=datetime(2100, 1, 1),
                timezones=st.sampled_from(
                    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
                ),
            )
        ),
        verification_version=draw(non_blank),
        retraction_status=draw(st.none() | st.sampled_from(list(RetractionKind))),
        human_overridden=overridden,
        override_reason=draw(non_blank) if overridden else None,
        overridden_conflicts=draw(
            st.lists(
                st.builds(
                    OverriddenConflict,
                    field=st.sampled_from(DECISIVE_FIELDS),
                    source=st.sampled_from(list(SourceName)),
                    recorded=st.none() | text,
                    accepted=st.none() | text,
                ),
                max_size=2,
            )
        )
        if overridden
        else [],
        claim_supported=claim,
        text_excerpts_unavailable=excerpts_unavailable,
        **identifiers,
    )
    body = ArtifactBody(
        abstract=abstract,
        excerpts=excerpts,
        citation_snippet=draw(non_blank),
        bibtex=draw(non_blank),
    )
    return CitationArtifact(frontmatter=front, body=body)


@settings(max_examples=200, deadline=None)
@given(artifacts())
def test_render_then_parse_is_lossless(artifact: CitationArtifact) -> None:
    text = render_artifact(artifact)
    assert parse_artifact(text) == artifact
    assert text.encode("utf-8")  # always storable
    assert "\r" not in text


# --- the verbatim-excerpt rule --------------------------------------------------------------------------


def test_excerpt_verifies_after_whitespace_normalisation() -> None:
    paper = (
        "We evaluate 15 representative poisoning attacks and 17 defense\n  strategies in a unified\tbenchmark"
    )
    assert excerpt_verifies(
        "We evaluate 15 representative poisoning attacks and 17 defense strategies", paper
    )
    assert excerpt_verifies("defense\nstrategies   in a unified benchmark", paper)
    assert not excerpt_verifies("We evaluate 16 representative poisoning attacks", paper)
    assert not excerpt_verifies("defensestrategies", paper)  # whitespace is collapsed, not removed
    assert not excerpt_verifies("   \n", paper)
    assert not excerpt_verifies("", paper)
