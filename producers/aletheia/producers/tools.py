"""The client's operations as JSON-schema tool definitions an LLM agent can call (seed 003 §5).

`TOOLS` is a list of `{"name", "description", "input_schema"}` objects (the shape the Anthropic
and OpenAI tool APIs take; the schema is plain JSON Schema), and `call_tool(client, name, args)`
runs one call and returns a JSON-serialisable result. Every `input_schema` is a plain object schema
(`type`, `properties`, `required`): the Anthropic Messages API refuses a top-level `oneOf`, `anyOf`
or `allOf`, so rules between arguments ("exactly one of `paths`, `text`") are said in the
description and checked by `call_tool`, which validates every call against the schema (jsonschema)
before running it and returns a refused call as `{"error": ...}`. An agent loop is:

    result = call_tool(client, block.name, block.input)

Every tool is deterministic: verdicts come from the sources, never from the calling model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aletheia.core.errors import AletheiaError
from aletheia.producers.client import AletheiaClient, JobTimeout

_JOB_ID = {
    "type": "string",
    "description": "A job id returned by a submit tool.",
    "pattern": "^[0-9a-f]{32}$",
}

# A job-submitting tool's own waiting: for the job to settle (`wait`), at most this long.
_WAIT_PROPERTIES: dict[str, Any] = {
    "wait": {"type": "boolean", "default": True},
    "timeout_seconds": {"type": "number", "minimum": 1, "maximum": 3600, "default": 600},
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "submit_bibliography",
        "description": (
            "Queue a bibliography for verification against Crossref, OpenAlex, Semantic Scholar, arXiv "
            "and PubMed. Give exactly one of `paths` (a list of files readable by the service) or "
            "`text` (the bibliography itself, with `filename` naming its format), never both. "
            "Returns the job id at once; use wait_for_job then job_result."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "minItems": 1,
                    "description": "Instead of `text`: BibTeX, .bbl, Markdown, plain reference list, "
                    "CSL-JSON or PDF files.",
                },
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Instead of `paths`: the bibliography itself.",
                },
                "filename": {
                    "type": "string",
                    "minLength": 1,
                    "default": "bibliography.bib",
                    "description": "With `text`: a file name whose extension names the format.",
                },
            },
            # No top-level oneOf/anyOf/allOf: the Messages API takes a plain object schema only.
            # "Exactly one of paths, text" is said in the description and checked in `call_tool`.
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
                "override_reason": {
                    "type": "string",
                    "minLength": 1,
                    "pattern": "\\S",
                    "description": "Only when a human has decided it: accept a triangulation conflict "
                    "(the second source disagreeing on a decisive field) for this reason. The reason is "
                    "recorded in the artifact (human_overridden) and the job's audit trail, and later "
                    "drift audits do not report the accepted disagreement. Nothing else is overridden: "
                    "an excerpt must still be the paper's own words.",
                },
                **_WAIT_PROPERTIES,
            },
            "required": ["claim"],
            "additionalProperties": False,
        },
    },
    {
        "name": "verify_claim_with_search",
        "description": (
            "Check a claim that is not about a paper (an RFC, a standard, a piece of software's "
            "documentation, a web page) against the page itself: the `urls` given, else the pages a web "
            "search finds (when one is configured). Each page is fetched through the SSRF-safe web tier "
            "and judged like a paper: verdict supported / contradicted / not_supported / unreachable / "
            "no_pages, with the deciding excerpt verbatim, its location and why."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "claim": {"type": "string", "minLength": 1},
                "urls": {
                    "type": "array",
                    "items": {"type": "string", "pattern": "^https?://"},
                    "maxItems": 3,
                    "description": "The pages the claim is about (http or https).",
                },
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
                **_WAIT_PROPERTIES,
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


class ToolError(ValueError, AletheiaError):
    """A call the tool definitions do not allow: an unknown tool (raised: the agent loop offered a
    tool that is not in `TOOLS`), or arguments that do not fit the tool's schema (returned to the
    model as `{"error": ...}`, so it can correct the call)."""


def _schema_errors(schema: dict[str, Any], args: Any) -> list[str]:
    """Every way `args` breaks `schema`, one readable line each (`paths: '/x.bib' is not of type
    'array'`), in the order of the arguments."""
    import jsonschema  # imported on the first call: agents' hosts, never the CLI, pay for it

    validator = jsonschema.Draft202012Validator(schema)
    lines = []
    for error in sorted(validator.iter_errors(args), key=lambda e: [str(p) for p in e.absolute_path]):
        where = ".".join(str(p) for p in error.absolute_path)
        lines.append(f"{where}: {error.message}" if where else error.message)
    return lines


def check_arguments(name: str, args: Any) -> str | None:
    """Why the call `name(args)` is refused, or None when its arguments fit the tool's schema and
    the rules a schema cannot say (submit_bibliography: exactly one of `paths`, `text`; the text
    not blank; each path a readable file). Raises `ToolError` for an unknown tool."""
    schema = next((t["input_schema"] for t in TOOLS if t["name"] == name), None)
    if schema is None:
        raise ToolError(f"unknown tool {name!r}; known: {', '.join(sorted(TOOL_NAMES))}")
    if not isinstance(args, dict):
        return f"{name}: the arguments must be a JSON object, not {type(args).__name__}"
    extra = set(args) - set(schema["properties"])
    if extra:
        return f"{name}: unknown argument(s) {', '.join(sorted(extra))}"
    missing = [r for r in schema.get("required", []) if r not in args]
    if missing:
        return f"{name}: missing argument(s) {', '.join(missing)}"
    problems = _schema_errors(schema, args)
    if problems:
        return f"{name}: invalid arguments: " + "; ".join(problems)
    if name == "submit_bibliography":
        return _bibliography_problem(args)
    return None


def _bibliography_problem(args: dict[str, Any]) -> str | None:
    if ("paths" in args) == ("text" in args):
        return "submit_bibliography: give exactly one of `paths` (files) or `text` (the bibliography)"
    if "text" in args:
        # A blank text would make a job of no reference that ends `done`: it reads as a clean run.
        return (
            None if args["text"].strip() else "submit_bibliography: no references found (the text is blank)"
        )
    for index, raw in enumerate(args["paths"]):
        path = Path(raw)
        if not path.exists():
            return f"submit_bibliography: paths[{index}]: no such file: {raw}"
        if not path.is_file():
            return f"submit_bibliography: paths[{index}]: not a regular file (a directory?): {raw}"
    return None


def call_tool(client: AletheiaClient, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run one tool call. Arguments are checked against the tool's schema first; a refused call
    and any error the agent can act on come back as `{"error": ...}` (an unknown tool raises
    `ToolError`)."""
    refused = check_arguments(name, args)
    if refused is not None:
        return {"error": refused}
    try:
        if name == "submit_bibliography":
            if "paths" in args:
                return {"job_id": client.submit(args["paths"])}
            return {"job_id": client.submit_text(args["text"], name=args.get("filename", "bibliography.bib"))}
        if name == "verify_claim":
            return client.verify_claim(
                args["claim"],
                paper=args.get("paper"),
                hint=args.get("hint"),
                override_reason=args.get("override_reason"),
                wait=args.get("wait", True),
                timeout=float(args.get("timeout_seconds", 600)),
            )
        if name == "verify_claim_with_search":
            return client.verify_claim_with_search(args["claim"], urls=list(args.get("urls", [])))
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
    raise ToolError(f"unknown tool {name!r}")  # unreachable: check_arguments knows every name
