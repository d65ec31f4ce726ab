"""The documentation site (mkdocs.yml): every page and public name is in it, and it builds strictly with
the API reference's numpydoc sections rendered and the benchmark results reachable."""

import re
import subprocess
import sys
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


@pytest.mark.slow
def test_the_site_builds_strictly_with_parameters_sections_and_benchmarks(tmp_path):
    pytest.importorskip("mkdocstrings_handlers.python", reason='the docs extra: pip install ".[docs]"')
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0 and "WARNING" not in build.stderr, build.stderr[-3000:]

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
