"""Public data contracts and private data handling.

* :mod:`.preprocessing`: :class:`PublicSchema`, public per-column bounds and encodings;
* :mod:`.shared_level`: whether a schema's row map erases its numeric columns' common level (NOT PRIVATE warning);
* :mod:`.columns`: a table's columns as arrays with their missing values, what a schema encodes;
* :mod:`.csv_table`, :mod:`.parquet`: CSV and Parquet files, typed by pyarrow when it is installed;
* :mod:`.datasets`, :mod:`.uci_domains`: UCI Adult and KDD Cup 99 loaders and their public domains;
* :mod:`.rows`: the per-record map (feature map, norm clipping, intercept);
* :mod:`.standardiser`: a per-column affine feature map x -> (x - centre) * multiplier with saved parameters;
* :mod:`.repeats`: whether a CSR stores a (row, column) twice (its rows' norms are of the summed entries);
* :mod:`.files`: reading inputs and writing outputs atomically;
* :mod:`.blocks`: row blocks: inputs larger than memory, read and mapped block by block;
* :mod:`.csv_table`: CSV tables for the command line: the named columns of a plain or gzip-compressed file, as
  text cells;
* :mod:`.kernels`: kernels with public feature bounds, and random Fourier features;
* :mod:`.transformer_api`: scikit-learn's transformer API of the schema and the Fourier map (output container, tags);
* :mod:`.nystrom`: Nystrom features of PUBLIC landmarks: coordinates of the projection onto span phi(Z);
* :mod:`.notes`: the NOT PRIVATE clipping counts of a fit, shown once every check of its inputs has passed;
* :mod:`.parquet`: Parquet tables for the command line, read by record batches (pyarrow, from the dask extra).
"""
