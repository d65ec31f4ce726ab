"""An edited model file is refused with a typed error naming the field, by the one check each field has for every
kind of file: the neighbour relation, the class labels, the kernel constants and outputs, the regressions' public
bounds and the feature map (the auditor's findings against the file codec)."""

import copy
import re
import warnings

import cvxpy as cp
import numpy as np
import pytest
from former_texts import not_recorded, without_noise_source

import dpcvx
from dpcvx import validation
from dpcvx.data.kernels import RandomFourierFeatures
from dpcvx.exceptions import InputError
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.release import serialization
from dpcvx.release.records.header import DIGEST, file_digest
from dpcvx.solvers import kernel as kernel_solver

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files


def _data(n=80):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def files():
    """One saved dict of every kind: AdaSSP, Huber, linear, multiclass, RFF linear, TDDL, PINP, TDIL (a net and a
    ball search), and the float-safe TDDL and TDIL."""
    X, y = _data()
    yr = X @ np.array([1.0, -0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ExponentialCostWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        pinp = PINP("rbf", lam=0.1, gamma=1.0, max_queries=5).fit(X, y, 1.0, 0, random_state=0)
        for row in X[:3]:
            pinp.query(row)
        rff = RandomFourierFeatures("rbf", gamma=1.0, n_components=6, random_state=0)
        releases = {
            "linreg": dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=2.0,
                                               random_state=0).fit(X, yr),
            "huber": dpcvx.DPHuberRegressor(epsilon=1.0, data_norm=1.0, label_bound=2.0, random_state=0).fit(X, yr),
            "linear": dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=(-1, 1), random_state=0).fit(X, y),
            "multi": dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=(0, 1, 2), random_state=0).fit(
                X, np.digitize(X[:, 0], [-0.3, 0.3])),
            "rff": dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), lam=0.1, feature_map=rff).fit(
                X, y, 1.0, random_state=0),
            "tddl": TDDL("rbf", lam=0.1, gamma=1.0, loss="logistic").fit(X, y, 1.0, 1e-6, Z=X[:8], random_state=0),
            "pinp": pinp.release(),
            "tdil": TDIL("rbf", lam=0.1, gamma=1.0, input_bound=1.0, net_spacing=0.5).fit(X, y, 1.0, 0,
                                                                                         random_state=0),
            "tdil_ball": TDIL("linear", lam=0.1, input_bound=1.0).fit(X, y, 1.0, 0, random_state=0),
            "tddl_safe": TDDL("rbf", lam=0.1, gamma=1.0, float_safe=True).fit(X, y, 1.0, Z=X[:8], random_state=0),
            "tdil_safe": TDIL("linear", lam=0.1, input_bound=1.0, float_safe=True).fit(X, y, 50.0, 1e-6,
                                                                                     random_state=0),
        }
    saved = {}
    for name, release in releases.items():
        saved[name] = serialization.model_to_dict(getattr(release, "model_", release))
        serialization.model_from_dict(copy.deepcopy(saved[name]))  # the unedited file loads
    return saved


def _edited(files, name, edit):
    data = copy.deepcopy(files[name])
    edit(data)
    return data


def _resealed(data):
    """An edited file with the digest of its edited content: what passes every check of a field is what loads."""
    return {**data, DIGEST: file_digest(data)}


def _refused(files, name, edit, match):
    with pytest.raises(InputError, match=match):
        serialization.model_from_dict(_edited(files, name, edit))


def _certificates(data):
    return [part["certificate"] for part in data["per_class"]] if "per_class" in data else [data["certificate"]]


def _set_neighbours(text):
    def edit(data):
        for certificate in _certificates(data):
            certificate["neighbours"] = text(certificate["neighbours"])
    return edit


@pytest.mark.parametrize("name", ["linreg", "huber", "linear", "multi", "tddl", "pinp", "tdil"])
def test_a_rewritten_neighbour_relation_is_refused_by_every_kind(files, name):
    _refused(files, name, _set_neighbours(lambda _: "add-remove: neighbouring data sets differ by one record"),
             "states add-remove but the calibration is for replace-one")
    _refused(files, name, _set_neighbours(lambda text: text + " EDITED"), "neighbours is .* but dpcvx states")


@pytest.mark.parametrize("name", ["linear", "multi", "rff"])
@pytest.mark.parametrize("labels", [[0, "1", 1e300], [True, "1", 2], [0, 1, float("inf")], [0, 1, 10**30],
                                    [0, 1, 2.5], [[0], 1, 2]])
def test_class_labels_no_fit_could_hold_are_refused_by_every_classifier_file(files, name, labels):
    pair = len(files[name]["classes"]) == 2
    _refused(files, name, lambda data: data.update(classes=[labels[0], labels[-1]] if pair else labels),
             "classes (must|holds)")


@pytest.mark.parametrize("labels", [["a", "b", "c"], [0.5, 1.5, 2.5], [-5, 7, 9]])
def test_class_labels_of_one_type_load_and_predict_as_saved(files, labels):
    """The labels' checks take any labels of one type; the file is resealed, since the digest refuses any relabelling
    of a saved file (test_sealed_files)."""
    model = serialization.model_from_dict(_resealed(_edited(files, "multi", lambda data: data.update(classes=labels))))
    assert set(model.predict(_data()[0]).tolist()) <= set(labels)


@pytest.mark.parametrize("name", ["linreg", "huber"])
@pytest.mark.parametrize("labels", [True, "1", [1], float("inf"), [-1, 1]])
def test_a_regression_file_holds_no_classes(files, name, labels):
    _refused(files, name, lambda data: data.update(classes=labels), "classes|regression")


def _set(path, value):
    def edit(data):
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value(data[last]) if callable(value) else value
    return edit


@pytest.mark.parametrize("name", ["tddl", "pinp", "tdil"])
@pytest.mark.parametrize(("path", "value", "match"), [
    (("certificate", "constants", "n", "value"), 1e300, "constants.n.value must be an integer"),
    (("certificate", "constants", "n", "value"), 80.0, "constants.n.value must be an integer"),
    (("certificate", "constants", "L", "exact"), "1x", "L.exact is '1x', which does not state"),
    (("certificate", "constants", "L", "exact"), "2", "L.exact is '2', which does not state"),
    (("certificate", "constants", "L", "exact"), "__import__('os')", "which does not state"),
])
def test_a_kernel_file_s_constants_are_read_by_their_types(files, name, path, value, match):
    _refused(files, name, _set(path, value), match)


def test_a_kernel_file_s_values_are_numbers_in_rows_of_n_features(files):
    _refused(files, "tddl", _set(("privatised", "coef", 0), True), r"privatised.coef\[0\] must be a number")
    _refused(files, "tddl", _set(("predictor", "n_features"), 3), "rows of 3 numbers")
    _refused(files, "tdil_ball", _set(("predictor", "n_features"), 3), "calibration.ball_dimension is 2")
    _refused(files, "pinp", _set(("predictor", "n_features"), 2**70), "more columns than an array holds")


@pytest.mark.parametrize(("outputs", "match"), [
    ({"rounds_used": 10**30}, "released centres under B = 2 give"),
    ({"certified": False}, "released centres under B = 2 give"),
    ({"rounds_used": 2}, "released centres under B = 2 give"),
])
def test_tdil_s_outputs_are_the_ones_its_centres_give(files, outputs, match):
    _refused(files, "tdil", lambda data: data["privatised"].update(outputs), match)


def test_pinp_s_update_count_is_its_centres(files):
    _refused(files, "pinp", _set(("privatised", "updates_used"), 1), "released centres under B = 1 give")


@pytest.mark.parametrize("name", ["linear", "huber"])
@pytest.mark.parametrize("text", ["1x", "2", "sqrt(2)"])
def test_a_linear_file_s_exact_constant_states_its_double(files, name, text):
    _refused(files, name, _set(("certificate", "constants", "L", "exact"), text), "which does not state")


@pytest.mark.parametrize(("path", "value", "match"), [
    (("certificate", "data_norm"), lambda v: v * 1.001, "row_map.norm_bound is 1.0 but the certificate records"),
    (("certificate", "data_norm"), 10**30, "row_map.norm_bound is 1.0 but the certificate records"),
    (("certificate", "intercept_scaling"), lambda v: v * 1.001, "row_map.intercept_scaling is 1.0 but"),
    (("certificate", "fit_intercept"), lambda v: not v, "row_map.fit_intercept is True but"),
])
def test_an_adassp_file_s_stated_bounds_are_its_row_map_s(files, path, value, match):
    _refused(files, "linreg", _set(path, value), match)


@pytest.mark.parametrize("key", ["noise", "bias"])
@pytest.mark.parametrize("name", ["huber", "linear"])
def test_the_lam_rule_s_terms_are_recomputed(files, name, key):
    _refused(files, name, _set(("certificate", "lam_rule", key), lambda v: v * 1.001),
             f"lam_rule.{key} is .* but the rule's bound")


def test_the_lam_rule_s_comparator_is_the_one_its_rule_derives(files):
    _refused(files, "huber", _set(("certificate", "lam_rule", "comparator_norm"), lambda v: v * 1.001),
             "lam_rule.comparator_norm is .* derives W")


@pytest.mark.parametrize("name", ["huber", "linear"])
def test_the_verified_dimension_is_the_certificate_s(files, name):
    _refused(files, name, _set(("certificate", "verification", "dim"), lambda v: v + 1),
             "verification.dim is .* but the certificate states d")


@pytest.mark.parametrize(("edit", "match"), [
    (lambda saved: saved.update(extra=1), r"unknown field\(s\) \['extra'\]"),  # RandomFourierFeatures.from_dict's
    (lambda saved: saved.update(norm_bound=3.0), "norm_bound is sqrt\\(2\\)"),
])
def test_a_saved_feature_map_is_what_its_rebuilt_map_writes(files, edit, match):
    _refused(files, "rff", lambda data: edit(data["preprocessing"]["row_map"]["feature_map"]), match)


_KERNEL_FILES = ["tddl", "pinp", "tdil", "tdil_ball", "tddl_safe", "tdil_safe"]


def _another_type(value):
    """A JSON value of another type than ``value``'s, the same number where it is one (an integer count written as a
    double, a double as a text)."""
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, int):
        return float(value)
    return str(value) if isinstance(value, float) else [value]


@pytest.mark.parametrize("name", _KERNEL_FILES)
def test_every_kernel_calibration_field_null_removed_or_of_another_type_is_refused(files, name):
    for key, value in files[name]["certificate"]["calibration"].items():
        edits = {"removed": lambda data, key=key: data["certificate"]["calibration"].pop(key),
                 "another type": _set(("certificate", "calibration", key), _another_type(value))}
        if value is not None:
            edits["null"] = _set(("certificate", "calibration", key), None)
        for edit in edits.values():
            _refused(files, name, edit, "calibration")


def _map(data):
    return data["preprocessing"]["row_map"]["feature_map"]


@pytest.mark.parametrize(("edit", "match"), [
    (lambda data: data["preprocessing"]["row_map"].update(feature_map=None),
     "feature_map is null, but the model was fitted with the RandomFourierFeatures"),
    (lambda data: data["certificate"].pop("feature_map"), "holds a map, but the certificate records none"),
    (lambda data: _map(data).update(gamma=2.0), "not the RandomFourierFeatures map certificate.feature_map records"),
    (lambda data: _map(data)["frequencies"][0].__setitem__(0, 0.5), "map certificate.feature_map records"),
    (lambda data: _map(data)["phases"].__setitem__(0, 0.5), "map certificate.feature_map records"),
    (lambda data: data["certificate"]["feature_map"].update(type="ColumnStandardiser"), "map certificate.feature_map"),
])
def test_the_feature_map_is_the_one_the_certificate_records(files, edit, match):
    assert files["rff"]["certificate"]["feature_map"]["type"] == "RandomFourierFeatures"
    _refused(files, "rff", edit, match)


def _add_a_map(data):
    entry = data["per_class"][0] if "per_class" in data else data
    entry["preprocessing"]["row_map"]["feature_map"] = RandomFourierFeatures(
        "rbf", gamma=1.0, n_components=2, n_features=2, random_state=1).to_dict()


@pytest.mark.parametrize("name", ["linear", "multi", "linreg", "huber"])
def test_a_map_added_to_a_file_fitted_without_one_is_refused(files, name):
    _refused(files, name, _add_a_map, "holds a map, but the certificate records none")


@pytest.mark.parametrize("version", [5, 6])
def test_a_version_5_or_6_file_with_a_map_loads_and_records_the_map_it_holds(files, version):
    """Format versions 5 and 6 wrote no record of the map: the step to version 7 records the map the file holds."""
    def as_written(data):
        data.update(format_version=version)
        del data["certificate"]["feature_map"], data["sha256"]  # (format versions 7 and 10 added them)
        without_noise_source(data)  # (format version 19 added it)

    older = _edited(files, "rff", as_written)
    loaded = serialization.model_from_dict(older)
    assert serialization.model_to_dict(loaded) == not_recorded(files["rff"])


@pytest.fixture(scope="module")
def label_alone():
    """The label's range alone at its search's lowest level (5,700 rows of 10 columns at epsilon 0.3, delta 1e-6: the
    label's level is at its floor from 5,500 rows, every column's search starts at 6,081), saved by adassp-ranged and
    gradient-ranged."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (5700, 10)) / np.sqrt(10)
    y = np.clip(300 + 80 * rng.standard_normal(5700), 0, 100_000)
    saved = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        for mechanism in ("adassp", "gradient"):
            model = dpcvx.DPLinearRegression(epsilon=0.3, delta=1e-6, label_bound=(0, 100_000), mechanism=mechanism,
                                             random_state=0).fit(X, y).model_
            assert model.certificate.calibration.range_columns == 1 and model.certificate.column_statistics[
                "level"] == 0.1
            saved[mechanism] = serialization.model_to_dict(model)
    return saved


@pytest.mark.parametrize("mechanism", ["adassp", "gradient"])
def test_a_raised_n_of_the_label_s_range_alone_is_refused_at_the_level_s_floor(label_alone, mechanism):
    """The level (0.1 at 5,700 rows and at 10^9) does not pin n there; the public rule of the label's range alone
    does: at 10^9 rows every column's range would have been searched."""
    _refused(label_alone, mechanism, _set(("certificate", "column_statistics", "n"), 10**9),
             "column_statistics.n is 1000000000, at which the fit would have searched every column's range")
    if mechanism == "adassp":
        serialization.model_from_dict(_resealed(_edited(label_alone, mechanism, _set(
            ("certificate", "column_statistics", "n"), 6000))))  # below every column's search: passes the checks
    else:  # the descent's momentum rises with n epsilon / d from 100 to 200 (session 70): it pins n there too
        _refused(label_alone, mechanism, _set(("certificate", "column_statistics", "n"), 6000),
                 "certificate.calibration.momentum is 0.639, but the fit takes 0.72 at n = 6000")


@pytest.mark.parametrize("name", ["linear", "rff", "huber"])
@pytest.mark.parametrize("text", [lambda g: g + " EDITED", lambda g: g.replace("Theorem 2", "Theorem 1")])
def test_the_guarantee_is_the_verdict_s_theorem_for_the_release(files, name, text):
    _refused(files, name, _set(("certificate", "guarantee"), text), "certificate.guarantee is not what dpcvx states")


@pytest.mark.parametrize("text", [lambda g: g + " EDITED", lambda g: g.replace("Wang, UAI 2018", "Wang, 2019")])
def test_a_regression_guarantee_is_the_one_its_calibration_states(files, label_alone, text):
    """AdaSSP's (plain, "linreg") and noisy gradient descent's (the label's range alone) guarantee is recomputed from
    the calibration: an edited theorem no longer loads."""
    _refused(files, "linreg", _set(("certificate", "guarantee"), text), "certificate.mechanism or "
             "certificate.guarantee is not what dpcvx states")
    _refused(label_alone, "gradient", _set(("certificate", "guarantee"), lambda g: g + " EDITED"),
             "certificate.mechanism or certificate.guarantee is not what dpcvx states")


@pytest.mark.parametrize("name", ["linear", "huber"])
@pytest.mark.parametrize("method", ["proved by hand", "", "symbolic EDITED"])
def test_a_condition_s_method_is_one_of_the_verifier_s(files, name, method):
    _refused(files, name, _set(("certificate", "verification", "conditions", 5, "method"), method),
             "condition 5.method is .* not one of the verifier's")


def test_a_tdil_net_file_records_its_input_dimension(files):
    """A TDIL release that searched a net and selected no centre held its input dimension in
    predictor.n_features alone, so an edit of it loaded a model taking rows of another width: its certificate records
    the dimension (format version 8), and an edit of either, or a record removed or of another type, is refused."""
    assert files["tdil"]["privatised"]["centers"] == [] and files["tdil"]["certificate"]["n_features"] == 2
    _refused(files, "tdil", _set(("predictor", "n_features"), 3),
             "predictor.n_features is 3 but certificate.n_features records 2")
    _refused(files, "tdil", _set(("certificate", "n_features"), 3),
             "predictor.n_features is 2 but certificate.n_features records 3")
    _refused(files, "tdil", lambda data: data["certificate"].pop("n_features"), "certificate.n_features is missing")
    _refused(files, "tdil", _set(("certificate", "n_features"), 2.0), "certificate.n_features must be an integer")


@pytest.mark.parametrize("name", ["tddl", "pinp", "tdil_ball", "tddl_safe", "tdil_safe"])
def test_a_kernel_file_with_another_record_of_its_dimension_takes_no_n_features(files, name):
    """The ball's search (float-safe or not) and PINP state the dimension in the calibration, TDDL holds its public
    sample: their certificates record no n_features, and one added is refused."""
    assert "n_features" not in files[name]["certificate"]
    _refused(files, name, lambda data: data["certificate"].update(n_features=2),
             "certificate.n_features is recorded, but only a TDIL release")


@pytest.mark.parametrize("name", ["linreg", "huber", "linear", "rff", "tddl", "pinp", "tdil", "tddl_safe", "tdil_safe"])
@pytest.mark.parametrize("epsilon", [1e-13, 1e7])
def test_an_epsilon_no_fit_accepts_is_refused_naming_the_certificate_s(files, name, epsilon):
    """Every fit checks epsilon within [EPSILON_MIN, EPSILON_MAX] (check_epsilon): a file stating another, in all
    three places, is refused by that check, naming certificate.epsilon."""
    def edit(data):
        data["epsilon"] = data["certificate"]["epsilon"] = data["certificate"]["calibration"]["epsilon"] = epsilon
    _refused(files, name, edit, r"certificate\.epsilon=.* is outside the range \[1e-12, 1e\+06\]")


@pytest.mark.parametrize("name", ["linreg", "tddl"])
def test_a_delta_no_fit_accepts_is_refused_naming_the_certificate_s(files, name):
    def edit(data):
        data["delta"] = data["certificate"]["delta"] = data["certificate"]["calibration"]["delta"] = 1.5
    _refused(files, name, edit, r"certificate\.delta must lie in \[0, 1\)")


@pytest.mark.parametrize(("kind", "lam", "field"), [("erm", 1e-160, "certificate.constants.lam"),
                                                    ("erm", 1e160, "certificate.constants.lam"),
                                                    ("tddl", 1e160, "certificate.constants.lam.value")])
def test_a_lam_no_fit_accepts_is_refused_naming_the_field(monkeypatch, kind, lam, field):
    """Every fit checks a numeric Lam within [LAM_MIN, LAM_MAX] (check_lam). The file is written by a fit with those
    limits widened, so every number it records is consistent with its Lam: the loader refused none of them and
    loaded it; now the Lam itself is refused, naming the field."""
    X, y = _data()
    with monkeypatch.context() as patch, warnings.catch_warnings():
        patch.setattr(validation, "LAM_MIN", 1e-300)
        patch.setattr(validation, "LAM_MAX", 1e300)
        patch.setattr(kernel_solver, "MODERATE_MAX", 1e300)  # the kernel solver's scale check (lam + c R_phi^2)
        release = TDDL("rbf", lam=lam, gamma=1.0).fit(X, y, 1.0, Z=X[:8], random_state=0) if kind == "tddl" else \
            dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), lam=lam, data_norm=1.0).fit(X, y, 1.0, random_state=0)
        saved = serialization.model_to_dict(release)
    with pytest.raises(InputError, match=re.escape(f"{field}={lam:g} is outside the range [1e-150, 1e+150]")):
        serialization.model_from_dict(saved)
