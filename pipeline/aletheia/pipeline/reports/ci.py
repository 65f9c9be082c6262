"""Reports for the places people already look: a Markdown pull-request comment, GitHub workflow
annotations on the .bib line, SARIF 2.1.0 for code-scanning upload, and JUnit XML for CI test
reports. Each points at the file and line the reference came from (its `origin`) and says what is
wrong, how we know and what to change (report_advice)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote
from xml.etree import ElementTree as ET

from aletheia.pipeline.reports.advice import (
    CHECK,
    NOTHING,
    OPTIONAL,
    REMOVE,
    REPLACE,
    Attention,
    Explanation,
    attention,
    explain,
)
from aletheia.pipeline.reports.transparency import summary_transparency_line

LEVELS = {REMOVE: "error", REPLACE: "error", CHECK: "warning", OPTIONAL: "notice", NOTHING: None}
SARIF_LEVELS = {"error": "error", "warning": "warning", "notice": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://github.com/aletheia-citations/aletheia"


def _relative(file: str | None) -> str:
    """A repository-relative path where the file is under the working directory (annotations and
    SARIF locations are relative to the checkout)."""
    if not file:
        return "stdin"
    path = Path(file)
    if path.is_absolute():
        for base in (os.environ.get("GITHUB_WORKSPACE"), str(Path.cwd())):
            if base:
                try:
                    return path.relative_to(base).as_posix()
                except ValueError:
                    continue
    return path.as_posix()


def full_text(ex: Explanation) -> str:
    """The three answers as plain text (annotation and failure bodies)."""
    lines = []
    if ex.wrong:
        lines.append("What is wrong: " + "; ".join(ex.wrong) + ".")
    if ex.how:
        lines.append("How we know: " + "; ".join(ex.how) + ".")
    if ex.notes:
        lines.append("Also: " + "; ".join(ex.notes) + ".")
    fix = ex.fix.text + (" (" + "; ".join(ex.fix.changes) + ")" if ex.fix.changes else "")
    lines.append("What to change: " + fix + ".")
    if ex.fix.bibtex:
        lines.append(ex.fix.bibtex.rstrip())
    return "\n".join(lines)


class _Collecting:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.explanations: list[Explanation] = []

    def reference(self, obj: dict[str, Any]) -> None:
        self.explanations.append(explain(obj))


# --- Markdown: a pull-request comment --------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


def md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def _where(ex: Explanation) -> str:
    return f"{_relative(ex.file)}:{ex.line}" if ex.line else _relative(ex.file)


def markdown_report(summary: dict[str, Any], explanations: list[Explanation]) -> str:
    att = attention(summary, explanations)
    out = [f"## Aletheia: {md(att.headline)}", ""]
    if att.partial:
        out += [f"> [!WARNING]\n> {md(att.sources_line())} Those verdicts are not final.", ""]
    groups = [
        (REMOVE, "To remove"),
        (REPLACE, "To correct"),
        (CHECK, "To check by hand"),
        (OPTIONAL, "Optional fixes"),
    ]
    for kind, title in groups:
        items = [e for e in explanations if e.fix.kind == kind]
        if not items:
            continue
        out += [f"### {title} ({len(items)})", ""]
        for ex in items:
            label = md(ex.label) + (f" · {md(ex.transparency)}" if ex.transparency else "")
            out.append(f"**`{ex.key.replace('`', '')}`** · `{_where(ex).replace('`', '')}` · {label}")
            cited = ex.cited.get("title") or ex.cited.get("raw") or ""
            if cited:
                out.append(f"<br>*{md(cited)}*")
            out.append("")
            if ex.wrong:
                out.append("- **What is wrong:** " + md("; ".join(ex.wrong)))
            for d in ex.diffs:
                cited_md = "".join(
                    f"**{md(r['text'])}**" if r["differs"] else md(r["text"]) for r in d["cited"]
                )
                found_md = "".join(
                    f"**{md(r['text'])}**" if r["differs"] else md(r["text"]) for r in d["found"]
                )
                out.append(f"  - {md(d['label'])}: cited {cited_md} — {md(d['says'])} {found_md}")
            if ex.how:
                out.append("- **How we know:** " + md("; ".join(ex.how)))
            if ex.notes:
                out.append("- **Also:** " + md("; ".join(ex.notes)))
            fix = ex.fix.text + (" (" + "; ".join(ex.fix.changes) + ")" if ex.fix.changes else "")
            out.append("- **What to change:** " + md(fix))
            if ex.fix.bibtex:
                out += [
                    "",
                    "  ```bibtex",
                    *("  " + line for line in ex.fix.bibtex.rstrip().splitlines()),
                    "  ```",
                ]
            out.append("")
    fine = [e for e in explanations if e.fix.kind == NOTHING]
    if fine:
        out += [f"<details><summary>{len(fine)} need nothing</summary>", ""]
        out += [f"- `{e.key}` · {md(e.label)}: {md(e.headline)}" for e in fine]
        out += ["", "</details>", ""]
    by_verdict = ", ".join(f"{k}: {v}" for k, v in (summary.get("by_verdict") or {}).items())
    out.append(f"<sub>verdicts: {md(by_verdict)} · logic {md(str(summary.get('logic_version')))}</sub>")
    transparency_line = summary_transparency_line(summary)  # ADR 004 counts (issue 12)
    if transparency_line:
        out.append(f"<sub>verification: {md(transparency_line)}</sub>")
    return "\n".join(out) + "\n"


class MarkdownSink(_Collecting):
    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(markdown_report(obj, self.explanations))


# --- GitHub workflow annotations -------------------------------------------------------------------


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(ex: Explanation) -> str | None:
    level = LEVELS.get(ex.fix.kind)
    if level is None:
        return None
    props = [f"file={_gh_property(_relative(ex.file))}"]
    if ex.line:
        props.append(f"line={ex.line}")
    props.append(f"title={_gh_property(f'{ex.key}: {ex.label}')}")
    return f"::{level} {','.join(props)}::{_gh_data(full_text(ex))}"


class GithubSink(_Collecting):
    """`::error file=refs.bib,line=12,title=...::message` lines, one per reference that asks for
    a change, written as references are decided; the summary (and a partial run) last."""

    def reference(self, obj: dict[str, Any]) -> None:
        super().reference(obj)
        line = github_annotation(self.explanations[-1])
        if line:
            self.out.write(line + "\n")
            self.out.flush()

    def summary(self, obj: dict[str, Any]) -> None:
        att = attention(obj, self.explanations)
        if att.partial:
            self.out.write(f"::warning title=Aletheia partial run::{_gh_data(att.sources_line())}\n")
        level = "error" if att.need_attention else "notice"
        self.out.write(f"::{level} title=Aletheia::{_gh_data(att.headline)}\n")


# --- SARIF 2.1.0 -----------------------------------------------------------------------------------

RULES = {
    "metadata_error": "The citation's fields differ from what the sources say",
    "identifier_conflict": "The cited identifier belongs to another work",
    "not_found": "No source that could hold the work has it",
    "fabricated": "The citation shows signs of invention",
    "retracted": "The cited work was retracted or withdrawn",
    "ambiguous": "Several works fit, or the sources disagree",
    "unverifiable": "The citation could not be checked",
}


def _sarif_result(ex: Explanation, level: str) -> dict[str, Any]:
    """One reference that needs attention as a SARIF result (its `ruleIndex` is set by the caller)."""
    result: dict[str, Any] = {
        "ruleId": ex.verdict,
        "ruleIndex": 0,
        "level": SARIF_LEVELS[level],
        "message": {"text": f"{ex.key}: {ex.label}. " + full_text(ex)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(_relative(ex.file))},
                    "region": {"startLine": ex.line or 1},
                }
            }
        ],
        "partialFingerprints": {"citationKey/v1": ex.key},
        "properties": {"key": ex.key, "fix": ex.fix.kind, "fixText": ex.fix.text},
    }
    if ex.transparency:  # ADR 004: how far it is verified, by which tier
        result["properties"]["transparency"] = ex.transparency
    if ex.fix.bibtex:
        result["properties"]["correctedEntry"] = ex.fix.bibtex
    return result


def sarif_document(summary: dict[str, Any], explanations: list[Explanation]) -> dict[str, Any]:
    att = attention(summary, explanations)
    results = []
    used: list[str] = []
    for ex in explanations:
        level = LEVELS.get(ex.fix.kind)
        if level is None:
            continue
        if ex.verdict not in used:
            used.append(ex.verdict)
        results.append(_sarif_result(ex, level))
    for result in results:
        result["ruleIndex"] = used.index(result["ruleId"])
    rules = [
        {
            "id": verdict,
            "name": verdict,
            "shortDescription": {"text": RULES.get(verdict, verdict)},
            "helpUri": f"{TOOL_URI}/blob/main/docs/verdicts.md",
        }
        for verdict in used
    ]
    notifications = [{"level": "warning", "message": {"text": att.sources_line()}}] if att.partial else []
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "Aletheia",
                        "informationUri": TOOL_URI,
                        "semanticVersion": str(summary.get("logic_version") or "0.0.0"),
                        "rules": rules,
                    }
                },
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
                "results": results,
                "properties": {
                    "summary": att.as_json(),
                    "by_verdict": summary.get("by_verdict", {}),
                    # ADR 004 counts (issue 12), when the summary has them
                    **{k: summary[k] for k in ("by_verification_status", "by_tier") if k in summary},
                },
            }
        ],
    }


class SarifSink(_Collecting):
    def summary(self, obj: dict[str, Any]) -> None:
        json.dump(sarif_document(obj, self.explanations), self.out, ensure_ascii=False, indent=2)
        self.out.write("\n")


# --- JUnit XML -------------------------------------------------------------------------------------


def junit_document(summary: dict[str, Any], explanations: list[Explanation]) -> ET.Element:
    """One test suite per input file, one test case per reference: a change to make is a failure,
    a check by hand is skipped (visible, not failing); a partial run is a skipped case of its own."""
    att: Attention = attention(summary, explanations)
    root = ET.Element("testsuites", name="aletheia")
    suites: dict[str, ET.Element] = {}
    for ex in explanations:
        file = _relative(ex.file)
        suite = suites.get(file)
        if suite is None:
            suite = suites[file] = ET.SubElement(root, "testsuite", name=file)
        case = ET.SubElement(
            suite, "testcase", name=ex.key, classname=file, file=file, line=str(ex.line or 1)
        )
        if ex.fix.kind in (REMOVE, REPLACE):
            failure = ET.SubElement(case, "failure", message=f"{ex.label}: {ex.headline}", type=ex.verdict)
            failure.text = full_text(ex)
        elif ex.fix.kind == CHECK:
            ET.SubElement(case, "skipped", message=f"{ex.label}: {ex.fix.text}")
            ET.SubElement(case, "system-out").text = full_text(ex)
        elif ex.wrong or ex.notes:
            ET.SubElement(case, "system-out").text = full_text(ex)
    if att.partial:
        suite = ET.SubElement(root, "testsuite", name="aletheia sources")
        case = ET.SubElement(suite, "testcase", name="every source answered", classname="aletheia")
        ET.SubElement(case, "skipped", message=att.sources_line())
        suites["aletheia sources"] = suite
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for suite in suites.values():
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(1 for c in cases if c.find("failure") is not None),
            "skipped": sum(1 for c in cases if c.find("skipped") is not None),
        }
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        suite.set("errors", "0")
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("errors", "0")
    return root


class JunitSink(_Collecting):
    def summary(self, obj: dict[str, Any]) -> None:
        root = junit_document(obj, self.explanations)
        ET.indent(root)
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.out.write(ET.tostring(root, encoding="unicode"))
        self.out.write("\n")
