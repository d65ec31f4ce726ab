"""A one-vs-rest release after private column statistics splits eps_fit, not the total, over its k fits: its
composition text says "(eps_fit / k, delta / k)" (it said "(epsilon / k, ...)" next to the stated total epsilon, which
reads as a third of the total), and a file written with the former words still loads, read as the corrected text."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from former_texts import as_version

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.composition import FIT_BUDGET, one_vs_rest_budget
from dpcvx.release.records.header import file_digest


def _fit(**options):
    rng = np.random.default_rng(1)
    X, y = rng.uniform(-0.5, 0.5, (3000, 3)), rng.integers(0, 3, 3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)  # 1000 rows a class at epsilon 0.3
        return dpcvx.DPLogisticRegression(epsilon=1, classes=[0, 1, 2], random_state=0, **options).fit(X, y).model_


@pytest.fixture(scope="module")
def after_statistics():
    return _fit(class_prior="private", threshold="prior", column_statistics=True)


def test_the_split_after_column_statistics_names_eps_fit(after_statistics):
    certificate = after_statistics.certificate
    assert certificate.fit_epsilon is not None
    assert "(eps_fit / 3, delta / 3)" in certificate.composition
    assert "(eps_fit / 3, delta / 3)" in certificate.guarantee and "(epsilon / 3" not in certificate.guarantee


def test_a_split_of_the_whole_budget_names_epsilon():
    certificate = _fit(column_statistics=False).certificate
    assert certificate.fit_epsilon is None
    assert "(epsilon / 3, delta / 3)" in certificate.composition


@pytest.mark.parametrize("mechanism, delta, float_safe", [("objective", 0.0, False), ("output", 1e-6, False),
                                                          ("output", 1e-6, True)])
def test_every_composition_text_names_the_budget_it_splits(mechanism, delta, float_safe):
    whole = one_vs_rest_budget(3, 0.9, delta, mechanism, float_safe)
    fits = one_vs_rest_budget(3, 0.9, delta, mechanism, float_safe, FIT_BUDGET)
    assert whole[:2] == fits[:2]  # the same split, in other words
    assert "(epsilon" in whole[2] and "(eps_fit" in fits[2] and "(epsilon" not in fits[2]


def test_a_file_with_the_former_words_loads_and_other_words_are_refused(after_statistics, tmp_path):
    """The former words load from a file of format version 18 or older (written before f30c232e named eps_fit), read
    as the corrected text; a version 19 file holding them, and other words in any file, are refused."""
    saved = json.loads(dpcvx.save(after_statistics, tmp_path / "m.json").read_text())
    for words, version, loads in (("(epsilon / 3, delta / 3)", 18, True), ("(epsilon / 3, delta / 3)", 19, False),
                                  ("(eps_fit / 2, delta / 3)", 18, False), ("(eps_fit / 2, delta / 3)", 19, False)):
        edited = {**saved, "composition": saved["composition"].replace("(eps_fit / 3, delta / 3)", words)}
        edited.pop("sha256")
        edited["sha256"] = file_digest(edited)
        path = tmp_path / f"{loads}.json"
        path.write_text(json.dumps(as_version(edited, version)))
        if loads:
            assert "(eps_fit / 3, delta / 3)" in dpcvx.load(path).certificate.composition
        else:
            with pytest.raises(InputError, match="composition"):
                dpcvx.load(path)
