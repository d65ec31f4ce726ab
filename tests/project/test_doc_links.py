"""Every relative link resolves: Markdown links of the README and docs/, and the repository paths
(docs/..., examples/..., benchmarks/..., tests/...) that dpcvx's docstrings and messages cite."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md"))]
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
# A repository path in a docstring or message: docs/theory.md, examples/quickstart.py, ...
CITED_PATH = re.compile(r"\b((?:docs|examples|benchmarks|tests)/[\w./-]*\w\.(?:md|py|json|png|txt))\b")


def markdown_links(page: Path):
    """(target, fragment) of every relative Markdown link on ``page`` outside code blocks; target "" is the page."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)   # code blocks hold no links
    for link in MARKDOWN_LINK.findall(text):
        target, _, fragment = link.partition("#")
        if "://" not in target and not target.startswith("mailto:"):
            yield target, fragment


def markdown_targets(page: Path):
    yield from (target for target, _ in markdown_links(page) if target)


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores dropped, each space a
    hyphen ("delta > 0" is ``delta--0``)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def site_anchor(heading: str) -> str:
    """The docs site's anchor of a heading (mkdocs: Python-Markdown's toc slugify of the heading's text, code spans
    as their text): punctuation dropped, each run of spaces and hyphens one hyphen ("delta > 0" is ``delta-0``)."""
    toc = pytest.importorskip("markdown.extensions.toc", reason='mkdocs\' Markdown: pip install ".[docs]"')
    return toc.slugify(heading.replace("`", ""), "-")


def heading_anchors(page: Path) -> set[str]:
    """The anchors of a page's headings that GitHub and the docs site both make. A heading whose two anchors
    differ (a lone "-", ">" or "=" between spaces) has none that works in both: a link to it broke on one (tuning.md
    linked ``#full-data-selection-with-delta--0``, GitHub's, and the site's page has ``...-delta-0``)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    headings = re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    return {github_anchor(heading) for heading in headings if github_anchor(heading) == site_anchor(heading)}


def dangling_anchors(pages):
    """(page, link) of every link whose #fragment names no heading of the Markdown page it points at."""
    dangling = []
    for page in pages:
        for target, fragment in markdown_links(page):
            linked = page.parent / target if target else page
            if fragment and linked.suffix == ".md" and linked.exists() and fragment not in heading_anchors(linked):
                dangling.append((page.name, f"{target}#{fragment}"))
    return dangling


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


def test_every_link_to_a_heading_names_one():
    """A link's #fragment names a heading of its page: renumbered sections left links to headings that were gone
    (docs/kernels.md linked theory.md#9-private-kernel-learning after kernel learning became section 11)."""
    assert dangling_anchors(PAGES) == []


def test_the_anchor_check_finds_a_renumbered_heading(tmp_path):
    (tmp_path / "theory.md").write_text("# Theory\n\n## 11. Private kernel learning\n\n### `K4`: TDDL, (Algorithm 2)\n")
    page = tmp_path / "kernels.md"
    page.write_text("[a](theory.md#9-private-kernel-learning), [b](theory.md#11-private-kernel-learning), "
                    "[c](theory.md#k4-tddl-algorithm-2), [d](#nowhere)\n")
    assert dangling_anchors([page]) == [("kernels.md", "theory.md#9-private-kernel-learning"),
                                        ("kernels.md", "#nowhere")]


def test_the_anchor_check_finds_a_link_one_renderer_breaks(tmp_path):
    page = tmp_path / "tuning.md"
    page.write_text("## Full-data selection with delta > 0\n\n## With a positive delta\n\n"
                    "[a](#full-data-selection-with-delta--0), [b](#full-data-selection-with-delta-0), "
                    "[c](#with-a-positive-delta)\n")
    assert dangling_anchors([page]) == [("tuning.md", "#full-data-selection-with-delta--0"),
                                        ("tuning.md", "#full-data-selection-with-delta-0")]


def test_every_repository_path_cited_in_the_package_and_the_pages_exists():
    assert missing_cited_paths() == []


def test_the_checks_find_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("see [the tutorial](tutorials/multiclass.md) and [here](page.md#top)\n")
    assert [target for target in markdown_targets(page) if not (page.parent / target).exists()] == [
        "tutorials/multiclass.md"]
    assert CITED_PATH.findall("docs/tutorials/multiclass.md; see docs/theory.md.") == [
        "docs/tutorials/multiclass.md", "docs/theory.md"]


THEORY = ROOT / "docs" / "theory.md"
HEADING = re.compile(r"^(#{2,4}) (K?\d+[a-z]?(?:\.\d+)?)[ .]", re.M)
# "section 12", "sections 2-4", "Section 25.7", "sections 3 and 12.2" (docs/theory.md's own numbering)
SECTION_REFERENCE = re.compile(r"\b[Ss]ections? (\d+[a-z]?(?:\.\d+)?)((?:(?:, | and | or |-)\d+[a-z]?(?:\.\d+)?)*)")
# a bare subsection number inside theory.md ("(27.2)", "as in 22.2", "the total of 27.1") and "theory 24.1"
BARE_REFERENCE = re.compile(r"(?:\btheory(?:\.md)?,? |\((?:see |as in )?|\b(?:in|of|by|see|and|from) )"
                            r"(\d{1,2}\.\d)(?![\d.]|e[-+]?\d| ?(?:ms|s|%|x|/|\*|\^))\b")
# a section of a book or paper, not of theory.md: the citation just before it names the work
EXTERNAL = re.compile(r"(?:Computations|ed\.),\s*$")


def theory_headings(text: str) -> list[tuple[int, str]]:
    """(level, number) of every numbered heading of docs/theory.md, in order."""
    return [(len(level), number) for level, number in HEADING.findall(text)]


def misnumbered_headings(text: str) -> list[str]:
    """Subsections N.M that do not sit under section N, or that do not count 1, 2, ... in order."""
    wrong, section, expected = [], "", 1
    for level, number in theory_headings(text):
        if "." not in number:
            if level == 2:
                section, expected = number, 1
            continue
        parent, child = number.split(".")
        if parent != section or int(child) != expected:
            wrong.append(number)
        expected = int(child) + 1
    return wrong


def section_references(text: str, theory: bool) -> set[str]:
    """The theory.md section numbers ``text`` cites; bare N.M only in theory.md itself (``theory``), where
    section N has numbered subsections."""
    cited = set()
    for match in SECTION_REFERENCE.finditer(text):
        if not EXTERNAL.search(text[max(0, match.start() - 40):match.start()]):
            cited.update([match.group(1), *re.findall(r"\d+[a-z]?(?:\.\d+)?", match.group(2))])
    with_subsections = {number.split(".")[0] for _, number in theory_headings(text) if "." in number}
    for match in BARE_REFERENCE.finditer(text):
        if match.group(0).startswith("theory") or (theory and match.group(1).split(".")[0] in with_subsections):
            cited.add(match.group(1))
    return cited


def dangling_section_references() -> list[tuple[str, str]]:
    headings = {number for _, number in theory_headings(THEORY.read_text())}
    sources = [*sorted((ROOT / "dpcvx").rglob("*.py")), *PAGES, *sorted((ROOT / "benchmarks").glob("*.py"))]
    return [(str(source.relative_to(ROOT)), number) for source in sources
            for number in sorted(section_references(source.read_text(), source == THEORY)) if number not in headings]


def test_theory_subsections_are_numbered_under_their_section():
    assert misnumbered_headings(THEORY.read_text()) == []


@pytest.mark.slow
def test_every_section_reference_points_at_a_heading_of_theory_md():
    assert dangling_section_references() == []


def test_the_section_checks_find_a_misnumbered_heading_and_a_dangling_reference():
    page = "## 21. Weights\n\n## 22. Floating point\n\n### 21.1 The secret\n\n### 22.3 Output\n"
    assert misnumbered_headings(page) == ["21.1", "22.3"]
    cited = section_references(page + "see section 22.1, sections 2-4 and 12.9 (Golub and Van Loan, Matrix "
                               "Computations, Sections 8.1 and 8.6); the total of 21.1 (theory 24.1), at 0.5", True)
    assert cited == {"22.1", "2", "4", "12.9", "21.1", "24.1"}
