"""The notebooks of docs/notebooks run, top to bottom, in a fresh kernel in an empty directory, each within
its time limit, and show what they are about (the notebooks extra: nbclient, nbformat, ipykernel)."""

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason='the notebooks extra: pip install ".[notebooks]"')
nbclient = pytest.importorskip("nbclient", reason='the notebooks extra: pip install ".[notebooks]"')
pytest.importorskip("ipykernel", reason='the notebooks extra: pip install ".[notebooks]"')

pytestmark = pytest.mark.slow

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"
SECONDS = 90  # each notebook takes about 10-30 s here; the limit leaves room for a loaded machine

# what each notebook's outputs must show
SHOWN = {
    "01-first-private-model.ipynb": ["test accuracy at epsilon = 0.5", "objective perturbation: allowed",
                                     'id="not-covered"'],
    "02-privacy-utility.ipynb": ["non-private", "image/png"],
    "03-budget-across-releases.ipynb": ["refused:", "the sum of epsilons would be 1.0"],
    "04-real-table-end-to-end.ipynb": ["selected: {'lam'", "test accuracy", 'id="privacy-curve-plot"'],
}


def test_every_notebook_is_listed():
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(SHOWN)


def _outputs(book) -> str:
    texts = []
    for cell in book.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            for kind, value in output.get("data", {}).items():
                texts.append(kind)
                texts.append(value if isinstance(value, str) else "")
    return "\n".join(texts)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_notebook_runs(name, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(not cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), \
        f"{name}: commit notebooks without outputs (CI runs them)"
    start = time.monotonic()
    nbclient.NotebookClient(book, timeout=SECONDS, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert time.monotonic() - start < SECONDS
    shown = _outputs(book)
    for text in SHOWN[name]:
        assert text in shown, f"{name} does not show {text!r}"
