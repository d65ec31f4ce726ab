"""The documentation site (mkdocs.yml): every page and public name is in it, every page renders whole (no text
read as HTML), and it builds strictly, broken links and anchors failing it, with the API reference's numpydoc
sections rendered and the benchmark results reachable."""

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import dpcvx

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CONFIG = (ROOT / "mkdocs.yml").read_text()


def test_every_public_name_has_a_reference_entry():
    entries = {match for page in (DOCS / "reference").glob("*.md")
               for match in re.findall(r"^::: dpcvx\.(\w+)$", page.read_text(), flags=re.M)}
    assert [name for name in dpcvx.__all__ if name != "__version__" and name not in entries] == []


def test_every_page_is_in_the_navigation():
    listed = set(re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)$", CONFIG, flags=re.M))
    pages = {page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md")}
    assert pages - listed == set()


# The site's pages: docs/ and, added by docs/site_hooks.py, benchmarks/ (its Markdown files are pages too).
SITE_PAGES = [*sorted(DOCS.rglob("*.md")), *sorted((ROOT / "benchmarks").rglob("*.md"))]
# What Python-Markdown keeps aside as HTML and is not text read as a tag: a fenced code block, a comment, an entity
NOT_A_TAG = re.compile(r"<pre><code[ >]|<!--|&#?\w+;$")


def rendered(text: str):
    """``text`` through Python-Markdown with mkdocs' extensions (mkdocs.yml adds none: toc, tables,
    fenced_code): the Markdown object after the conversion."""
    markdown = pytest.importorskip("markdown", reason='mkdocs\' Markdown: pip install ".[docs]"')
    converter = markdown.Markdown(extensions=["toc", "tables", "fenced_code"])
    converter.convert(text)
    return converter


def text_read_as_html(text: str) -> list[str]:
    """The pieces of ``text`` Markdown passes to the page as raw HTML: a line that opens with ``<main ...>`` (or
    any block tag) takes the rest of the page with it, an inline ``<w*, phi(z)>`` or ``<all eight>`` is a tag the
    browser hides."""
    return [str(piece)[:80] for piece in rendered(text).htmlStash.rawHtmlBlocks if not NOT_A_TAG.match(str(piece))]


def heading_levels(text: str) -> tuple[list[int], list[int]]:
    """The levels of the source's ATX headings (outside fenced code) and of the headings of its HTML, in order."""
    source = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    written = [len(level) for level in re.findall(r"^(#{1,6}) ", source, flags=re.M)]

    def flat(tokens):
        for token in tokens:
            yield token["level"]
            yield from flat(token["children"])

    return written, list(flat(rendered(text).toc_tokens))


def test_mkdocs_adds_no_markdown_extension_and_fails_on_a_broken_link_or_anchor():
    """The checks below render as mkdocs does only while mkdocs.yml adds no extension; the validation makes a
    link to a missing anchor (cli.md's to a heading the Performance page had swallowed) or a link mkdocs cannot
    resolve (results.md's to a folder) a warning, which --strict fails on; by default both are INFO lines."""
    assert "markdown_extensions" not in CONFIG
    validation = CONFIG[CONFIG.index("\nvalidation:"):]
    for option in ("not_found", "anchors", "unrecognized_links"):
        assert re.search(rf"^    {option}: warn$", validation, flags=re.M), option


# A line Python-Markdown reads as the start of an HTML block (a tag at the line's start: ``<main at 7d76f81>``)
# or as a heading where GitHub sees text (a "#" without a space: ``#{i : v_ij <= t}``).
BLOCK_TRAP = re.compile(r"^ {0,3}(?:<[A-Za-z/?]|#{1,6}[^#\s]).*$", re.M)


def block_traps(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code that open an HTML block or a heading by accident."""
    return [line[:60] for line in BLOCK_TRAP.findall(re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))]


def page_defects(text: str) -> dict[str, object]:
    """What of ``text`` the site does not show as written: text read as HTML, headings not as written."""
    written, shown = heading_levels(text)
    defects: dict[str, object] = {"read as HTML": text_read_as_html(text)}
    if shown != written:
        defects["heading levels (source, page)"] = (written, shown)
    return {kind: found for kind, found in defects.items() if found}


def test_no_line_of_a_page_opens_an_html_block_or_a_heading_by_accident():
    """docs/performance.md opened a line with ``<main at 7d76f81>`` (a code span broken across lines): the
    Performance page ended there, 4 of its 8 sections written out as raw text (mkdocs --strict passed). theory.md's
    count ``#{i : v_ij <= t}`` at a line's start was an <h1> (Python-Markdown needs no space after "#", GitHub
    does). Move the line break, or write the text as code or ``<`` as ``&lt;``. Every page, by its lines (fast;
    the slow test below renders each page)."""
    traps = {page.relative_to(ROOT).as_posix(): found for page in SITE_PAGES
             if (found := block_traps(page.read_text()))}
    assert traps == {}


@pytest.mark.slow
def test_every_page_renders_as_written():
    """Each page through Markdown: no text is read as HTML (theory.md's inner products ``<w*, phi(z)>`` were tags
    the browser hid, and the swallowed Performance page one raw block), and each "# Title" of the source is a
    heading of the page, and nothing else is."""
    defects = {page.relative_to(ROOT).as_posix(): found for page in SITE_PAGES
               if (found := page_defects(page.read_text()))}
    assert defects == {}


def test_the_page_checks_find_a_swallowed_page_and_a_hidden_tag():
    page = ("# Speed\n\nOne run (`python -m benchmarks.speed_ab --before\n<main at 7d76f81> --fits 7`).\n\n"
            "## Command line\n\nA prediction <w*, phi(z)>, `<w*, phi(z)>` and &lt;w*, phi(z)>.\n")
    assert [piece[:40] for piece in text_read_as_html(page)] == ["<main at 7d76f81> --fits 7`).\n\n## Comman"]
    assert heading_levels(page) == ([1, 2], [1])
    fixed = page.replace("--before\n<main", "--before <main").replace("prediction <w", "prediction &lt;w")
    assert text_read_as_html(fixed) == [] and heading_levels(fixed) == ([1, 2], [1, 2])
    assert text_read_as_html("A prediction <w*, phi(z)>.\n") == ["<w*, phi(z)>"]
    counts = "# Counts\n\nthe count\n#{i : v_ij <= t} of a step\n"
    assert heading_levels(counts) == ([1], [1, 1])
    assert block_traps(page) == ["<main at 7d76f81> --fits 7`)."]
    assert block_traps(counts) == ["#{i : v_ij <= t} of a step"]
    assert block_traps(fixed) == [] and block_traps("<!-- generated -->\n```\n<b>\n```\n    <code>\n") == []
    assert list(page_defects(page)) == ["read as HTML", "heading levels (source, page)"] and page_defects(fixed) == {}


class _Tags(HTMLParser):
    """The start tags of an HTML page that are no HTML element (text the browser hides as an unknown tag)."""

    # the elements of the mkdocs theme's pages and of Markdown's and mkdocstrings' output
    ELEMENTS = frozenset({"html", "head", "body", "meta", "link", "script", "style", "title", "base", "noscript",
                          "div", "span", "nav", "header", "footer", "main", "section", "article", "aside", "a", "p",
                          "h1", "h2", "h3", "h4", "h5", "h6", "code", "pre", "em", "strong", "ul", "ol", "li",
                          "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
                          "blockquote", "hr", "br", "img", "sup", "sub", "button", "input", "label", "form", "i",
                          "b", "u", "s", "small", "svg", "path", "details", "summary", "dl", "dt", "dd", "kbd",
                          "abbr", "mark", "figure", "figcaption"})

    def __init__(self) -> None:
        super().__init__()
        self.unknown: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in self.ELEMENTS:
            self.unknown.append(f"<{tag}> at line {self.getpos()[0]}")


def unknown_tags(html: str) -> list[str]:
    parser = _Tags()
    parser.feed(html)
    return parser.unknown


def test_the_tag_check_finds_an_inner_product_read_as_a_tag():
    assert unknown_tags("<p>A prediction of <w*, phi(z)> for one <code>&lt;w, z&gt;</code></p>") == [
        "<w*,> at line 1"]


@pytest.mark.slow
def test_the_site_builds_strictly_with_parameters_sections_and_benchmarks(tmp_path):
    pytest.importorskip("mkdocstrings_handlers.python", reason='the docs extra: pip install ".[docs]"')
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0 and "WARNING" not in build.stderr, build.stderr[-3000:]
    # the docstrings too (mkdocstrings renders them as Markdown): PINP.query's <w*, phi(z)> was a hidden tag
    hidden = {page.relative_to(site).as_posix(): tags for page in sorted(site.rglob("*.html"))
              if (tags := unknown_tags(page.read_text()))}
    assert hidden == {}

    def section(page: str, name: str) -> str:
        text = (site / page / "index.html").read_text()
        start = text.index(f'id="{name}"')
        return text[start:text.find('class="doc doc-object doc-class"', start + 1)]

    erm = section("reference/learners", "dpcvx.PrivateERM")
    assert ":class:" not in erm and "releases a <code>PrivateModel</code>" in erm  # Sphinx roles shown as code
    assert "Parameters:" in erm and all(f"<code>{name}</code>" in erm for name in ("lam", "data_norm", "clip"))
    estimators = ("DPLogisticRegression", "DPHuberSVM", "DPERMClassifier", "DPLinearRegression", "DPHuberRegressor")
    for estimator in estimators:
        assert "Parameters:" in section("reference/estimators", f"dpcvx.{estimator}"), estimator
    results = (site / "results" / "index.html").read_text()
    linked = re.findall(r'href="(\.\./benchmarks/results/[^"#]+)"', results)
    assert linked and all((site / "results" / link).resolve().exists() for link in linked)
