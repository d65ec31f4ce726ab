"""The user documentation: the API reference covers every public name, links resolve, snippets run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpcvx

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_api_reference_lists_every_public_name():
    text = (DOCS / "api.md").read_text()
    headings = re.findall(r"^## `([^`]+)`$", text, flags=re.MULTILINE)
    assert headings == list(dpcvx.__all__), "run: python docs/make_api.py"


@pytest.mark.slow  # imports every module of the six subpackages (about 2 s)
def test_api_reference_is_what_make_api_writes():
    """docs/api.md is ``docs/make_api.py``'s output for this checkout, to the byte: a changed docstring, signature or
    exported name (or a value that differs from machine to machine, as the row-product widths once did) fails here,
    not only in ``make_api.py --check`` run by hand. The generator runs in a fresh interpreter, as by hand."""
    result = subprocess.run([sys.executable, str(DOCS / "make_api.py"), "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


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
    """A page's ```python blocks, in order, in one fresh interpreter whose working directory is empty;
    where the page shows a block's output (a ```text block after it), the block prints exactly that."""
    page = ROOT / name
    pairs = _shown_outputs(page)
    if not pairs:
        pytest.skip("every block is marked no-run")
    source = "\n".join(f"{code}\nprint({MARKER.format(index)!r}, flush=True)" for index, (code, _) in enumerate(pairs))
    if "load_adult" in source or "load_kdd" in source or "shared/data" in source:
        request.getfixturevalue("uci_data")  # skipped when the UCI files are absent
    script = tmp_path / "page.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, f"{name}:\n{result.stderr[-3000:]}"
    assert _compare_shown(pairs, result.stdout) == [], f"{name}: paste the current output of the blocks"


# -- where a page shows a block's output (a ```text block after it, not a `$ command`), the output matches --

MARKER = "----- end of block {} -----"


def _shown_outputs(page: Path):
    """(code of each runnable ```python block, the ```text block shown after it or None), in order."""
    text = page.read_text()
    fences = list(FENCE.finditer(text))
    pairs = []
    for index, fence in enumerate(fences):
        words = fence.group(1).split()
        if words[:1] != ["python"] or "no-run" in words:
            continue
        after = fences[index + 1] if index + 1 < len(fences) else None
        shown = None
        if after is not None and after.group(1).split()[:1] == ["text"] and not after.group(2).startswith("$"):
            shown = after.group(2)
        pairs.append((fence.group(2), shown))
    return pairs


def _compare_shown(pairs, stdout: str) -> list[tuple[int, str, str]]:
    """The blocks whose printed output differs from the page (trailing spaces ignored)."""
    printed = stdout.split("\n")
    outputs, current = [], []
    for line in printed:
        if line.startswith("----- end of block "):
            outputs.append("\n".join(current))
            current = []
        else:
            current.append(line)
    differ = []
    for index, ((_, shown), got) in enumerate(zip(pairs, outputs, strict=False)):
        if shown is None:
            continue
        normal = ["\n".join(part.rstrip() for part in text.strip("\n").splitlines()) for text in (shown, got)]
        if normal[0] != normal[1]:
            differ.append((index, normal[0], normal[1]))
    return differ


def test_output_comparison_catches_a_stale_page():
    pairs = [("print(1)", "1\n"), ("print(2)", None), ("print('new')", "old\n")]
    stdout = "1\n" + MARKER.format(0) + "\n2\n" + MARKER.format(1) + "\nnew\n" + MARKER.format(2) + "\n"
    assert _compare_shown(pairs, stdout) == [(2, "old", "new")]


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


# -- small drift between the pages, the demo and the code ------------------------------------------------


def test_readme_minimal_example_prints_its_score():
    minimal = next(code for words, code in _python_blocks(ROOT / "README.md") if "PrivateERM(" in code)
    assert re.search(r"print\(.*model\.score\(X_test, y_test\)", minimal), minimal


def test_readme_says_what_the_demo_prints():
    """tests/project/test_examples.py::test_demo_prints_table_and_writes_plot checks the demo prints both."""
    readme = (ROOT / "README.md").read_text()
    assert "verifies the logistic and Huber losses" in readme and "prints both certificates" in readme


def test_the_demo_plot_is_ignored_by_git():
    ignored = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    assert "dpcvx-demo.png" in ignored   # anywhere: the demo writes it to the current directory


def test_custom_losses_page_says_estimates_are_refused_unless_allowed():
    """The page on custom losses agrees with the code and docs/verifier.md: an estimated constant is marked
    "estimate" (not "numeric"), is not conservative, is refused by default, accepted (CONDITIONAL) only with
    allow_estimates=True, and strict=True refuses it even then."""
    page = (DOCS / "custom-losses.md").read_text()
    section = page[page.index("## When the verifier can only estimate"):page.index("## The whole script")]
    text = " ".join(section.split())
    assert "marked `estimate`" in text and "not conservative" in text and "**refused by default**" in text
    assert "`allow_estimates=True`" in text and "CONDITIONAL" in text and "refuses them even then" in text


def test_verifier_page_lists_only_the_norms_of_a_stack_a_loss_may_use():
    """docs/verifier.md listed `norm` of a stack for a loss; only p = 1, 2 and infinity are applied record by
    record, and cp.norm(cp.hstack([1, z]), 3) is refused as not a separable sum."""
    import cvxpy as cp

    page = " ".join((DOCS / "verifier.md").read_text().split())
    assert "`norm`/`norm2`/`norm1`/`norm_inf` of a stack with p = 1, 2 or infinity" in page
    refused = dpcvx.verify(lambda z: cp.norm(cp.hstack([1, z]), 3)).condition("declaration")
    assert refused.passed is False and "not a separable sum" in refused.detail
    assert "not a separable sum over records" in page


def test_theory_refuses_no_group_norm_that_the_code_certifies():
    """docs/mechanisms.md offers disjoint group norms and the verifier certifies them (the slow test
    below); theory section 14's list of refusals may name only the overlapping ones."""
    theory = (DOCS / "theory.md").read_text()
    section = theory[theory.index("## 14."):theory.index("## 15.")]
    refused = section[section.index("**Refused.**"):]
    for bullet in refused.split("\n- "):
        if "group norm" in bullet:
            assert "overlapping" in bullet, bullet
    assert "group lasso" in (DOCS / "mechanisms.md").read_text()


@pytest.mark.slow
def test_a_disjoint_group_norm_is_certified_for_objective_perturbation():
    import cvxpy as cp

    group_lasso = dpcvx.PrivateERM(regularizer=lambda w: cp.norm(w[:2], 2) + 0.5 * cp.sum_squares(w), lam=0.1,
                                   data_norm=1.0)
    assert group_lasso.verify(4).allows("objective")


def test_pages_state_the_format_version_this_dpcvx_writes():
    """Every statement of the version this dpcvx writes (a file excerpt's ``"format_version"``, model-files' key
    table and its compatibility line, a range of versions that still load) names the current one: a page restating
    an older number had told readers files of the current version were newer than the library."""
    from dpcvx.release.records.header import MODEL_FORMAT_VERSION as current
    stated = []
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for pattern, offset in ((r'"format_version": (\d+)', 0), (r"writes format version (\d+)", 0),
                                (r'`"dpcvx-model"`, `(\d+)`', 0), (r"versions 4 to (\d+) (?:still )?load", 1)):
            stated += [(page.name, int(found) + offset) for found in re.findall(pattern, text)]
    assert ("model-files.md", current) in stated
    assert [entry for entry in stated if entry[1] != current] == []


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` (dpcvx.a.b.NAME) names something: its longest importable module prefix, then attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                found = getattr(found, name)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.slow  # imports every module the pages name (about 3 s)
def test_every_dotted_dpcvx_name_in_the_pages_exists():
    """docs/verifier.md named dpcvx.verification.symbolic.time_limit years after it was removed: every dotted name
    the README and the pages give (a reader's ``import`` or ``help``) must exist in this checkout."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    missing = sorted({(name, page.name) for page in pages
                      for name in set(re.findall(r"\bdpcvx(?:\.[A-Za-z_]\w*)+", page.read_text()))
                      if not name.endswith((".py", ".md", ".json")) and not _resolves(name)})
    assert not missing, missing
    assert not _resolves("dpcvx.verification.symbolic.time_limit")


_RESULTS_CITED = re.compile(r"`?(benchmarks/results/[\w.\-]+\.md)`?(?: as committed at ([0-9a-f]{7,40}))?")
_DECIMAL = re.compile(r"(?<![\w.\-])\d+\.\d+(?![\w.])")
#: A reference to a section of a page ("docs/theory.md section 16.1", "sections 29, 33"): a place, not a number read
#: off a record.
_SECTION = re.compile(r"\bsections? \d+(?:\.\d+)*(?:(?:,| and) \d+(?:\.\d+)*)*")


def _numbers_not_in_their_cited_results(text: str) -> list[tuple[str, list[str], str]]:
    """Each passage of ``text`` that ends in a citation of a results file (``benchmarks/results/X.md``, or ``... as
    committed at <commit>``: that file at that commit), with its decimal numbers that file does not hold. A passage
    runs from its paragraph's start or the previous citation to the citation; the generated tables are left out."""
    text = re.sub(r"<!-- (\S+):begin -->.*?<!-- \1:end -->", "", text, flags=re.S)
    missing = []
    for paragraph in re.split(r"\n\s*\n", text):
        start = 0
        for cited in _RESULTS_CITED.finditer(paragraph):
            passage, start = paragraph[start:cited.start()], cited.end()
            path, commit = cited.groups()
            body = (subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True,
                                   check=True).stdout if commit else (ROOT / path).read_text())
            absent = [number for number in _DECIMAL.findall(_SECTION.sub("", passage)) if number not in body]
            if absent:
                missing.append((path + (f" at {commit}" if commit else ""), absent, " ".join(passage.split())[-160:]))
    return missing


def test_readme_numbers_are_in_the_results_file_each_cites():
    """README quoted 0.69 and 0.90 beside benchmarks/results/gradient_regression_held_out.md (they were another
    run's, in real_tables.md) and Huber's held-out 0.72 beside huber_ranges.md; a number before the rule it compares
    with is cited with the commit whose record holds it."""
    if subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("not a git checkout: a commit-pinned citation cannot be read")
    assert _numbers_not_in_their_cited_results((ROOT / "README.md").read_text()) == []
    stale = "ranges (0.81, 0.69, 0.90, 0.95; x: `benchmarks/results/gradient_regression_held_out.md`)"
    assert _numbers_not_in_their_cited_results(stale)[0][1] == ["0.90"]  # the check catches the old text


#: Pages whose passages cite records but whose numbers the check cannot yet trace to the file each passage cites
#: (numbers of several runs in one passage before one citation, a link before the numbers it backs, "before" figures
#: of an earlier commit's record cited without the commit, figures derived from a record rather than quoted from it):
#: listed, not exempted in the check, until each passage cites the record that holds its numbers.
_UNTRACED_PAGES = {"honest-results.md", "performance.md", "theory.md", "tuning.md"}


@pytest.mark.parametrize("page", sorted(page.name for page in DOCS.glob("*.md") if page.name not in _UNTRACED_PAGES))
def test_docs_numbers_are_in_the_results_file_each_cites(page):
    """The README's check on every page of docs/ that cites a record (docs/accounting.md said 0.4 ms where its record
    holds 0.0004 s, docs/tutorial-regression.md 0.77 for 0.767, docs/scale.md a ratio of 1.6 the record does not
    hold); a reference to a section ("section 34.1") is a place, not a number."""
    if subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("not a git checkout: a commit-pinned citation cannot be read")
    assert _numbers_not_in_their_cited_results((DOCS / page).read_text()) == []
    assert _numbers_not_in_their_cited_results("docs/theory.md section 34.1 (`benchmarks/results/regression.md`)") == []


# a `dpcvx fit` command (continuation lines joined) that fixes --lam at a number
_FIT_WITH_FIXED_LAM = re.compile(r"dpcvx fit\b[^\n]*?--lam[ =]([0-9][\w.+-]*)")


def fit_commands_with_a_fixed_lam(text: str) -> list[str]:
    """The numbers ``text``'s ``dpcvx fit`` commands pass to --lam (a command's ``\\`` continuation lines joined)."""
    return _FIT_WITH_FIXED_LAM.findall(re.sub(r"\\{1,2}\n\s*", " ", text))


def test_the_fit_commands_shown_leave_lam_to_the_public_rule():
    """The Adult examples (docs/cli.md, getting-started.md, scale.md, examples/cli_adult.py) fixed ``--lam 1e-3``,
    what ``--lam auto`` picks for Adult at epsilon 1 only; copied at epsilon 4 it kept that lam (balanced accuracy
    0.702 against 0.739 without it, 5 of 5 seeds in the session-63 probe). A command a user copies leaves --lam to
    the rule, which the certificate prints with its value."""
    sources = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((ROOT / "examples").glob("*.py"))]
    fixed = {source.relative_to(ROOT).as_posix(): found for source in sources
             if (found := fit_commands_with_a_fixed_lam(source.read_text()))}
    assert fixed == {}


def test_the_fixed_lam_check_reads_a_command_over_continuation_lines():
    command = "dpcvx fit adult.csv --target income \\\n    --epsilon 0.5 --lam 1e-3 --out model.json\n"
    assert fit_commands_with_a_fixed_lam(command) == ["1e-3"]
    assert fit_commands_with_a_fixed_lam("dpcvx fit a.csv --lam auto --epsilon 1\n`--lam 0` is refused") == []
    examples_docstring = '        --epsilon 1 --lam 1e-3 \\\\\n    dpcvx fit a.csv \\\\\n  --lam 2'
    assert fit_commands_with_a_fixed_lam(examples_docstring) == ["2"]
