"""What a sentence does, as data (pure; read by `claim_judge`, versioned with its rules by
`claim_judge_rules.JUDGE_RULES_VERSION`): a sentence that states an aim, a hypothesis, an
uncertainty or a call for research asserts nothing, and one that attributes its statement to other
works reports their finding, not its own. Either can share every word with a claim; neither
supports it. Each cue is a phrase of consecutive tokens.
"""

from __future__ import annotations

from typing import Final

# A sentence that states an aim, a question or a method asserts nothing: it cannot support a claim
# ("OBJECTIVE To determine whether X reduces Y" shares every word with "X reduces Y").
NON_ASSERTION_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "objective",
        "objectives",
        "aim",
        "aims",
        "aimed",
        "purpose",
        "to determine",
        "to evaluate",
        "to assess",
        "to examine",
        "to investigate",
        "to explore",
        "to test",
        "to compare",
        "to identify",
        "to delineate",
        "to address",
        "we investigated",
        "we examined",
        "we asked",
        "we sought",
        "we tested",
        "we hypothesize",
        "we hypothesise",
        "we hypothesized",
        "we hypothesised",
        "hypothesis",
        "we propose that",
        "we speculate",
        # A hypothesis or a belief the paper reports, not a finding it makes.
        "proposed to",
        "is proposed",
        "are proposed",
        "has been proposed",
        "have been proposed",
        "thought to",
        "is thought",
        "are thought",
        "believed to",
        "is believed",
        "are believed",
        "postulated",
        "has been suggested",
        "have been suggested",
        "it has been suggested",
        "hypothesized to",
        "hypothesised to",
        "predicted to",
        # A call for research reports none.
        "more research",
        "further research",
        "further studies",
        "further study",
        "further investigation",
        "future research",
        "future studies",
        "whether",
        "remains unknown",
        "remain unknown",
        "is unknown",
        "are unknown",
        "remains unclear",
        "is unclear",
        "poorly understood",
        "little is known",
        # Uncertainty the paper reports is no finding ("has remained controversial").
        "controversial",
        "debated",
        "remains to be",
        "remain to be",
        "eligibility criteria",
        "question",
    )
)

# A sentence that attributes its statement to other works ("(Geisler et al., 2010)", "were recently
# reported", "the studies noted above") reports their finding, not its own: the paper to cite is
# the one it cites. Unlike an aim, the claim saying "reported" too does not make it the paper's.
ATTRIBUTION_CUES: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(text.split())
    for text in (
        "et al",
        "recently reported",
        "previously reported",
        "has been reported",
        "have been reported",
        "previously shown",
        "previous studies",
        "previous reports",
        "studies noted above",
        "is considered",
        "are considered",
        "is widely considered",
    )
)

# A part of a sentence before a comma that opens with one of these is a fronted adverbial ("In the
# absence of TNF, granuloma formation was accelerated"): it belongs to the clause after the comma,
# and a negation in it ("absence of") is read with that clause (claim_statement._clauses; 1.4.0).
FRONTED_PREPOSITIONS: Final = frozenset(
    {
        "in", "on", "at", "with", "without", "after", "before", "during", "among", "amongst", "for",
        "from", "despite", "unlike", "under", "upon", "within", "across", "following", "through",
        "throughout",
    }
)  # fmt: skip

# A structured abstract's heading that opens a sentence on the study's design ("DESIGN, SETTING,
# AND PATIENTS Retrospective analysis of ..."): the sentence describes what was done, not what was
# found (1.4.0). Capitals as printed: "Design" inside a sentence is a word, not a heading. Background
# headings are not among them: a paper's background may state what its results confirm.
STUDY_HEADINGS: Final = (
    "DESIGN", "SETTING", "SETTINGS", "PARTICIPANTS", "PATIENTS", "METHODS",
    "METHOD", "INTERVENTION", "INTERVENTIONS", "MAIN OUTCOME MEASURE", "MAIN OUTCOME MEASURES",
    "MEASUREMENTS", "MATERIALS AND METHODS", "STUDY DESIGN", "DATA SOURCES", "STUDY SELECTION",
    "DATA EXTRACTION", "ELIGIBILITY CRITERIA",
)  # fmt: skip
