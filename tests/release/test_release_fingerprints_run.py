"""The fingerprint script (tests/release/release_fingerprints.py) runs: it is a script, not a test, and it had stopped
at its second configuration (a save without overwrite) and at a configuration dpcvx refuses by design (the Gaussian
objective in float-safe form), unnoticed (a regression audit, sixty-fourth session)."""

from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.SlowDescentWarning")
def test_the_fingerprint_script_runs_every_configuration(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    import release_fingerprints

    out = tmp_path / "fingerprints.json"
    assert release_fingerprints.main(["--out", str(out)]) == 0
    assert release_fingerprints.main(["--compare", str(out)]) == 0
