"""The report draws its privacy curve only when a form shows it (session 62).

ReleaseReport drew the SVG plot in its constructor (matplotlib's import, the figure, tight_layout and savefig: 91 % of
a warm report() and about 0.5 s more on the first call in a process), though only the HTML form and the Markdown form
with ``embed_plot=True`` show it. The figure is now drawn on first read; every form's text is the same bytes.
"""

import subprocess
import sys

import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.release import report as report_module


@pytest.fixture(scope="module")
def model():
    X, y = synthetic_classification(n=400, d=3, random_state=3)
    return dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, epsilon=0.8, delta=1e-6, mechanism="output",
                                                         random_state=0)


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    draw = report_module._svg

    def counted(*args, **kwargs):
        calls.append(1)
        return draw(*args, **kwargs)

    monkeypatch.setattr(report_module, "_svg", counted)
    return calls


def test_markdown_draws_no_figure_and_is_the_same_text(model, monkeypatch):
    calls = _counting(monkeypatch)
    report = model.report()
    text = report.to_markdown()
    assert calls == []  # drew nothing: the constructor drew it on every report before
    assert "The plot of this curve is in the HTML report" in text
    drawn = model.report()
    svg = drawn.figure  # drawn first, then the Markdown: the same bytes
    assert calls == [1] and svg is not None and svg.startswith("<svg")
    assert drawn.to_markdown() == text
    assert drawn.figure is svg and calls == [1]  # drawn once per report


def test_html_and_embedded_markdown_draw_it_once(model, monkeypatch):
    calls = _counting(monkeypatch)
    report = model.report()
    page = report.to_html()
    embedded = report.to_markdown(embed_plot=True)
    assert calls == [1]
    assert f'<figure id="privacy-curve-plot">{report.figure}' in page
    assert "![the privacy curve](data:image/svg+xml;base64," in embedded
    assert page == model.report().to_html()  # the same page whether drawn by the HTML form or read first


def test_command_line_markdown_report_imports_no_matplotlib(model, tmp_path):
    path = dpcvx.save(model, tmp_path / "m.json")
    out = tmp_path / "r.md"
    code = ("import sys\nfrom dpcvx.cli import main\n"
            f"status = main(['report', {str(path)!r}, '--out', {str(out)!r}])\n"
            "print(status, 'matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"]
    assert out.read_text() == dpcvx.load(path).report().to_markdown()
