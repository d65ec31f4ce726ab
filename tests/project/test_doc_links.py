"""Every relative link resolves: Markdown links of the README and docs/, and the repository paths
(docs/..., examples/..., benchmarks/..., tests/...) that dpcvx's docstrings and messages cite."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md"))]
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
# A repository path in a docstring or message: docs/theory.md, examples/quickstart.py, ...
CITED_PATH = re.compile(r"\b((?:docs|examples|benchmarks|tests)/[\w./-]*\w\.(?:md|py|json|png|txt))\b")


def markdown_targets(page: Path):
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)   # code blocks hold no links
    for link in MARKDOWN_LINK.findall(text):
        target = link.split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            yield target


def missing_markdown_targets():
    return [(str(page.relative_to(ROOT)), target) for page in PAGES for target in markdown_targets(page)
            if not (page.parent / target).exists()]


def missing_cited_paths():
    missing = []
    for source in [*sorted((ROOT / "dpcvx").rglob("*.py")), *PAGES]:
        for path in set(CITED_PATH.findall(source.read_text())):
            if not (ROOT / path).exists():
                missing.append((str(source.relative_to(ROOT)), path))
    return missing


def test_every_relative_markdown_link_resolves():
    assert missing_markdown_targets() == []


def test_every_repository_path_cited_in_the_package_and_the_pages_exists():
    assert missing_cited_paths() == []


def test_the_checks_find_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("see [the tutorial](tutorials/multiclass.md) and [here](page.md#top)\n")
    assert [target for target in markdown_targets(page) if not (page.parent / target).exists()] == [
        "tutorials/multiclass.md"]
    assert CITED_PATH.findall("docs/tutorials/multiclass.md; see docs/theory.md.") == [
        "docs/tutorials/multiclass.md", "docs/theory.md"]
