"""The records of a model file: each release kind writes and reads its own record.

* :mod:`.header`: the format name and versions every record starts with, and the digest of the whole file
  (:func:`.header.file_digest`) that the writer adds and the loader checks;
* :mod:`.upgrade`: the one upgrade step per older format version (4 -> 5: the ``tuning`` field);
* :mod:`.fields`: the checked reading of one JSON field (numbers, texts, flags);
* :mod:`.row_map`: the public per-record map (norm bound, intercept, feature map) and the feature-map registry;
* :mod:`.calibration_record`: which calibration class reads a recorded calibration (linear and kernel releases),
  recomputed and compared, and the one rule that compares a recorded number with a recomputed one;
* :mod:`.release_certificate`: a linear release's certificate, its calibration recomputed and compared;
* :mod:`.linear_release`, :mod:`.regression_release`, :mod:`.multiclass_release`, :mod:`.kernel_release`: the
  records of those release kinds;
* :mod:`.privatised`: the one declaration of which saved paths hold privatised values (the mechanism's output
  and a composite procedure's earlier private releases) or public functions of them, which the release-file
  audit reads.

:mod:`dpcvx.release.serialization` keeps the envelope (format check, atomic write) and the registry of kinds.
"""
