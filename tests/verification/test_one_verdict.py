"""One verdict everywhere: dpcvx.verify, PrivateERM.verify, PrivateERM.fit and the CLI (verify and fit).

Every entry point asks dpcvx.verification.verdict.decide, so on a grid of regularizers (smooth
ridge, L1 + ridge, elastic net, group lasso, a constraint set), losses (C^2 logistic, piecewise C^2
Huber hinge), mechanisms and delta they agree; and a printed certificate never shows a FAIL row,
for a mechanism it allows, among the hypotheses of the theorem that grants it.
"""

import csv
import re

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.cli import main
from dpcvx.exceptions import AssumptionError

D = 4
REGULARIZERS = {
    "ridge": "0.5 * cp.sum_squares(w)",
    "l1-ridge": "cp.norm1(w) + 0.5 * cp.sum_squares(w)",
    "elastic-net": "0.3 * cp.norm1(w) + 0.2 * cp.sum_squares(w)",
    "group-lasso": "cp.norm(w[0:2], 2) + cp.norm(w[2:4], 2) + 0.5 * cp.sum_squares(w)",
}
LOSSES = {"logistic": losses.logistic(), "huber:h=0.5": losses.huber_hinge(0.5)}
EXPECTED_ALLOWED = {  # (regularizer, loss, mechanism, delta > 0): the theorems of docs/theory.md
    **{(reg, loss, "objective", gaussian): loss == "logistic" or (reg == "ridge" and not gaussian)
       for reg in REGULARIZERS for loss in LOSSES for gaussian in (False, True)},
    **{(reg, loss, "output", gaussian): reg == "ridge" for reg in REGULARIZERS for loss in LOSSES
       for gaussian in (False, True)},
}


def regularizer(name):
    return eval(f"lambda w: {REGULARIZERS[name]}", {"cp": cp})  # noqa: S307 - the test's own table


def BALL(w):
    return [cp.norm(w, 2) <= 1.0]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, size=(200, D))
    return X, np.where(X @ np.array([1.0, -1.0, 0.5, 0.0]) + 0.1 * rng.normal(size=200) > 0, 1, -1)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, data):
    directory = tmp_path_factory.mktemp("verdict")
    X, y = data
    with open(directory / "train.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([f"x{j}" for j in range(D)] + ["label"])
        writer.writerows([*row, "yes" if label > 0 else "no"] for row, label in zip(X.tolist(), y, strict=True))
    for name, text in REGULARIZERS.items():
        (directory / f"{name}.py").write_text(f"import cvxpy as cp\nregularizer = lambda w: {text}\n")
    return directory


def cli(monkeypatch, capsys, directory, *args):
    monkeypatch.chdir(directory)
    code = main([str(arg) for arg in args])
    return code, capsys.readouterr().out


def allows(certificate, mechanism, delta):
    """The certificate's verdict (the two-argument form at delta = 0, as every release file reads it)."""
    return certificate.allows(mechanism) if delta == 0 else certificate.allows(mechanism, delta)


def fit_allows(learner, X, y, mechanism, delta):
    try:
        learner.fit(X, y, 1.0, mechanism, delta=delta, random_state=0)
    except AssumptionError:
        return False
    return True


def assert_no_fail_for_granting_theorem(text, certificate, delta=0.0):
    """Rows of the hypotheses of an allowed mechanism's theorem never read FAIL for that mechanism."""
    for mechanism in ("output", "objective"):
        verdict = certificate.verdict(mechanism, delta)
        if not verdict.allowed:
            continue
        for name in verdict.theorem.requires:
            row = next((line for line in text.splitlines() if line.split(" ", 1)[0] == name), None)
            if row is None:
                continue
            status = re.split(r"\s{2,}", row.strip())[-1]
            other = "objective" if mechanism == "output" else "output"
            assert "FAIL" not in status.replace(f"{other}: FAIL", ""), (mechanism, row)


@pytest.mark.parametrize("mechanism", ["output", "objective"])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("name", list(REGULARIZERS))
def test_the_four_entry_points_give_one_verdict(data, workdir, monkeypatch, capsys, name, loss, mechanism):
    X, y = data
    learner = dpcvx.PrivateERM(loss=LOSSES[loss], regularizer=regularizer(name), lam=0.1, data_norm=1.0)
    for delta in (0.0, 1e-6):
        expected = EXPECTED_ALLOWED[(name, loss, mechanism, delta > 0)]
        certificate = dpcvx.verify(LOSSES[loss], regularizer(name), dim=D)
        assert allows(certificate, mechanism, delta) == expected
        assert allows(learner.verify(D), mechanism, delta) == expected
        assert fit_allows(learner, X, y, mechanism, delta) == expected
        code, _ = cli(monkeypatch, capsys, workdir, "fit", "train.csv", "--target", "label", "--positive", "yes",
                      "--negative", "no", *[arg for j in range(D) for arg in ("--numeric", f"x{j}:-0.5:0.5")],
                      "--loss", loss, "--regularizer", f"{name}.py", "--mechanism", mechanism, "--epsilon", "1",
                      "--delta", str(delta), "--lam", "0.1", "--data-norm", "1", "--random-state", "0",
                      "--out", "out.json", "--overwrite")  # each delta's model replaces the last one's
        assert (code == 0) == expected, (code, delta)
    code, printed = cli(monkeypatch, capsys, workdir, "verify", "--loss", loss, "--regularizer", f"{name}.py",
                        "--mechanism", mechanism, "--dim", D)
    assert (code == 0) == EXPECTED_ALLOWED[(name, loss, mechanism, False)]
    assert printed.strip() == str(dpcvx.verify(LOSSES[loss], regularizer(name), dim=D)).strip()
    verdict_line = f"{mechanism} perturbation: " + ("allowed by " if code == 0 else "NOT allowed (")
    assert verdict_line in printed
    assert_no_fail_for_granting_theorem(printed, dpcvx.verify(LOSSES[loss], regularizer(name), dim=D))


@pytest.mark.parametrize("loss", list(LOSSES))
def test_a_constraint_set_gets_one_verdict_from_verify_and_fit(data, loss):
    X, y = data
    learner = dpcvx.PrivateERM(loss=LOSSES[loss], constraints=BALL, lam=0.1, data_norm=1.0)
    certificate = dpcvx.verify(LOSSES[loss], constraints=BALL, dim=D)
    for mechanism in ("output", "objective"):
        for delta in (0.0, 1e-6):
            expected = mechanism == "objective" and loss == "logistic"  # KST12, C^2 loss only
            assert allows(certificate, mechanism, delta) == expected
            assert allows(learner.verify(D), mechanism, delta) == expected
            assert fit_allows(learner, X, y, mechanism, delta) == expected
    assert_no_fail_for_granting_theorem(str(certificate), certificate)


def test_the_release_certificate_shows_no_fail_above_its_verdict(data):
    X, y = data
    model = dpcvx.PrivateERM(regularizer=regularizer("l1-ridge"), lam=0.1, data_norm=1.0).fit(X, y, 1.0,
                                                                                              random_state=0)
    text = str(model.certificate)
    assert "objective perturbation: allowed by Theorem 1 of Kifer, Smith and Thakurta" in text
    assert re.search(r"regularizer_differentiability .*output: FAIL, objective: not required", text)
    assert re.search(r"regularizer_twice_differentiability .*not required", text)
    assert_no_fail_for_granting_theorem(text, model.certificate.verification)
    table = text.split("objective perturbation: allowed")[0]
    assert not any(re.split(r"\s{2,}", line.strip())[-1] == "FAIL" for line in table.splitlines())


def test_the_row_check_catches_a_fail_row_among_the_granting_theorems_hypotheses():
    """The check above is not vacuous: a FAIL on a hypothesis of KST12 under "allowed" is caught."""
    certificate = dpcvx.verify(losses.logistic(), regularizer("l1-ridge"), dim=D)
    text = str(certificate)
    row = next(line for line in text.splitlines() if line.startswith("rank_one_hessian"))
    assert_no_fail_for_granting_theorem(text, certificate)
    with pytest.raises(AssertionError):
        assert_no_fail_for_granting_theorem(text.replace(row, row.replace("pass", "FAIL")), certificate)


@pytest.mark.parametrize("mechanism", [None, ["output"], "outputs", 1])
def test_a_verdict_asked_of_no_mechanism_names_the_two(mechanism):
    """Every question a certificate answers refuses a mechanism that is none, with the names of the two: a list could
    not key its cached answers (a bare TypeError before)."""
    certificate = dpcvx.verify(losses.logistic())
    asks = [certificate.verdict, certificate.allows, certificate.require, certificate.failures, certificate.guarantee]
    for ask in asks + ([certificate.estimated] if mechanism is not None else []):  # estimated(None): any mechanism
        with pytest.raises(dpcvx.InputError, match=r"mechanism must be one of 'output', 'objective'; got "):
            ask(mechanism)


@pytest.mark.parametrize("delta", [None, "0", float("nan"), -0.1, 1.5, [0.0]])
def test_a_verdict_at_a_delta_that_is_none_is_refused(delta):
    certificate = dpcvx.verify(losses.logistic())
    for ask in (certificate.verdict, certificate.allows, certificate.guarantee):
        with pytest.raises(dpcvx.InputError, match="delta"):
            ask("objective", delta)
    with pytest.raises(dpcvx.InputError, match="delta"):
        certificate.report(delta)


def test_a_condition_asked_by_no_name_is_a_key_error_naming_the_conditions():
    certificate = dpcvx.verify(losses.logistic())
    for name in (["lipschitz"], None, "L2"):
        with pytest.raises(KeyError, match="the certificate has: declaration"):
            certificate.condition(name)
        with pytest.raises(KeyError, match="the certificate has: declaration"):
            certificate.method(name)
    assert certificate.proof_of(["L"]) is None and certificate.proof_of("L").name == "lipschitz"
