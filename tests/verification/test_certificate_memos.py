"""A certificate's memos (its verdicts and guarantees asked so far, its index of conditions) stay out of a pickle or a
copy. A certificate is shared by every fit of one loss in a process (the verifier's cache), so its memo held what
other fits had asked (a mechanism and delta), and two seeded fits on the same rows pickled differently, by what else
the process had fitted (an attacker probe, sixtieth session)."""

from __future__ import annotations

import copy
import pickle

import numpy as np

import dpcvx


def _fit(**settings):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(400, 3))
    y = (X[:, 0] + 0.1 * rng.normal(size=400) > 0).astype(int)
    return dpcvx.DPLogisticRegression(epsilon=3.0, random_state=7, **settings).fit(X, y)


def test_two_seeded_fits_pickle_alike_whatever_else_the_process_asked():
    first = pickle.dumps(_fit())
    _fit(delta=1e-6).model_.report().to_markdown()  # another fit of the same loss asks other questions
    assert pickle.dumps(_fit()) == first


def test_a_certificates_memos_are_rebuilt_after_a_pickle_or_copy():
    certificate = _fit().model_.certificate.verification
    certificate.verdict("objective", 1e-6)
    assert "_answers" in vars(certificate)
    for again in (pickle.loads(pickle.dumps(certificate)), copy.deepcopy(certificate), copy.copy(certificate)):
        assert "_answers" not in vars(again) and "by_name" not in vars(again)
        assert again == certificate
        assert again.verdict("objective", 1e-6) == certificate.verdict("objective", 1e-6)
