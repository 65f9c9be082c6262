"""The `ai_generated_suspect` heuristics (core/tortured.py, core/paper_mill.py): constructed
cases for each indicator and for the firing rule, the table's own checks, and the signal in a
reference's report entry (the verdict stands)."""

from __future__ import annotations

import json
from importlib import resources

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.authorship import AuthorshipCheck, AuthorWorks
from aletheia.core.paper_mill import WorkText, ai_generated_signal, has_methods_section, other_indicators
from aletheia.core.signals import SignalKind
from aletheia.core.tortured import TorturedTable, find_tortured, tortured_table

TABLE = json.loads((resources.files("aletheia.core") / "data" / "tortured_phrases.json").read_text("utf-8"))
ENTRIES = TABLE["entries"]

# A paper-mill abstract in the style the published lists document (constructed).
SPUN = (
    "Bosom peril location utilizing Profound-Learning: we train an irregular woodland and a "
    "convolutional neural organization on colossal information; counterfeit consciousness helps."
)
# OpenAlex author records of a two-author work: both new (one work each), or one established.
NEW_AUTHORS = AuthorshipCheck(
    source="openalex",
    asked=("A1", "A2"),
    found=(AuthorWorks(id="A1", name="X. Unknown", works_count=1), AuthorWorks(id="A2", works_count=0)),
)
ESTABLISHED = NEW_AUTHORS.model_copy(
    update={"found": (AuthorWorks(id="A1", works_count=1), AuthorWorks(id="A2", works_count=37))}
)
INCOMPLETE = NEW_AUTHORS.model_copy(update={"found": (AuthorWorks(id="A1", works_count=1),)})

GENUINE = (
    "Breast cancer detection using deep learning: we train a random forest and a convolutional "
    "neural network on big data; support learning with tools; artificial intelligence helps."
)


def test_the_table_has_provenance_and_every_entry_its_expected_term() -> None:
    assert "Cabanac" in TABLE["provenance"]["described_in"]
    assert len(tortured_table()) >= 200
    assert all(e["phrase"] and e["expected"] for e in ENTRIES)
    phrases = [e["phrase"] for e in ENTRIES]
    assert len(phrases) == len(set(phrases))


def test_no_expected_term_is_itself_a_tortured_phrase() -> None:
    # The genuine terms never match: the precision the table is built for.
    assert [e["expected"] for e in ENTRIES if find_tortured(e["expected"])] == []
    assert find_tortured(GENUINE) == []


def test_phrases_found_whole_words_folded_and_counted() -> None:
    found = {m.phrase: (m.expected, m.count) for m in find_tortured(SPUN + " Profound learning again.")}
    assert found["bosom peril"] == ("breast cancer", 1)
    assert found["profound learning"] == ("deep learning", 2)  # hyphen and case folded
    assert found["convolutional neural organization"][0] == "convolutional neural network"
    assert "irregular woodland" in found and "counterfeit consciousness" in found
    # Whole words only: no match inside a longer word.
    assert find_tortured("unprofound learnings") == []


@given(st.text(alphabet=st.characters(categories=("Ll", "Zs")), max_size=60))
def test_a_table_finds_only_its_phrases(text: str) -> None:
    table = TorturedTable({"irregular woodland": "random forest"})
    assert all(m.phrase == "irregular woodland" for m in table.find(text))
    assert table.find(f"{text} irregular woodland {text}") != []


def test_two_tortured_phrases_fire_alone_with_the_evidence() -> None:
    signal = ai_generated_signal(WorkText(parts={"title": "Irregular woodland for bosom peril"}))
    assert signal is not None and signal.kind is SignalKind.AI_GENERATED_SUSPECT
    ev = signal.evidence
    assert ev["indicators"] == ["tortured_phrases"]
    assert {p["phrase"] for p in ev["tortured_phrases"]} == {"irregular woodland", "bosom peril"}
    assert ev["tortured_phrases"][0]["where"] == ["title"]
    assert "random forest" in ev["explanation"] and "the verdict stands" in ev["explanation"]


def test_one_indicator_alone_does_not_fire() -> None:
    assert ai_generated_signal(WorkText(parts={"title": "An irregular woodland approach"})) is None
    theory = WorkText(parts={"full_text": "..."}, headings=("Introduction", "Main result", "Remarks"))
    assert ai_generated_signal(theory) is None
    assert ai_generated_signal(WorkText(), listed_venue="fixture list") is None
    assert ai_generated_signal(WorkText(), authorship=NEW_AUTHORS) is None


def test_two_indicators_of_different_kinds_fire() -> None:
    one_phrase = WorkText(parts={"abstract": "We use profound learning."})
    signal = ai_generated_signal(one_phrase, listed_venue="fixture list")
    assert signal is not None
    assert signal.evidence["indicators"] == ["tortured_phrases", "lower_tier_venue"]
    no_methods = WorkText(parts={"full_text": "x"}, headings=("Introduction", "Discussion", "Conclusion"))
    signal = ai_generated_signal(no_methods, authorship=NEW_AUTHORS)
    assert signal is not None
    assert signal.evidence["indicators"] == ["no_methods_section", "authorship_not_found_elsewhere"]
    assert signal.evidence["sections"] == ["Introduction", "Discussion", "Conclusion"]
    # The counts are the evidence, each with the index that gave it.
    assert signal.evidence["authors"] == [
        {"id": "A1", "name": "X. Unknown", "works_count": 1, "source": "openalex"},
        {"id": "A2", "name": None, "works_count": 0, "source": "openalex"},
    ]
    assert "no author has another work" in signal.evidence["explanation"]


def test_authorship_without_evidence_is_no_indicator() -> None:
    no_methods = WorkText(parts={"full_text": "x"}, headings=("Introduction", "Discussion", "Conclusion"))
    assert ai_generated_signal(no_methods, authorship=None) is None
    assert ai_generated_signal(no_methods, authorship=ESTABLISHED) is None  # one author has 37 works
    # An author the index did not return is no evidence that the set is unknown.
    assert ai_generated_signal(no_methods, authorship=INCOMPLETE) is None
    assert ai_generated_signal(no_methods, authorship=AuthorshipCheck(source="openalex", asked=())) is None


def test_the_authorship_rule_reads_every_asked_author() -> None:
    assert NEW_AUTHORS.found_elsewhere() is False
    assert ESTABLISHED.found_elsewhere() is True
    assert INCOMPLETE.found_elsewhere() is None
    one_other = (AuthorWorks(id="A1", works_count=2), NEW_AUTHORS.found[1])
    two_works = NEW_AUTHORS.model_copy(update={"found": one_other})
    assert two_works.found_elsewhere() is True  # this work and one other: found elsewhere


def test_other_indicators_say_when_the_authors_are_worth_asking_about() -> None:
    assert other_indicators(WorkText(parts={"abstract": GENUINE})) == []
    assert other_indicators(WorkText(parts={"abstract": "We use profound learning."})) == ["tortured_phrases"]
    assert other_indicators(WorkText(), listed_venue="fixture list") == ["lower_tier_venue"]


def test_methods_like_sections_are_broad_and_need_three_headings() -> None:
    assert has_methods_section(["1 Introduction", "2. Materials and Methods"])
    assert has_methods_section(["Introduction", "Proof of the main result"])
    assert has_methods_section(["Introduction", "Experimental Setup"])
    assert not has_methods_section(["Introduction", "Discussion", "Conclusion"])
    short = WorkText(parts={"title": "Bosom peril"}, headings=("Introduction", "Conclusion"))
    assert ai_generated_signal(short, listed_venue="x") is not None  # phrase + venue, not the headings
    assert "sections" not in (ai_generated_signal(short, listed_venue="x") or {"evidence": {}}).evidence  # type: ignore[union-attr]


def test_reference_entry_carries_the_signal_and_the_verdict_stands() -> None:
    from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
    from aletheia.core.records import CitedReference, SourceName, WorkRecord
    from aletheia.core.verdicts import Verdict, VerdictStatus
    from aletheia.pipeline.evidence.outcome import ReferenceOutcome
    from aletheia.pipeline.reports.formats import reference_json

    record = WorkRecord(source=SourceName.OPENALEX, title="Bosom peril location", doi="10.9/x", abstract=SPUN)
    answer = SourceAnswer(
        source=SourceName.OPENALEX,
        kind=QueryKind.DOI,
        query="10.9/x",
        outcome=Outcome.FOUND,
        records=(record,),
    )
    verdict = Verdict(status=VerdictStatus.VERIFIED, match=record)
    out = ReferenceOutcome(
        cited=CitedReference(key="k", title="Bosom peril location"),
        verdict=verdict,
        evidence=Evidence(answers=(answer,)),
        raw=[],
    )
    obj = reference_json(out)
    assert obj["verdict"] == "verified"
    [signal] = [s for s in obj["signals"] if s["kind"] == "ai_generated_suspect"]
    assert signal["evidence"]["checked"] == ["abstract", "title"]
    assert {p["phrase"] for p in signal["evidence"]["tortured_phrases"]} >= {
        "bosom peril",
        "irregular woodland",
    }


def test_headings_found_in_markdown_latex_numbered_and_named_lines() -> None:
    from aletheia.core.paper_mill import headings_in_text

    lines = [
        "# A title",
        "## 2. Materials and Methods",
        r"\section{Results} and text",
        "1 Introduction",
        "2.1 Data collection",
        "IV. RESULTS",
        "Conclusion",
        "A sentence that happens to end here. 3 words.",
        "3 The 1000 cats",  # a number of three digits: a line of a table, not a heading
        "and",
    ]
    assert headings_in_text(lines) == (
        "A title",
        "2. Materials and Methods",
        "Results",
        "1 Introduction",
        "2.1 Data collection",
        "IV. RESULTS",
        "Conclusion",
    )
