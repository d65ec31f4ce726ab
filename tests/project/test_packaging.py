"""Packaging (issue 43): the license, one source of the version, true lower bounds, the changelog; a wheel
built from the checkout ships the LICENSE (slow)."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dpcvx.version import SCIKIT_LEARN_MINIMUM, __version__

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (the oldest supported Python skips this file)
ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_license_is_an_spdx_expression_with_its_file():
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])  # PEP 639: the expression only
    assert {"Homepage", "Source", "Changelog"} <= set(PROJECT["urls"])


def test_the_version_has_one_source_and_a_changelog():
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "dpcvx.version.__version__"}
    written = [path for path in ROOT.joinpath("dpcvx").rglob("*.py")
               if re.search(r"^__version__\s*=", path.read_text(), re.M)]
    assert written == [ROOT / "dpcvx" / "version.py"]
    assert f"## {__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_the_sklearn_extra_states_the_version_the_estimators_need():
    extras = PROJECT["optional-dependencies"]
    for extra in ("sklearn", "test"):
        assert f"scikit-learn>={SCIKIT_LEARN_MINIMUM}" in extras[extra]
    from sklearn.utils import validation  # the function that needs 1.6

    assert hasattr(validation, "validate_data")


def test_the_readme_quick_path_installs_the_estimators():
    assert 'pip install ".[sklearn,plot]" && dpcvx demo' in (ROOT / "README.md").read_text()


def test_the_minimum_constraints_pin_every_lower_bound():
    result = subprocess.run([sys.executable, str(ROOT / ".ci" / "minimum_constraints.py"), "sklearn"],
                            capture_output=True, text=True, check=True)
    pins = dict(line.split("==") for line in result.stdout.split())
    assert pins["numpy"] == "2.0" and pins["scikit-learn"] == SCIKIT_LEARN_MINIMUM
    assert set(pins) == {re.split(r"[\[>=<]", requirement)[0]
                         for requirement in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["sklearn"]}


@pytest.mark.slow
def test_the_wheel_ships_the_license(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=900)
    (wheel,) = tmp_path.glob("dpcvx-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert f"dpcvx-{__version__}.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"dpcvx-{__version__}.dist-info/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata and f"Version: {__version__}" in metadata
