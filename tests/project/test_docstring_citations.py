"""The public mechanisms' docstrings name their paper and the proof's place (a review found DPHuberSVM, audit,
canary_pair, fit_private_norm, PrivacyAccountant, PrivateMulticlassERM and the kernel learners' fit citing none)."""

import inspect

import pytest

import dpcvx
from dpcvx.models.audit import audit, canary_pair
from dpcvx.models.private_norm import fit_private_norm

CITED = {
    "DPHuberSVM": (dpcvx.DPHuberSVM, "JMLR 12 (2011), Sec. 3.4.2", "docs/theory.md, sections 2 to 4"),
    # session 62 (probeC F8): help() of these two showed no paper, DPHuberRegressor's no formula either
    "DPERMClassifier": (dpcvx.DPERMClassifier, "Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), Theorem 1",
                        "docs/theory.md, sections 2 to 4"),
    "DPHuberRegressor": (dpcvx.DPHuberRegressor, "Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), Theorem 2",
                         "docs/theory.md, section 16"),
    "audit": (audit, "Jagielski, Ullman and Oprea (NeurIPS 2020)", "docs/audit.md"),
    "canary_pair": (canary_pair, "Jagielski, Ullman and Oprea, NeurIPS 2020", "docs/audit.md"),
    "fit_private_norm": (fit_private_norm, "McSherry and Talwar 2007", "docs/theory.md, sections 24.3 and 29"),
    "PrivacyAccountant": (dpcvx.PrivacyAccountant, "McSherry 2009", "docs/theory.md, section 13"),
    "PrivateMulticlassERM": (dpcvx.PrivateMulticlassERM, "Dwork and Roth 2014", "docs/theory.md, section 15"),
    "PrivateMulticlassERM.fit": (dpcvx.PrivateMulticlassERM.fit, "Dwork and Roth 2014", "docs/theory.md, section 15"),
    "TDDL.fit": (dpcvx.TDDL.fit, "Jain and Thakurta (ICML 2013), Algorithm 2", "docs/theory.md, section 11, K4"),
    "PINP.fit": (dpcvx.PINP.fit, "Jain and Thakurta (ICML 2013), Algorithm 1", "docs/theory.md, section 11, K5"),
    "TDIL.fit": (dpcvx.TDIL.fit, "Jain and Thakurta (ICML 2013), Algorithm 3", "docs/theory.md, section 11, K6"),
}


@pytest.mark.parametrize("name", sorted(CITED))
def test_a_public_mechanism_s_docstring_cites_its_paper_and_proof(name):
    target, paper, proof = CITED[name]
    text = " ".join((inspect.getdoc(target) or "").split())
    assert paper in text and proof in text, name


def test_the_huber_regressor_s_help_states_its_loss():
    text = " ".join((inspect.getdoc(dpcvx.DPHuberRegressor) or "").split())
    assert "rho_m(r) = r^2 / 2 for |r| <= m and m |r| - m^2 / 2 beyond (Huber 1964), so L = m and c = 1" in text
