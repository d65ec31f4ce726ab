"""X that is not 2-D gets one refusal, with the reshapes that fix it, at every entry (dpcvx.validation's
not_two_dimensional): tune, the private norm quantile and a memmap's row blocks each had their own text, tune's and
the quantile's without the fix, the quantile's without the shape."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.quantile import private_norm_bound

X1 = np.random.default_rng(4).uniform(-0.3, 0.3, size=300)
Y = np.where(X1 > 0, 1, -1)
REFUSAL = (r"^X must be 2-D \(n samples x d features\), got shape \(300,\); reshape a single feature with "
           r"X\.reshape\(-1, 1\) or a single sample with X\.reshape\(1, -1\)$")


def _memmap(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, X1)
    return np.load(path, mmap_mode="r")


ENTRIES = {
    "PrivateERM": lambda X, accountant: dpcvx.PrivateERM(data_norm=1.0).fit(X, Y, epsilon=1.0, accountant=accountant),
    "tune": lambda X, accountant: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, grid={"lam": [1e-2]},
                                             epsilon=1.0, accountant=accountant),
    "fit_private_norm": lambda X, accountant: dpcvx.fit_private_norm(dpcvx.PrivateERM(), X, Y, 1.0, r_min=0.1,
                                                                     r_max=10.0, accountant=accountant),
    "private_norm_bound": lambda X, accountant: private_norm_bound(X, epsilon=1.0, r_min=0.1, r_max=10.0,
                                                                   accountant=accountant),
    "TDDL": lambda X, accountant: dpcvx.TDDL(lam=1e-2, gamma=1.0).fit(X, Y, epsilon=1.0, Z=np.zeros((3, 1)),
                                                                      accountant=accountant),
}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", ["array", "memmap"])
def test_one_refusal_of_x_that_is_not_two_dimensional(entry, kind, tmp_path):
    X = X1 if kind == "array" else _memmap(tmp_path)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=REFUSAL):
        ENTRIES[entry](X, accountant)
    assert accountant.ledger == []
