"""The user documentation: the API reference covers every public name, links resolve, snippets run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import dpcvx

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_api_reference_lists_every_public_name():
    text = (DOCS / "api.md").read_text()
    headings = re.findall(r"^## `([^`]+)`$", text, flags=re.MULTILINE)
    assert headings == list(dpcvx.__all__), "run: python docs/make_api.py"


def test_index_links_every_page_and_they_resolve():
    text = (DOCS / "README.md").read_text()
    targets = {link.split("#")[0] for link in re.findall(r"\]\(([^)]+)\)", text)}
    pages = {path.name for path in DOCS.glob("*.md")} - {"README.md"}
    assert pages <= targets, f"pages missing from docs/README.md: {sorted(pages - targets)}"
    for target in targets:
        assert (DOCS / target).exists(), target


def test_relative_links_between_pages_resolve():
    for page in DOCS.glob("*.md"):
        for link in re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / link).exists(), (page.name, link)


def test_readme_relative_links_resolve():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text())
    local = [link for link in links if "://" not in link]
    assert any(link.endswith(".png") for link in local), "the results section links its plots"
    for link in local:
        assert (ROOT / link).exists(), link


def test_getting_started_snippets_run(tmp_path):
    code = "\n".join(re.findall(r"```python\n(.*?)```", (DOCS / "getting-started.md").read_text(), re.S))
    script = tmp_path / "getting_started.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "model.json").exists()
