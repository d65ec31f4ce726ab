"""The user documentation: the API reference covers every public name, links resolve, snippets run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    for link in local:
        assert (ROOT / link).exists(), link
    assert "docs/results.md" in local, "the README links the results page"


def test_results_page_links_its_plots_and_is_up_to_date():
    from benchmarks import render_results

    page = DOCS / "results.md"
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text())
    assert any(link.endswith(".png") for link in links), "the results page links its plots"
    for link in links:
        assert "://" in link or (page.parent / link).exists(), link
    assert render_results.render(page, ROOT / "benchmarks" / "results") == page.read_text(), \
        "run: python -m benchmarks.render_results"


@pytest.mark.slow
def test_getting_started_snippets_run(tmp_path):
    code = "\n".join(re.findall(r"```python\n(.*?)```", (DOCS / "getting-started.md").read_text(), re.S))
    script = tmp_path / "getting_started.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "model.json").exists()


# -- every ```python block of the README and the hand-written pages runs ----------------------------------

# Generated pages whose ```python blocks are signatures, not programs (checked by the API test above).
SIGNATURE_PAGES = {"api.md"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def _code_pages():
    return [ROOT / "README.md"] + sorted(page for page in DOCS.glob("*.md") if page.name not in SIGNATURE_PAGES)


def _blocks(page: Path):
    """(info string words, code) of every fenced block of ``page``, in order."""
    return [(info.split(), code) for info, code in FENCE.findall(page.read_text())]


def _python_blocks(page: Path):
    return [(words, code) for words, code in _blocks(page) if words[:1] == ["python"]]


def test_no_run_blocks_are_few_and_explained():
    marked = [(page.name, code) for page in _code_pages()
              for words, code in _python_blocks(page) if "no-run" in words]
    total = sum(len(_python_blocks(page)) for page in _code_pages())
    assert len(marked) <= max(3, total // 10), marked
    for page in _code_pages():
        text = page.read_text()
        if any("no-run" in words for words, _ in _python_blocks(page)):
            assert "not run" in text.lower() or "illustrative" in text.lower(), \
                f"{page.name}: say in the page why a block is marked no-run"


def _page_ids():
    return [str(page.relative_to(ROOT)) for page in _code_pages() if _python_blocks(page)]


@pytest.mark.slow
@pytest.mark.parametrize("name", _page_ids())
def test_python_blocks_run(name, tmp_path, request):
    """A page's ```python blocks, in order, in one fresh interpreter whose working directory is empty."""
    page = ROOT / name
    blocks = [code for words, code in _python_blocks(page) if "no-run" not in words]
    if not blocks:
        pytest.skip("every block is marked no-run")
    source = "\n".join(blocks)
    if "load_adult" in source or "load_kdd" in source or "shared/data" in source:
        request.getfixturevalue("uci_data")  # skipped when the UCI files are absent
    script = tmp_path / "page.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, f"{name}:\n{result.stderr[-3000:]}"


@pytest.mark.slow
def test_bash_verify_commands_run(tmp_path):
    """The cheap ``dpcvx verify`` lines of the ```bash blocks run (as ``python -m dpcvx``) and exit 0."""
    commands = [line.split("#")[0].split() for page in _code_pages()
                for words, code in _blocks(page) if words[:1] == ["bash"]
                for line in code.splitlines() if line.startswith("dpcvx verify ") and not line.endswith("\\")]
    assert commands, "no dpcvx verify line in a bash block"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "OPENBLAS_NUM_THREADS": "1"}
    for command in {tuple(c) for c in commands}:
        result = subprocess.run([sys.executable, "-m", "dpcvx", *command[1:]], cwd=tmp_path, capture_output=True,
                                text=True, timeout=120, env=env)
        assert result.returncode == 0, (command, result.stderr[-2000:])
