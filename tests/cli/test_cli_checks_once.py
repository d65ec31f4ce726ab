"""A command parses its --loss spec once and passes the parsed loss on (fit parsed it four times: for what fits, the
usage checks, the problem and again for what fits); the CLI runs the estimators' checks through their public
``check_params`` before it reads the data, with the error their fit raises."""

import csv
from unittest import mock

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.cli import main
from dpcvx.exceptions import InputError


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-checks-once") / "train.csv"
    rng = np.random.default_rng(0)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["age", "income"])
        for _ in range(200):
            age = int(rng.integers(17, 91))
            writer.writerow([age, ">50K" if age + 20 * rng.normal() > 50 else "<=50K"])
    return path


@pytest.fixture
def parses():
    with mock.patch.object(losses, "from_spec", wraps=losses.from_spec) as parse:
        yield parse


def test_fit_parses_the_loss_spec_once(table, tmp_path, parses, capsys):
    code = main(["fit", str(table), "--target", "income", "--positive", ">50K", "--numeric", "age:17:90",
                 "--data-norm", "1", "--loss", "huber:h=0.5", "--epsilon", "1", "--random-state", "0",
                 "--out", str(tmp_path / "model.json")])
    capsys.readouterr()
    assert code == 0 and parses.call_args_list == [mock.call("huber:h=0.5")]


def test_verify_parses_the_loss_spec_once(parses, capsys):
    assert main(["verify", "--loss", "huber:h=0.5"]) == 0
    capsys.readouterr()
    assert parses.call_args_list == [mock.call("huber:h=0.5")]


@pytest.mark.parametrize("estimator", [dpcvx.DPLogisticRegression(epsilon=-1.0),
                                       dpcvx.DPERMClassifier(threshold="prior"),
                                       dpcvx.DPLinearRegression(label_bound=-1.0)])
def test_check_params_raises_what_fit_raises_before_the_data(estimator):
    with pytest.raises(InputError) as checked:
        estimator.check_params()
    with pytest.raises(InputError) as fitted:
        estimator.fit(np.full((4, 2), np.nan), np.zeros(4))  # data fit would refuse, were it read
    assert str(checked.value) == str(fitted.value)
