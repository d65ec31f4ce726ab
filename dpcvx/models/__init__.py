"""The learners: verify, calibrate, charge the budget once, solve, draw noise, release.

* :mod:`.erm`: :class:`PrivateERM`, linear models with a declared loss and regularizer;
* :mod:`.fit_plan`: :class:`FitPlan`, one PrivateERM fit planned once from public inputs (validated, verified,
  calibrated per n) and executed on rows: charge once, draw, solve, release;
* :mod:`.kernel_learner`: what the kernel learners share; :mod:`.tddl`,
  :mod:`.pinp`, :mod:`.tdil`: Jain and Thakurta (ICML 2013);
* :mod:`.kernels`: kernels with public feature bounds, random Fourier features;
* :mod:`.tuning`: private parameter tuning (JMLR 2011, Algorithm 4);
* :mod:`.audit`: empirical audits of a learner on neighbouring data sets; :mod:`.release_audit`: the
  release-diff check of what a release (or its file) holds besides the privatised values;
* :mod:`.failure`: the failure rule: after the charge no fit in a composite procedure fails (proved fits only,
  rehearsal on synthetic public rows, fixed numerics; docs/theory.md, section 7.1);
* :mod:`.contract`: what a procedure may assume of a learner's predictions: the ``predicts_per_row`` capability;
* :mod:`.erm_inputs`: the checks of a :class:`~dpcvx.models.erm.PrivateERM`: its declared settings, the public row
  map, the rows and labels of a fit, the neighbour relation, a warm start and the solver's point;
* :mod:`.linear_regression`: PrivateLinearRegression: least squares released by AdaSSP with its three statistics
  calibrated jointly;
* :mod:`.multiclass`: multiclass private ERM: one-vs-rest over k PUBLIC classes, one total privacy budget;
* :mod:`.private_norm`: fitting without a public norm bound: a share of the budget buys R (opt-in), then the fit
  clips to it;
* :mod:`.record_weights`: record weights: ``sample_weight`` under a public bound w_max, public class weights;
* :mod:`.intercept_offset`: a public intercept offset for rare classes: the ridge centred at the public log-odds;
* :mod:`.class_count`: ``class_weight="balanced"`` without a public prior: one private class count, charged with
  the fit once;
* :mod:`.column_statistics`: private column statistics: one joint release of per-column centres and scales,
  charged with the fit once (``column_statistics=True``, or ``"ranges"``: noisy histograms' ranges, which the
  classifiers' default ``"auto"`` draws by a public rule);
* :mod:`.descent_reach`: the NOT PRIVATE check of noisy gradient descent's reach on its mapped rows.
* :mod:`.training_rows`: the NOT PRIVATE check of a release on its training rows (never inside tuning).
"""
