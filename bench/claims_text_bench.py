"""`aletheia claims` on real papers: how many claims, how many unsupported, and a sample to judge.

    python bench/claims_text_bench.py [--papers 12] [--sample 20] [--seed 13]

Reads `../shared/data/documents/unarxive-sample` (full texts with their citation spans and
references; skipped when absent) and `one-paper-many-formats` (the Quarto/Markdown version).
Each unarXive paper becomes Markdown: `{{cite:ID}}` -> `[n]` (n = the entry's position in its
reference list, appended as a numbered `## References` list), `{{formula:ID}}` -> `$latex$`. The
claims pipeline then runs as `aletheia claims --no-check --no-suggest` does (no sources: finding
and resolving only). Writes `bench/out/claims_text.json` with the counts and a seeded sample of
claims that need a citation, for a person to judge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from aletheia.config import Settings
from aletheia.pipeline.claims.research_text import check_claims_text
from aletheia.pipeline.jobs.submission import InputDocument

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "documents"
_PLACEHOLDER = re.compile(r"\{\{(cite|formula|figure|table):([^}]+)\}\}")


def unarxive_markdown(paper: dict[str, Any]) -> str:
    order = {key: n for n, key in enumerate(paper["bib_entries"], 1)}
    refs = paper.get("ref_entries", {})

    def replace(m: re.Match[str]) -> str:
        kind, ident = m.group(1), m.group(2)
        if kind == "cite":
            return f"[{order[ident]}]" if ident in order else ""
        if kind == "formula":
            latex = (refs.get(ident) or {}).get("latex", "")
            return f"${latex}$"
        return kind.capitalize()

    parts = [f"# {paper['metadata'].get('title', '').strip()}\n"]
    section = None
    for para in paper["body_text"]:
        if para.get("section") and para["section"] != section:
            section = para["section"]
            parts.append(f"## {section}\n")
        parts.append(_PLACEHOLDER.sub(replace, para["text"]).strip() + "\n")
    parts.append("## References\n")
    for n, entry in enumerate(paper["bib_entries"].values(), 1):
        parts.append(f"{n}. {' '.join(entry.get('bib_entry_raw', '').split())}")
    return "\n".join(parts) + "\n"


def run(name: str, text: str, settings: Settings, root: Path) -> dict[str, Any]:
    return asyncio.run(
        check_claims_text(
            InputDocument(name=name, data=text.encode("utf-8")),
            [],
            gateway=None,
            settings=settings,
            project_root=root,
            check=False,
            suggest=False,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--papers", type=int, default=12)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    documents: list[tuple[str, str]] = []
    sample_file = DATA / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    if sample_file.is_file():
        with sample_file.open(encoding="utf-8") as fh:
            for line in fh:
                paper = json.loads(line)
                if len(paper["bib_entries"]) >= 5 and len(paper["body_text"]) >= 20:
                    documents.append((f"unarxive/{paper['paper_id']}.md", unarxive_markdown(paper)))
                if len(documents) >= args.papers:
                    break
    qmd = DATA / "one-paper-many-formats" / "inst" / "extdata" / "to_err_is_human.qmd"
    if qmd.is_file():
        documents.append(("to_err_is_human.qmd", qmd.read_text(encoding="utf-8")))
    if not documents:
        print("no documents under", DATA)
        return
    rows: list[dict[str, Any]] = []
    pool: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), offline=True)
        for name, text in documents:
            report = run(name, text, settings, Path(tmp))
            s = report["summary"]
            resolved = sum(c["resolved"] for claim in report["claims"] for c in claim["citations"])
            markers = sum(len(claim["citations"]) for claim in report["claims"])
            rows.append(
                {
                    "document": name,
                    "references": report["bibliography"]["references"],
                    "claims": s["claims"],
                    "needs_citation": s["needs_citation"],
                    "own_work": s["own_work"],
                    "with_citation": s["with_citation"],
                    "unsupported": s["unsupported"],
                    "citation_keys": markers,
                    "resolved": resolved,
                }
            )
            pool.extend(
                {"document": name, "line": c["line"], "sentence": c["sentence"],
                 "rules": sorted({t["rule"] for t in c["triggers"]}), "cited": bool(c["citations"])}
                for c in report["claims"]
                if c["needs_citation"]
            )  # fmt: skip
    sample = random.Random(args.seed).sample(pool, min(args.sample, len(pool)))
    totals = {k: sum(r[k] for r in rows) for k in rows[0] if k != "document"}
    out = Path(__file__).parent / "out" / "claims_text.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"documents": rows, "totals": totals, "sample": sample}, indent=2) + "\n")
    for r in rows:
        print(json.dumps(r))
    print("totals", json.dumps(totals))
    print("wrote", out)


if __name__ == "__main__":
    main()
