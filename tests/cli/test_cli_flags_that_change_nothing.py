"""Flags that would change nothing for the output asked for are refused (docs/cli.md: "A flag that would change nothing
is refused too"), a usage error (exit 2) before the model is read: `report --embed-plot` for an HTML report, which
always holds the plot (it was accepted and the page was the same bytes; attacker probe P2, F3), and `--overwrite`
without `--out` in `predict` and `report`, which then write standard output. The Python report refuses
``embed_plot=True`` with "html" (an InputError), as the command line does."""

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    release = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    return dpcvx.save(release, tmp_path_factory.mktemp("model") / "model.json")


@pytest.mark.parametrize("options", [["--format", "html", "--embed-plot"], ["--out", "r.html", "--embed-plot"],
                                     ["--out", "r.htm", "--embed-plot", "--overwrite"]])
def test_embed_plot_for_an_html_report_is_refused_before_the_model_is_read(options, capsys, tmp_path, monkeypatch,
                                                                           model_file):
    monkeypatch.chdir(tmp_path)
    for model in (str(model_file), "no-such-model.json"):  # the same refusal: the model is not read
        assert main(["report", model, *options]) == 2
        error = capsys.readouterr().err
        assert "usage error: --embed-plot embeds the plot" in error and "would change nothing" in error
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("options", [["--embed-plot"], ["--out", "r.md", "--embed-plot"],
                                     ["--format", "markdown", "--out", "r.html", "--embed-plot"]])
def test_embed_plot_for_a_markdown_report_embeds_it(options, capsys, tmp_path, monkeypatch, model_file):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(model_file), *options]) == 0
    written = [path.read_text() for path in tmp_path.iterdir()] or [capsys.readouterr().out]
    assert "data:image/svg+xml;base64," in written[0]


@pytest.mark.parametrize("command", [["report"], ["predict", "data.csv"]])
def test_overwrite_without_out_is_refused_before_the_model_is_read(command, capsys, tmp_path, monkeypatch,
                                                                   model_file):
    monkeypatch.chdir(tmp_path)
    for model in (str(model_file), "no-such-model.json"):
        assert main([command[0], model, *command[1:], "--overwrite"]) == 2
        error = capsys.readouterr().err
        assert "usage error: --overwrite lets --out replace an existing file" in error
        assert "would change nothing" in error


def test_the_python_report_refuses_embed_plot_for_html(model_file, tmp_path):
    report = dpcvx.load(model_file).report()
    with pytest.raises(dpcvx.InputError, match="embed_plot=True embeds the plot .* would change nothing"):
        report.render("html", embed_plot=True)
    with pytest.raises(dpcvx.InputError, match="would change nothing"):
        report.write(tmp_path / "r.html", embed_plot=True)
    assert not (tmp_path / "r.html").exists()
    assert "data:image/svg+xml;base64," in report.render("markdown", embed_plot=True)
    assert report.render("html") == report.render("html", embed_plot=False)
