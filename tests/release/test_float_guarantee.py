"""Every release names its floating-point guarantee (dpcvx.privacy.float_guarantee), and the loader
re-derives the name: the linear releases are "mitigation-only" (rounded to the release grid)."""

from __future__ import annotations

import json

import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.privacy.float_guarantee import FloatGuarantee


@pytest.fixture(scope="module")
def release():
    X, y = synthetic_classification(n=400, d=3, random_state=1)
    return dpcvx.PrivateERM(data_norm=1.0).fit(X, y, epsilon=0.5, random_state=0)


def test_linear_release_is_named_mitigation_only_and_an_edited_name_is_refused(release, tmp_path):
    data = json.loads(dpcvx.save(release, tmp_path / "model.json").read_text())
    assert data["certificate"]["calibration"]["float_guarantee"] == "mitigation-only"
    assert FloatGuarantee.MITIGATION_ONLY.statement in str(dpcvx.load(tmp_path / "model.json").certificate)
    for name in ("exact", "snapped", "bogus"):
        data["certificate"]["calibration"]["float_guarantee"] = name
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(dpcvx.InputError, match="calibration.float_guarantee: recorded"):
            dpcvx.load(tmp_path / "edited.json")


def test_float_guarantee_names_parse_or_are_refused():
    assert [FloatGuarantee.parse(member.value) for member in FloatGuarantee] == list(FloatGuarantee)
    with pytest.raises(dpcvx.InputError, match="must be one of"):
        FloatGuarantee.parse("exactish")
