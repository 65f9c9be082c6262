"""The client's operations as JSON-schema tool definitions an LLM agent can call (seed 003 §5).

`TOOLS` is a list of `{"name", "description", "input_schema"}` objects (the shape the Anthropic
and OpenAI tool APIs take; the schema is plain JSON Schema), and `call_tool(client, name, args)`
runs one call and returns a JSON-serialisable result, so an agent loop is:

    result = call_tool(client, block.name, block.input)

Every tool is deterministic: verdicts come from the sources, never from the calling model.
"""

from __future__ import annotations

from typing import Any

from aletheia.producers.client import AletheiaClient, JobTimeout

_JOB_ID = {
    "type": "string",
    "description": "A job id returned by a submit tool.",
    "pattern": "^[0-9a-f]{32}$",
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "submit_bibliography",
        "description": (
            "Queue a bibliography for verification against Crossref, OpenAlex, Semantic Scholar, arXiv "
            "and PubMed. Give either file paths readable by the service or the bibliography text. "
            "Returns the job id at once; use wait_for_job then job_result."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "BibTeX, .bbl, Markdown, plain reference list, CSL-JSON or PDF files.",
                },
                "text": {"type": "string", "minLength": 1, "description": "The bibliography itself."},
                "filename": {
                    "type": "string",
                    "default": "bibliography.bib",
                    "description": "With `text`: a file name whose extension names the format.",
                },
            },
            "oneOf": [{"required": ["paths"]}, {"required": ["text"]}],
            "additionalProperties": False,
        },
    },
    {
        "name": "verify_claim",
        "description": (
            "Check a factual claim against the literature and cite the works that support it. Waits for "
            "the result unless wait is false (then returns the job id)."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "claim": {"type": "string", "minLength": 1},
                "paper": {
                    "type": "string",
                    "minLength": 1,
                    "description": "A DOI, arXiv id or PMID: judge this paper for the claim and never "
                    "substitute another (cited only if its own words support the claim).",
                },
                "hint": {"type": "string", "description": "Author, year, venue: a search hint only."},
                "wait": {"type": "boolean", "default": True},
                "timeout_seconds": {"type": "number", "minimum": 1, "maximum": 3600, "default": 600},
            },
            "required": ["claim"],
            "additionalProperties": False,
        },
    },
    {
        "name": "validate_research",
        "description": (
            "Check a research text (Markdown, LaTeX or plain text): find the claims that need a "
            "citation (complexity bounds, 'proven', 'optimal', 'state of the art', numbers with units) "
            "and every sentence that cites a paper, verify the citations against the sources, judge each "
            "cited sentence against the paper it cites (judgement: supported, contradicted, unsupported, "
            "unchecked, with the deciding excerpt verbatim, its location and why; a contradicted or "
            "unsupported one is status 'contradicted' / 'unsupported_by_paper' and makes exit_code 1), "
            "and for each claim without a citation search for one the pipeline can verify (or say 'no "
            "verified citation found'). Waits for the report unless wait is false (then returns the job "
            "id)."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 1, "description": "The research text."},
                "filename": {
                    "type": "string",
                    "default": "document.md",
                    "description": "A file name whose extension names the format (.md, .tex, .txt).",
                },
                "bibliography": {
                    "type": "string",
                    "description": "The text's BibTeX (or reference list); default: the text's own list.",
                },
                "suggest": {"type": "boolean", "default": True},
                "max_suggestions": {"type": "integer", "minimum": 0, "maximum": 200, "default": 20},
                "max_judgements": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 500,
                    "default": 50,
                    "description": "Judge at most this many (sentence, cited paper) pairs; past it a "
                    "cited claim's judgement is 'unchecked'.",
                },
                "wait": {"type": "boolean", "default": True},
                "timeout_seconds": {"type": "number", "minimum": 1, "maximum": 3600, "default": 600},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
    },
    {
        "name": "find_unsupported_claims",
        "description": (
            "List the sentences of a research text that make a strong claim (complexity bound, "
            "'proven', 'optimal', 'state of the art', 'outperforms', a number with a unit, 'first to') "
            "and carry no citation. Pure and fast: no sources are asked, no job is created."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 1},
                "format": {"type": "string", "enum": ["markdown", "latex", "plain"]},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
    },
    {
        "name": "sweep_repositories",
        "description": (
            "Re-verify every citation artifact (docs/citations/*.md) and bibliography in each repository "
            "directory, with one report per repository. Returns the job id."
        ),
        "input_schema": {
            "type": "object",
            "properties": {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            "required": ["paths"],
            "additionalProperties": False,
        },
    },
    {
        "name": "job_status",
        "description": "The state of a job: queued, running, done or failed, with item counts by verdict.",
        "input_schema": {
            "type": "object",
            "properties": {"job_id": _JOB_ID},
            "required": ["job_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "wait_for_job",
        "description": "Wait until a job is done or failed (or the timeout passes) and return its status.",
        "input_schema": {
            "type": "object",
            "properties": {
                "job_id": _JOB_ID,
                "timeout_seconds": {"type": "number", "minimum": 1, "maximum": 3600, "default": 600},
            },
            "required": ["job_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "job_result",
        "description": (
            "The report of a finished job: a summary and, per reference, the verdict (verified, "
            "metadata_error, not_found, fabricated, retracted, ...), the reasons, the field-by-field "
            "evidence and the corrected values."
        ),
        "input_schema": {
            "type": "object",
            "properties": {"job_id": _JOB_ID},
            "required": ["job_id"],
            "additionalProperties": False,
        },
    },
]

TOOL_NAMES = frozenset(t["name"] for t in TOOLS)


class ToolError(ValueError):
    """A call the tool definitions do not allow (unknown tool, missing or extra arguments)."""


def _check(name: str, args: dict[str, Any]) -> None:
    schema = next((t["input_schema"] for t in TOOLS if t["name"] == name), None)
    if schema is None:
        raise ToolError(f"unknown tool {name!r}; known: {', '.join(sorted(TOOL_NAMES))}")
    if not isinstance(args, dict):
        raise ToolError("arguments must be an object")
    extra = set(args) - set(schema["properties"])
    if extra:
        raise ToolError(f"{name}: unknown argument(s) {', '.join(sorted(extra))}")
    missing = [r for r in schema.get("required", []) if r not in args]
    if missing:
        raise ToolError(f"{name}: missing argument(s) {', '.join(missing)}")


def call_tool(client: AletheiaClient, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run one tool call; errors the agent can act on come back as `{"error": ...}`."""
    _check(name, args)
    try:
        if name == "submit_bibliography":
            if ("paths" in args) == ("text" in args):
                raise ToolError("submit_bibliography: give exactly one of paths, text")
            if "paths" in args:
                return {"job_id": client.submit(args["paths"])}
            return {"job_id": client.submit_text(args["text"], name=args.get("filename", "bibliography.bib"))}
        if name == "verify_claim":
            return client.verify_claim(
                args["claim"],
                paper=args.get("paper"),
                hint=args.get("hint"),
                wait=args.get("wait", True),
                timeout=float(args.get("timeout_seconds", 600)),
            )
        if name == "validate_research":
            options: dict[str, Any] = {
                "name": args.get("filename", "document.md"),
                "suggest": args.get("suggest", True),
                "max_suggestions": int(args.get("max_suggestions", 20)),
                "max_judgements": int(args.get("max_judgements", 50)),
            }
            if args.get("bibliography"):
                options["bibliography"] = args["bibliography"]
            return client.validate_research(
                args["text"],
                wait=args.get("wait", True),
                timeout=float(args.get("timeout_seconds", 600)),
                **options,
            )
        if name == "find_unsupported_claims":
            claims = client.find_unsupported_claims(args["text"], fmt=args.get("format"))
            return {"count": len(claims), "claims": claims}
        if name == "sweep_repositories":
            return {"job_id": client.sweep(args["paths"])}
        if name == "job_status":
            return client.status(args["job_id"])
        if name == "wait_for_job":
            return client.wait(args["job_id"], timeout=float(args.get("timeout_seconds", 600)))
        if name == "job_result":
            return client.result(args["job_id"])
    except JobTimeout as exc:
        return {"error": str(exc), "status": exc.status}
    except (LookupError, ValueError, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    raise ToolError(f"unknown tool {name!r}")  # unreachable: _check knows every name
