"""The release report as a reader sees it: rendered by a real headless Chromium, screenshotted, and its
rendered DOM checked for the epsilon, the neighbour relation, the plot and the "not covered" section.

Skips with a reason when no chromium binary is present (.ci/run installs it)."""

import re
import shutil
import subprocess

import pytest

import dpcvx
from dpcvx.demo import synthetic_classification

pytestmark = pytest.mark.slow

CHROMIUM = next((path for path in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if path), None)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _chromium(*arguments: str, cwd) -> subprocess.CompletedProcess:
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={cwd / 'profile'}", *arguments], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium); .ci/run installs it")
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_the_report_renders_in_headless_chromium(tmp_path, delta):
    X, y = synthetic_classification(n=800, d=3, random_state=5)
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, epsilon=0.7, delta=delta, mechanism="output",
                                                          random_state=0)
    page = model.report().write(tmp_path / "report.html")
    url = page.resolve().as_uri()

    screenshot = tmp_path / "report.png"
    shot = _chromium(f"--screenshot={screenshot}", "--window-size=1000,2600", url, cwd=tmp_path)
    assert screenshot.exists(), shot.stderr[-2000:]
    image = screenshot.read_bytes()
    assert image.startswith(PNG_MAGIC) and len(image) > 50_000  # a page of text and a plot, not a blank

    dom = _chromium("--dump-dom", url, cwd=tmp_path).stdout
    assert "epsilon = 0.7," in dom and f"delta = {delta:.3g}" in dom
    assert "Neighbour relation: replace-one." in dom
    plot = re.search(r'<figure id="privacy-curve-plot"><svg.*?</svg>', dom, flags=re.S)
    assert plot is not None and "<path" in plot.group(0) and "epsilon" in plot.group(0)  # axes drawn, text kept
    covered = re.search(r'<section id="not-covered">.*?</section>', dom, flags=re.S)
    assert covered is not None and "What is NOT covered" in covered.group(0)
    assert "Repeated releases" in covered.group(0) and "Computer arithmetic" in covered.group(0)
