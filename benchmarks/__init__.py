"""dpcvx benchmarks: reproduction of JMLR 2011 Section 7, peers, speed, and the results page (docs/results.md).

Run from the repository root as modules, for example::

    python -m benchmarks.run_all --quick

Modules: :mod:`benchmarks.common` (data, folds, seeds, peers, residuals, run
records), :mod:`benchmarks.reproduce_jmlr`, :mod:`benchmarks.speed`,
:mod:`benchmarks.report` (Markdown from the recorded JSON),
:mod:`benchmarks.render_results` (docs/results.md) and
:mod:`benchmarks.run_all` (all of them in order).
"""
