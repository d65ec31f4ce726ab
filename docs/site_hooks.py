"""mkdocs hooks of the documentation site (mkdocs.yml): the benchmarks in the site, links to them kept.

The docstrings' Sphinx roles (``:class:`~dpcvx.PrivateModel```) are shown as code, the role dropped
(``PrivateModel``; the full path without ``~``), as Sphinx would show them.

The pages of docs/ link the benchmark scripts and results as files of the repository
(``../benchmarks/results/speed.md``). The site holds benchmarks/ beside the pages, at
``benchmarks/``, so those links are rewritten to it, and the benchmark pages' own links back to
docs/ (``../docs/performance.md``) to the pages. Every rewritten link is then checked by
``mkdocs build --strict`` like any other.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
# a Sphinx role of a docstring as mkdocstrings renders it: :class:<code>~dpcvx.x.Name</code>
SPHINX_ROLE = re.compile(r":(?:class|func|meth|mod|attr|exc|data):<code>(~?)([^<]*?)</code>")


def on_files(files: Files, config: Any) -> Files:
    """Add every file of benchmarks/ (scripts, results, plots) to the site, at benchmarks/."""
    for path in sorted(BENCHMARKS.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files.append(File(path.relative_to(ROOT).as_posix(), src_dir=str(ROOT), dest_dir=config["site_dir"],
                              use_directory_urls=config["use_directory_urls"]))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A link from a page to the repository's benchmarks/ or docs/, as the site places them."""
    depth = page.file.src_uri.count("/")
    up = "../" * (depth + 1)
    if page.file.src_uri.startswith("benchmarks/"):
        return markdown.replace(f"]({up}docs/", f"]({'../' * depth}")
    return markdown.replace(f"]({up}benchmarks/", f"]({'../' * depth}benchmarks/")


def on_post_page(output: str, page: Any, config: Any) -> str:
    """The docstrings' Sphinx roles as code: ``~`` keeps the last name, as in Sphinx."""
    def code(match: re.Match[str]) -> str:
        tilde, target = match.groups()
        return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"

    return SPHINX_ROLE.sub(code, output)
