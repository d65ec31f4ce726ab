"""Public data contracts and private data handling.

* :mod:`.preprocessing`: :class:`PublicSchema`, public per-column bounds and encodings;
* :mod:`.datasets`, :mod:`.uci_domains`: UCI Adult and KDD Cup 99 loaders and their public domains;
* :mod:`.rows`: the per-record map (feature map, norm clipping, intercept);
* :mod:`.repeats`: whether a CSR stores a (row, column) twice (its rows' norms are of the summed entries);
* :mod:`.files`: reading inputs and writing outputs atomically.
"""
