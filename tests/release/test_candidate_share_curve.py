"""A model dpcvx.tune selected spends the selection's total; its certificate's curve is one candidate's fit. The
docs send users to the release's own curve (``model.privacy_curve``) for composition and dp-accounting, and the
candidate's curve says what it is and is refused by ``to_dp_events`` (an attacker probe composed 0.667 for a
release that spent 2 by following the former docs' recipe)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import compose_epsilon

ROOT = Path(__file__).resolve().parents[2]
#: every page a user reads for how to compose a release
PAGES = [*sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "notebooks").glob("*.ipynb")),
         *sorted((ROOT / "examples").rglob("*.py")), ROOT / "README.md"]


@pytest.fixture(scope="module")
def tuned():
    X, y = synthetic_classification(n=600, d=3, random_state=0)
    return dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [0.01, 0.1, 1.0]}, epsilon=2.0,
                      random_state=0).release


def _recipe() -> str:
    """The attribute path docs/accounting.md's dp-accounting recipe reads a fitted release's curve by."""
    text = (ROOT / "docs" / "accounting.md").read_text()
    found = re.search(r"^curve = learner\.fit\([^\n]*\)((?:\.\w+)+)$", text, flags=re.MULTILINE)
    assert found, "docs/accounting.md's dp-accounting recipe moved: update this test"
    return found.group(1)


def _follow(release, path: str):
    for name in path.strip(".").split("."):
        release = getattr(release, name)
    return release


def test_the_docs_recipe_on_a_tuned_release_composes_what_it_spent(tuned):
    curve = _follow(tuned, _recipe())
    assert tuned.epsilon == 2.0
    assert compose_epsilon([curve], 0.0) == pytest.approx(tuned.epsilon, rel=1e-9)
    pytest.importorskip("dp_accounting")
    curve.to_dp_events()  # the selection's one (2, 0) part: an event, not a refusal


def test_no_page_names_the_certificates_curve_as_the_release_s():
    offending = [f"{page.relative_to(ROOT)}: {line.strip()[:120]}" for page in PAGES
                 for line in page.read_text().splitlines()
                 if re.search(r"certificate\.privacy_curve\.(to_dp_events|profile|to_dict)\(", line)
                 or re.search(r"\(`(model\.)?certificate\.privacy_curve`\), and the accountant", line)]
    assert offending == []


def test_a_candidates_curve_says_it_is_a_share_and_dp_accounting_refuses_it(tuned, tmp_path):
    pytest.importorskip("dp_accounting")
    for release in (tuned, dpcvx.load(dpcvx.save(tuned, tmp_path / "tuned.json"))):
        share = release.certificate.privacy_curve
        assert compose_epsilon([release.privacy_curve], 0.0) == pytest.approx(release.epsilon)
        with pytest.raises(InputError, match=r"compose model\.privacy_curve"):  # one candidate's: a third here
            compose_epsilon([share], 0.0)
        assert "ONE CANDIDATE'S SHARE" in str(share) and "model.privacy_curve" in str(share)
        assert share.under("replace-one").candidate_share
        with pytest.raises(InputError, match=r"compose model\.privacy_curve"):
            share.to_dp_events()
        assert "ONE CANDIDATE'S SHARE" not in str(release.privacy_curve)


def test_the_file_records_the_mark_and_saves_again_the_same(tuned, tmp_path):
    """The certificate's record (its ``to_dict``, so its file's, format version 20) is its curve's dict, the mark
    included, so that a reader of the file's curve reads a share (test_candidate_curve_records.py); its curve's
    equality ignores the mark, and a release saved again from its loaded file is the same file."""
    first = dpcvx.save(tuned, tmp_path / "first.json")
    again = dpcvx.save(dpcvx.load(first), tmp_path / "again.json")
    assert first.read_bytes() == again.read_bytes()
    recorded = json.loads(first.read_text())["certificate"]["privacy_curve"]
    assert recorded == tuned.certificate.privacy_curve.to_dict() and recorded["candidate_share"] is True


def test_an_untuned_release_s_certificate_curve_is_its_own():
    X, y = synthetic_classification(n=600, d=3, random_state=0)
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    assert not model.certificate.privacy_curve.candidate_share
    assert model.certificate.privacy_curve == model.privacy_curve
    assert np.isclose(compose_epsilon([model.certificate.privacy_curve], 0.0), model.epsilon)


def test_a_candidates_curve_is_refused_wherever_it_is_composed_or_charged(tuned):
    """compose_epsilon and an accountant's charge refuse a tuned release's candidate curve as to_dp_events does
    (they took 0.667 of a release that spent 2: an attacker probe, sixty-eighth session); the release's own curve
    composes to its total and charges."""
    model = tuned
    candidate = model.certificate.privacy_curve
    with pytest.raises(dpcvx.InputError, match="ONE CANDIDATE'S SHARE"):
        compose_epsilon([candidate], 0.0)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(dpcvx.InputError, match="ONE CANDIDATE'S SHARE"):
        accountant.spend(model.certificate.epsilon, curve=candidate)
    with pytest.raises(dpcvx.InputError, match="ONE CANDIDATE'S SHARE"):
        accountant.can_spend(model.certificate.epsilon, curve=candidate)
    assert not accountant.ledger
    assert compose_epsilon([model.privacy_curve], 0.0) == pytest.approx(model.epsilon)
    accountant.spend(model.epsilon, curve=model.privacy_curve)
    assert accountant.spent.epsilon == pytest.approx(model.epsilon)
