"""What leaves dpcvx: released models with their certificates, and the model file format.

Everything here is a function of public inputs or of privatised values.

* :mod:`.model`: :class:`PrivateModel` (linear) and its :class:`ReleaseCertificate`;
* :mod:`.kernel_model`: the released kernel predictor;
* :mod:`.report`: :class:`ReleaseReport`, the plain-language report of a release (Markdown, HTML);
* :mod:`.serialization`: ``save`` / ``load`` (versioned JSON, checked on load).
"""
