"""The Anthropic tool definitions of the claim pipeline's model (`reasoner.ModelReasoner`, and
`tools.ClaimTools` for a model that drives the tools itself): the five tools of seed 000 §4.1, and
the three the model answers through (structured output). Data only: a schema changes without a
line of the reasoner changing.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["SUBMIT_CLAIM", "SUBMIT_EXCERPTS", "SUBMIT_RANKING", "TOOL_DEFINITIONS"]

TOOL_DEFINITIONS: Final[dict[str, dict[str, Any]]] = {
    "extract_claim": {
        "name": "extract_claim",
        "description": "Distil the single assertion in a text that needs an academic source, with "
        "search queries for it.",
        "input_schema": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "hint": {"type": ["string", "null"]}},
            "required": ["text"],
        },
    },
    "search_papers": {
        "name": "search_papers",
        "description": "Search Semantic Scholar (and OpenAlex) for papers; returns up to 10 candidates "
        "with paper_id, title, first author, year, identifiers and abstract.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "keywords, not a sentence"},
                "year_hint": {"type": ["integer", "null"]},
            },
            "required": ["query"],
        },
    },
    "fetch_paper_text": {
        "name": "fetch_paper_text",
        "description": "The paper's text: arXiv HTML, else its PDF, else only its abstract.",
        "input_schema": {
            "type": "object",
            "properties": {"paper_id": {"type": "string"}},
            "required": ["paper_id"],
        },
    },
    "match_evidence": {
        "name": "match_evidence",
        "description": "Check quotes against the paper's text; only verbatim quotes are kept, each "
        "with where it was found.",
        "input_schema": {
            "type": "object",
            "properties": {
                "paper_id": {"type": "string"},
                "claim": {"type": "string"},
                "excerpts": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["paper_id", "claim"],
        },
    },
    "triangulate": {
        "name": "triangulate",
        "description": "Cross-check the paper's identity (DOI, arXiv id, title, first author, year) "
        "against a second source.",
        "input_schema": {
            "type": "object",
            "properties": {"paper_id": {"type": "string"}},
            "required": ["paper_id"],
        },
    },
}

# Tools the model answers through (structured output), not tools that do anything.
SUBMIT_CLAIM: Final = {
    "name": "submit_claim",
    "description": "Record the assertion to ground and the search queries for it.",
    "input_schema": {
        "type": "object",
        "properties": {
            "assertion": {"type": "string"},
            "queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "year_hint": {"type": ["integer", "null"]},
        },
        "required": ["assertion", "queries"],
    },
}
SUBMIT_RANKING: Final = {
    "name": "submit_ranking",
    "description": "Submit the paper_ids of candidates whose abstract supports the claim, best first. "
    "An empty list means none does.",
    "input_schema": {
        "type": "object",
        "properties": {"paper_ids": {"type": "array", "items": {"type": "string"}}},
        "required": ["paper_ids"],
    },
}
SUBMIT_EXCERPTS: Final = {
    "name": "submit_excerpts",
    "description": "Submit up to 3 quotes copied character for character from the paper text that "
    "support the claim. An empty list means the text does not support it.",
    "input_schema": {
        "type": "object",
        "properties": {"excerpts": {"type": "array", "items": {"type": "string"}, "maxItems": 5}},
        "required": ["excerpts"],
    },
}
