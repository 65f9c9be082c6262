"""Issue 30: `aletheia check` reads links and `research:` comments where they can be — Markdown
prose, Python comments — not syntax shown in a code span or block, nor a string literal; the
project's own checkout is clean for that reason, not by exclusions."""

from __future__ import annotations

from pathlib import Path

from aletheia.pipeline.artifact_checks.citable_text import citable_text
from aletheia.pipeline.artifact_checks.link_check import check_citations
from tests.conftest import REPO_ROOT

LINK = "docs/citations/nothing-here.md"


def kinds(root: Path) -> list[str]:
    return [p.kind for p in check_citations(root).problems]


def test_markdown_code_is_syntax_shown_not_a_link(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "# Tool\n\n"
        "Every `# research:` comment needs a `# see docs/citations/x-1.md` line.\n\n"
        "```python\n# research: the example\n# see " + LINK + "\n```\n\n"
        "~~~~\n```\nstill the fence: " + LINK + "\n~~~~\n",
        encoding="utf-8",
    )
    assert kinds(tmp_path) == []
    # Prose is read: a research comment written in a Markdown file, a link in a sentence.
    (tmp_path / "NOTES.md").write_text(f"<!-- research: lichens -->\nSee {LINK}.\n", encoding="utf-8")
    assert kinds(tmp_path) == ["missing"]


def test_python_string_literals_are_data_comments_are_links(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        f'FIXTURE = "# research: growth\\n# see {LINK}\\n"\n'
        f'DOC = """\n# research: a docstring line\n"""\n'
        "x = 1  # a comment without a link\n",
        encoding="utf-8",
    )
    assert kinds(tmp_path) == []
    (tmp_path / "code.py").write_text(f"# research: growth\n# see {LINK}\nx = 1\n", encoding="utf-8")
    problems = check_citations(tmp_path).problems
    assert [(p.path, p.line, p.kind) for p in problems] == [("code.py", 2, "missing")]


def test_line_numbers_do_not_move_and_other_files_are_read_whole() -> None:
    text = 'a = "docs/citations/x.md"\n# see docs/citations/y.md\n'
    blanked = citable_text("m.py", text)
    assert blanked.splitlines()[1] == "# see docs/citations/y.md" and "x.md" not in blanked
    assert len(blanked) == len(text)
    assert citable_text("m.js", text) == text
    assert citable_text("broken.py", 'x = """never closed\n') == 'x = """never closed\n'


def test_the_projects_own_checkout_is_clean() -> None:
    report = check_citations(REPO_ROOT)
    assert report.ok, "\n".join(map(str, report.problems))
