"""What leaves dpcvx: released models with their certificates, and the model file format.

Everything here is a function of public inputs or of privatised values.

* :mod:`.model`: :class:`PrivateModel` (linear) and its :class:`ReleaseCertificate`;
* :mod:`.constants`: the certificate's typed :class:`Constants` (exact L, c, m; R, Lam, n, d);
* :mod:`.input_record`: a release (and an estimator that holds one) holds no record of its input, which OpenDP's
  ``Measurement.__call__`` would store on it;
* :mod:`.kernel_model`: the released kernel predictor and its typed certificate;
* :mod:`.report`: :class:`ReleaseReport`, the plain-language report of a release (Markdown, HTML);
* :mod:`.serialization`: ``save`` / ``load`` (versioned JSON, checked on load);
* :mod:`.multiclass_model`: the multiclass release: k one-vs-rest linear models over PUBLIC classes, one total
  budget;
* :mod:`.records`: the records of a model file: each release kind writes and reads its own record;
* :mod:`.regression_model`: regression releases: a linear predictor w^T x + b and its certificate;
* :mod:`.range_clip`: at prediction, the share of the caller's new rows a regressor's private column ranges clip
  (a public warning: the predictions cannot extrapolate beyond those ranges);
* :mod:`.tuning_record`: the tuning certificate and total cost a model selected by ``dpcvx.tune`` carries into its
  file;
* :mod:`.sparsify`: exact zeros for L1, elastic-net and group-lasso releases: public-rule thresholding, a post-
  processing;
* :mod:`.usefulness`: whether a released classifier predicts one class on every row (a public check);
* :mod:`.encodable`: the same question on every record a classifier's saved schema can encode (a public check);
* :mod:`.weight_rules`: the public rules of a release's record weights (balanced weights, w_max, s_bar), read by the
  fit and by the model file reader.
* :mod:`.draw_texts`: the fixed theorem and composition texts a certificate records for a private draw before a
  fit, written by the fit and compared by the model file reader.
"""
