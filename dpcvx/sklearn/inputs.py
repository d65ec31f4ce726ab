"""The input checks of the scikit-learn estimators: X and y as scikit-learn checks them (its messages, raised
as :class:`~dpcvx.exceptions.InputError`), a memmap or Dask X checked without loading it, and the refusal of
labels outside the PUBLIC ``classes`` (never inferred from y), and the constructors' rule of storing each
parameter unchanged (:func:`keep_parameters`). See :mod:`dpcvx.sklearn.classifiers`.
"""

from __future__ import annotations

import contextlib
import copy
import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..version import SCIKIT_LEARN_MINIMUM, dependency_error

try:
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError as ScikitLearnNotFitted
    from sklearn.utils.multiclass import type_of_target
    from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data
except ImportError as error:  # exercised in a subprocess without sklearn (tests/sklearn/test_estimators.py)
    raise dependency_error(error, "scikit-learn", SCIKIT_LEARN_MINIMUM, "sklearn", "the dpcvx estimators") from error

from ..advice import command_line_runs
from ..data.blocks import is_out_of_core
from ..exceptions import ClassOrderWarning, InputError, InputTypeError, estimator_not_fitted, user_stacklevel
from ..models.failure import declarations_told
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..release.model import ReleaseT, check_feature_names
from ..tables import (
    NonFiniteError,
    bytes_as_text,
    column_names,
    feature_names,
    first_non_number,
    non_numeric_entry,
    own_types,
    refuse_kind,
    refuse_non_numbers,
    spelling_variants,
)
from ..validation import (
    check_matrix,
    check_public_classes,
    check_rows,
    check_shape,
    check_table,
    one_dimensional_labels,
    outside_head,
    refuse_misread,
    refuse_non_finite_targets,
    refuse_unknown_parameters,
)

__all__ = ["EstimatorNotFittedError", "NamedParameters", "check_fitted", "unnamed", "check_shapes", "fit_accountant",
           "keep_feature_names", "label_error", "refuse_unusable_table", "scikit_learn_refusal", "type_refusal",
           "validate_streamed", "validated_input", "warn_if_unsorted_classes"]


#: An estimator used before its fit: dpcvx's :class:`~dpcvx.exceptions.NotFittedError` (an InputError, so a
#: DPCVXError) and scikit-learn's ``NotFittedError``, which its code and its conformance checks catch; the class of
#: every learner's not-fitted error (:func:`~dpcvx.exceptions.estimator_not_fitted`)
EstimatorNotFittedError = estimator_not_fitted()


def check_fitted(estimator: BaseEstimator) -> None:
    """scikit-learn's ``check_is_fitted`` (its rule of what is fitted, and its words), refusing with
    :class:`EstimatorNotFittedError`: the one not-fitted error of every entry, the kernel learners' and
    ``dpcvx.save``'s class too (scikit-learn's own is no DPCVXError)."""
    try:
        check_is_fitted(estimator)
    except ScikitLearnNotFitted as error:
        raise EstimatorNotFittedError(str(error)) from None


def unnamed(release: ReleaseT) -> ReleaseT:
    """``release`` as an estimator's own methods score with it. A fitted estimator's release keeps the column names
    of the table it was fitted on (its ``feature_names_in_``), so that ``estimator.model_.predict(table)`` checks
    them and ``dpcvx.save(estimator.model_)`` writes them, as ``dpcvx.save(estimator)`` does; the estimator's methods
    check the names themselves (scikit-learn's ``validate_data``) and pass the release rows without names, which it
    would warn of: a shallow copy without them, or the release itself when it has none."""
    if getattr(release, "feature_names_in_", None) is None:
        return release
    plain = copy.copy(release)
    plain.feature_names_in_ = None
    return plain


@contextlib.contextmanager
def fit_accountant(estimator: BaseEstimator, accountant: Any) -> Iterator[PrivacyAccountant | None]:
    """The accountant a fit charges: ``fit``'s ``accountant=`` or the estimator's own (its constructor's),
    not two different ones; its charges inside the block name the estimator in their ledger lines
    (``PrivacyAccountant.described``). Checked before anything is charged."""
    own = getattr(estimator, "accountant", None)
    if accountant is not None and own is not None and accountant is not own:
        raise InputError(f"{type(estimator).__name__} has accountant= from its constructor and fit got another; "
                         "give the accountant once (in the constructor or to fit)")
    chosen = check_accountant(accountant if accountant is not None else own)
    if chosen is None:
        yield None
        return
    with chosen.described(f"{type(estimator).__name__}.fit"):
        yield chosen


def validate_streamed(owner: BaseEstimator, X: Any, y: Any, **checks: Any) -> tuple[Any, np.ndarray]:
    """(X as it is, y as a 1-D array) for a memmap or Dask X, which fit reads by row blocks.

    scikit-learn's ``validate_data`` would load X whole (an anonymous copy of a
    memmap the size of the file, a Dask array computed into memory). Here it checks
    only X's first row (the number of features, DataFrame column names, the type
    of the entries: it sets ``n_features_in_`` and ``feature_names_in_`` on
    ``owner``), and :class:`~dpcvx.models.erm.PrivateERM` checks every row in its
    one validation pass before anything is charged (:class:`~dpcvx.data.blocks.RowBlocks`:
    finite values, widths, the norm bound), with dpcvx's messages.
    """
    head = X.head(1) if hasattr(X, "head") else X[:1]  # a Dask DataFrame's head is a pandas frame (named columns)
    head = head.compute() if hasattr(head, "compute") else head
    validate_data(owner, head, reset=True, **checks)
    keep_feature_names(owner, head)
    labels = y.compute() if hasattr(y, "compute") else y
    return X, column_or_1d(np.asarray(labels), warn=True)


def keep_feature_names(owner: BaseEstimator, X: Any) -> None:
    """Set ``owner.feature_names_in_`` at fit to the column names of the table X (:func:`dpcvx.tables.feature_names`:
    a pandas or polars DataFrame, a pyarrow Table), or delete it (an array, or an earlier fit's names), after
    scikit-learn's ``validate_data``, which reads a pandas DataFrame's names but no polars DataFrame's: every table
    keeps its names, and its predictions check them (:func:`_checked_names`)."""
    names = feature_names(X)
    if names is None:
        owner.__dict__.pop("feature_names_in_", None)
    else:
        owner.feature_names_in_ = names


def _checked_names(estimator: BaseEstimator, X: Any) -> None:
    """The names of X at predict against the estimator's ``feature_names_in_``, for every table
    (:func:`dpcvx.release.model.check_feature_names`, a loaded model's check too), with scikit-learn's warning for a
    table given to an estimator fitted without names."""
    if getattr(estimator, "feature_names_in_", None) is None and feature_names(X) is not None:
        warnings.warn(f"X has feature names, but {type(estimator).__name__} was fitted without feature names",
                      UserWarning, stacklevel=user_stacklevel())
    check_feature_names(estimator, X)


def keep_parameters(estimator: Any, parameters: dict[str, Any]) -> None:
    """scikit-learn's rule for a constructor: each parameter stored unchanged under its own name (``locals()``
    of ``__init__``, ``self`` left out); the parameters are validated when ``fit`` runs, not here."""
    for name, value in parameters.items():
        if name != "self":
            setattr(estimator, name, value)


class NamedParameters(BaseEstimator):
    """scikit-learn's ``set_params``, an unknown name refused as every learner refuses it
    (:func:`dpcvx.validation.refuse_unknown_parameters`; scikit-learn raised its own ValueError)."""

    def set_params(self, **params: Any) -> Any:
        refuse_unknown_parameters(type(self).__name__, params, tuple(self.get_params(deep=False)))
        return super().set_params(**params)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """A deep copy of the estimator keeps the accountant it holds, as ``sklearn.base.clone`` does
        (:meth:`~dpcvx.privacy.accountant.PrivacyAccountant.__sklearn_clone__`): one budget for one data set. Three
        deep copies of an estimator holding an accountant of budget 3 each fitted at epsilon 2, and it read 0 spent.
        (A copy of the accountant itself is a new ledger, as before.)"""
        held = vars(self).get("accountant")
        if held is not None:
            memo.setdefault(id(held), held)
        duplicate = copy.copy(self)
        memo[id(self)] = duplicate
        duplicate.__dict__.update({name: copy.deepcopy(value, memo) for name, value in vars(self).items()})
        return duplicate

    def __getstate__(self) -> dict[str, Any]:
        """The state with the accountant held in a :class:`_PickledAccountant`: pickling it gives the copy a marked
        copy of the accountant, while ``copy.copy`` (which also passes through this state) keeps the original
        (:meth:`__setstate__`)."""
        state = dict(super().__getstate__())
        held = state.get("accountant")
        if isinstance(held, PrivacyAccountant):
            state["accountant"] = _PickledAccountant(held, type(self).__name__)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A shallow copy's state still holds the :class:`_PickledAccountant`: it shares the original accountant.
        An unpickled state holds the accountant's marked copy already."""
        held = state.get("accountant")
        if isinstance(held, _PickledAccountant):
            state = {**state, "accountant": held.accountant}
        super().__setstate__(state)


class _PickledAccountant:
    """The accountant an estimator holds, in the estimator's state (:meth:`NamedParameters.__getstate__`).

    ``copy.copy`` of the estimator hands it back unchanged, so the copy shares the one budget. Pickling it gives, on
    loading, a copy of the accountant that refuses every charge
    (:meth:`~dpcvx.privacy.accountant.PrivacyAccountant.copied_with`): it would otherwise hold the whole budget
    again (an estimator and its pickled copy each fitted at epsilon 0.8 against a budget of 1, and the accountant
    read 0.8). An accountant pickled on its own is a ledger of its own, as before."""

    __slots__ = ("accountant", "owner")

    def __init__(self, accountant: PrivacyAccountant, owner: str) -> None:
        self.accountant = accountant
        self.owner = owner

    def __reduce__(self) -> tuple[Any, tuple[PrivacyAccountant, str]]:
        return _marked_copy, (self.accountant, self.owner)


def _marked_copy(accountant: PrivacyAccountant, owner: str) -> PrivacyAccountant:
    """The accountant a pickled :class:`_PickledAccountant` loads as: a copy of the loaded accountant, marked as the
    copy that loading ``owner`` made. The loaded accountant itself is left unmarked: where the same pickle holds it
    on its own too (``pickle.dumps((estimator, accountant))``), that one is a ledger of its own, as an accountant
    pickled alone is, and the estimator's refusal advises ``set_params(accountant=...)`` with it (marking the loaded
    accountant made that advice fail and the user's ledger refuse every charge)."""
    marked = copy.copy(accountant)
    marked.copied_with(owner)
    return marked


def warn_if_unsorted_classes(owner: str, classes: Any) -> None:
    """Warn (:class:`~dpcvx.exceptions.ClassOrderWarning`) when the declared ``classes`` are not in sorted order:
    ``classes_`` keeps the declared order, and scikit-learn's scorers read ``predict_proba``'s columns and
    ``decision_function``'s sign by the sorted order (roc_auc 0.002 for a release of 0.999 with
    ``classes=("good", "bad")``). Kept for more than two classes, where a natural (ordinal) order is common: on four
    graded classes declared ("poor", "fair", "good", "great") one release scored roc_auc_ovr 0.51 and neg_log_loss
    -5.36 where the sorted declaration's scored 0.91 and -0.65 (session 69, P8 finding 8); there its text names no
    threshold or class_prior (a binary fit's settings) and says that predict and the scorers of predicted labels are
    right in any order. Not on the command line, whose outputs name each class's column. Before any data is
    read; a public declaration, warned of once: not again by the fits a procedure runs after its charge."""
    values = check_public_classes(classes)
    ordered = tuple(sorted(values))
    if values == ordered or command_line_runs() or declarations_told():  # tune's checks warned before its charge
        return
    if len(values) == 2:
        told = (f"the release's positive class is {values[-1]!r} (predict_proba's second column, decision_function "
                f"> 0), which they read as {ordered[-1]!r}'s, so a score of 1 reads as 0; declare "
                f"classes={ordered!r} to score with them (a threshold and a class_prior are then of {ordered[-1]!r})")
    else:
        told = (f"they read predict_proba's columns in the sorted order; declare classes={ordered!r} to score with "
                "them. predict, score and the scorers of predicted labels (accuracy, balanced_accuracy, f1_macro) "
                "read classes_ and are right in any order, a natural (ordinal) one too")
    warnings.warn(f"{owner}: classes={classes!r} is not in sorted order and classes_ keeps it, while scikit-learn's "
                  "scorers of probabilities and scores (roc_auc, average_precision, log_loss) order classes as "
                  "np.unique does: " + told, ClassOrderWarning, stacklevel=user_stacklevel())


def _label_kind(y: np.ndarray) -> str:
    """scikit-learn's name for the kind of target y is ("continuous", "multiclass", "binary",
    ..., or "unknown"); used only in a refusal message.

    Called only when y already holds labels outside the public ``classes``: the fit
    is refused either way, and the kind only chooses the wording of the message.
    """
    try:
        with warnings.catch_warnings():  # numpy's cast of a NaN label to an integer ("invalid value"): not the user's
            warnings.simplefilter("ignore", RuntimeWarning)
            return type_of_target(y, input_name="y")
    except (TypeError, ValueError):
        return "unknown"


def label_error(owner: str, y: np.ndarray, outside: np.ndarray, classes: tuple[Any, ...]) -> InputError:
    """The refusal of labels outside ``classes``: names the declared pair and the parameter."""
    declared = outside_head(outside, y, classes)
    if len(classes) > 2:
        return InputError(
            f"{declared}. {owner} takes its classes "
            f"from the parameter classes=, never from y (the set of labels present is a statistic of the "
            f"data): add them to classes= or map y onto the declared classes")
    kind = _label_kind(y)
    values = np.asarray(y)[outside]
    if spelling_variants(values, classes).any():  # the declared pair misspelt, not more classes: scikit-learn's
        kind = "binary"  # wording ("Only binary classification is supported", "Unknown label type") would mislead
        # (a missing label is refused by outside_labels, in the one wording of a missing label)
    if kind == "continuous":
        head = (f"Unknown label type: continuous. y looks like a regression target; {owner} is a "
                "classifier. ")
    elif kind in ("multiclass", "multilabel-indicator", "multiclass-multioutput"):
        # scikit-learn's opening, which its check_classifier_not_supporting_multiclass matches (the tag multi_class
        # is False: the classes are declared), made true by what follows: binary at the two declared classes only
        head = (f"Only binary classification is supported with two declared classes, and y holds more than two "
                f"labels. {owner} also fits a multiclass model (one-vs-rest): declare every public class, for "
                f"example {owner}(classes=(0, 1, 2)). ")
    elif kind == "unknown":
        head = "Unknown label type: y holds values that are not class labels. "
    else:
        head = ""
    default = " (default (0, 1))" if tuple(classes) == (0, 1) else ""  # said only of the default pair
    return InputError(
        f"{head}{declared}. {owner} takes "
        f"its two labels from the parameter classes=(negative, positive){default}, never "
        f"from y: the set of labels present is a statistic of the data. Map y onto {classes!r}, or "
        f"declare your public pair, for example {owner}(classes=(-1, 1)) or "
        f"{owner}(classes=(\"no\", \"yes\"))"
    )


def refuse_unusable_table(X: Any) -> None:
    """Refuse a table (pandas, polars, pyarrow) whose column names mix text with other types
    (:func:`dpcvx.tables.feature_names`), or with a categorical or text column, or a NaN, missing or infinite
    entry, naming the column by its name (and the entry's row), before scikit-learn turns the table into an
    array without names (numbers held as objects pass). One read of each column, no copy of the table. An array
    (or a list) of text, or of objects whose first entry that is not a number is text or a numpy date or duration,
    is refused by that entry's position (:func:`dpcvx.tables.refuse_non_numbers`): scikit-learn's conversion would
    read "1.5" as 1.5 and a date as a count of its units. Other entries that are not numbers (a dict, None) are left
    to its refusal, a TypeError as its conventions require (check_estimator's ``check_dtype_object``)."""
    refuse_misread("X", X)  # scikit-learn's conversion reads the values under a mask, an iterator as one value
    if isinstance(X, (np.ndarray, list, tuple)):
        values = X if isinstance(X, np.ndarray) else _as_array(X)
        refuse_kind("X", values.dtype)  # complex, dates, durations: named with the fix, as PrivateERM names them
        first = first_non_number(values)
        if values.dtype.kind in "US" or (first is not None and isinstance(values.flat[first], _MISREAD)):
            refuse_non_numbers(values, "X")
    feature_names(X)  # names that mix text with other types: refused by dpcvx's message, not scikit-learn's
    if not is_out_of_core(X):
        check_table(X)


#: Entries that are not numbers but that scikit-learn's conversion reads as numbers.
_MISREAD = (str, bytes, np.datetime64, np.timedelta64)


def _as_array(X: list | tuple) -> np.ndarray:
    """A list of rows as numpy reads it, or an empty array of objects when numpy cannot (ragged rows: refused by
    scikit-learn's own check, naming the shapes)."""
    try:
        return np.asarray(X)
    except (TypeError, ValueError):
        return np.empty(0, dtype=object)


def _shape_of(values: Any) -> tuple[int, ...] | None:
    """The shape of an array, a table, a sparse matrix or a nested list, read without its values; None where it has
    none (a ragged list: scikit-learn's conversion refuses it)."""
    try:
        return tuple(values.shape) if hasattr(values, "shape") else np.shape(values)
    except (TypeError, ValueError):
        return None


def check_shapes(X: Any, y: Any) -> None:
    """X's shape and, when given, y's count by dpcvx's one refusal of each (:func:`dpcvx.validation.check_shape`, and
    the count every learner's :func:`~dpcvx.validation.label_vector` checks), before scikit-learn's conversion, whose
    words differed from every other entry's."""
    shape = _shape_of(X)
    if shape is None:
        return
    check_shape("X", shape, None if isinstance(X, (np.ndarray, list, tuple)) else type(X).__name__)
    labels = None if y is None else _shape_of(y)
    if labels and (len(labels) == 1 or labels[1] == 1) and labels[0] != shape[0]:  # a (1, n) row: refused as a row
        raise InputError(f"X has {shape[0]} rows but y has {labels[0]} labels")


def validated_input(estimator: BaseEstimator, X: Any, y: Any = None, *, reset: bool) -> Any:
    """(X, y, the checked copy) if ``reset``, else X: checked as scikit-learn checks them, with its
    messages, as InputError.

    ``reset=True`` (fit) leaves the finite check to the fit: :class:`~dpcvx.models.erm.PrivateERM` refuses a NaN or
    infinite entry, naming its row and column, in the one read of X that also gives the row norms and the
    clipping decision, before anything is charged (scikit-learn's check read X once more). It validates
    against a shallow copy: ``validate_data`` sets ``n_features_in_`` on the estimator it is given (and
    :func:`keep_feature_names` a table's ``feature_names_in_``), and a fit sets its fitted attributes together at the
    very end. The copy is returned too. ``reset=False`` (predict) checks the names seen in fit
    (:func:`_checked_names`, every table's; scikit-learn's own check, which reads a pandas DataFrame's names only, is
    silenced) and the number of features, and leaves the finite check of an array to the model's scores
    (:meth:`RowMap.scores <dpcvx.data.rows.RowMap.scores>`), which refuse a NaN or infinite entry by its row and
    column in the one read that maps, clips and scores the rows; a table's is checked here, so that the refusal
    names its column (:func:`scikit_learn_refusal`).
    """
    owner = copy.copy(estimator) if reset else estimator
    refuse_unusable_table(X)
    if y is not None:
        refuse_misread("y", y, labels=True)
        if isinstance(y, np.matrix):  # a column of labels flattened, a row refused, as every learner does
            y = one_dimensional_labels(np.asarray(y))
        elif isinstance(y, (list, tuple)):  # each label of its own type, never made text by another, a bytes label
            y = own_types(y)                # its UTF-8 text (own_types)
        elif getattr(getattr(y, "dtype", None), "kind", None) in ("S", "O"):  # a numpy or pandas column of bytes:
            labels = np.asarray(y)  # their text, as a list's (replaced only when it holds bytes)
            decoded = bytes_as_text(labels, "y")
            y = y if decoded is labels else decoded
    try:
        if reset and is_out_of_core(X):
            X, y = validate_streamed(owner, X, y, accept_sparse="csr")
            return X, y, owner
        check_shapes(X, y if reset else None)
        if reset:  # X's values are checked by PrivateERM's one read (finite, norms, clipping), before the charge
            checked, y = validate_data(owner, X, y, accept_sparse="csr", ensure_all_finite=False)
            keep_feature_names(owner, X)
            return checked, y, owner
        _checked_names(estimator, X)
        with warnings.catch_warnings():  # the names are checked above; scikit-learn's own check sees pandas names only
            warnings.filterwarnings("ignore", "X (has|does not have valid) feature names", UserWarning)
            return validate_data(owner, X, accept_sparse="csr", reset=False,
                                 ensure_all_finite=column_names(X) is not None)
    except InputError:
        raise
    except TypeError as error:
        raise type_refusal(error, type(estimator).__name__, X) from None
    except ValueError as error:
        raise scikit_learn_refusal(error, X) from None


def type_refusal(error: TypeError, owner: str, X: Any, y: Any = None) -> InputError:
    """scikit-learn's TypeError for an entry ``float()`` refuses (a dict, a list, a date object): dpcvx's refusal of
    that entry by its row and column (:func:`dpcvx.tables.non_numeric_entry`, the words and class of every entry;
    pandas' NA as a missing value), else an :class:`InputTypeError` (:func:`scikit_learn_refusal`'s text) with the
    fix; ``y`` only for a numeric target (a regressor's), as there."""
    refusal = scikit_learn_refusal(error, X, y)
    if isinstance(refusal, (InputTypeError, NonFiniteError)):  # dpcvx's own, naming the entry's row and column, as
        return refusal  # every entry does (pandas' NA, which float() refuses, is a missing value as None is)
    what = "numeric features only" if y is None else "numeric features and a numeric target y only"
    return InputTypeError(f"{refusal}. {owner} takes {what}: encode other columns first "
                          "(for example with dpcvx.PublicSchema)")


#: The sentence scikit-learn writes after the array it quotes: its advice, fixed text.
_RESHAPE_ADVICE = "Reshape your data"
#: A quoted literal in scikit-learn's or numpy's text ('SECRET', np.str_('SECRET')), but not a type's name
#: (dtype('float64'), Python's "float() argument must be a string or a real number, not 'dict'").
_QUOTED = re.compile(r"""(?<!dtype\()(?<!not )(?<!<class )(?:np\.\w+\()?(['"]).*?\1\)?""")  # a type's name is not data


def _named_refusal(X: Any, y: Any) -> InputError | None:
    """dpcvx's own refusal of X (or of a numeric y) where it names more than scikit-learn's: the row and column
    (a table's by its name) of a NaN, missing or infinite entry or of an entry that is not a number (a dict), or a
    table's column that is not numeric."""
    try:
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biuf":  # by blocks: never a whole copy
            check_rows(X)
        else:
            check_matrix(X)
        if y is not None:
            refuse_non_finite_targets(np.asarray(y, dtype=np.float64).ravel())
    except NonFiniteError as error:
        return error
    except InputError as error:  # a table's column by its name, a target's row, an entry that is not a number (the
        # words and the class every entry gives it); scikit-learn's text otherwise
        named = isinstance(error, InputTypeError) or column_names(X) is not None or str(error).startswith("y holds")
        return error if named else None
    except (TypeError, ValueError):  # not a matrix dpcvx reads: scikit-learn's text
        return None
    return None


def scikit_learn_refusal(error: Exception, X: Any, y: Any = None) -> InputError:
    """scikit-learn's refusal of X (or of a numeric target y), as an InputError naming no value.

    Its text can quote the data: numpy's "could not convert string to float: 'a cell'",
    "Expected 2D array, got 1D array instead:" followed by the whole array on the next
    lines, a complex array after "Complex data not supported". So only the first line is
    kept (and scikit-learn's closing advice "Reshape your data ...", which follows the
    array); when that line quotes a value, the first entry that is not a number is named by its
    position instead (:func:`dpcvx.tables.non_numeric_entry`), or the quoted literal
    is replaced. Pass ``y`` only for a numeric target (a regressor's): a classifier's
    labels are not numbers.
    """
    named = _named_refusal(X, y)
    if named is not None:
        return named
    text = str(error).strip()
    line = text.splitlines()[0] if text else type(error).__name__
    if _QUOTED.search(line) is None:
        advice = text.rfind(_RESHAPE_ADVICE)
        return InputError(line.rstrip(":") + ("" if advice < 0 else f". {text[advice:]}"))
    for values, name in ((X, "X"), (y, "y")):
        culprit = None if values is None else non_numeric_entry(values, name)
        if culprit is not None:
            return culprit
    return InputError(_QUOTED.sub("<a value, not shown: it is data>", line))
