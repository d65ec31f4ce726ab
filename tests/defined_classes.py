"""Every error or warning class dpcvx defines, found by walking the package (the error table's test and the
reference page's test read the same walk)."""

import importlib
import pkgutil

import dpcvx


def defined_subclasses(base: type) -> set[type]:
    """Every subclass of ``base`` (itself included) that dpcvx defines: each module of the package imported first (a
    class exists once its module ran), and the estimators' EstimatorNotFittedError made (on first use)."""
    for module in pkgutil.walk_packages(dpcvx.__path__, "dpcvx."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    dpcvx.exceptions.estimator_not_fitted()
    found: set[type] = set()
    pending = [base]
    while pending:
        cls = pending.pop()
        if cls not in found and cls.__module__.split(".")[0] == "dpcvx":
            found.add(cls)
            pending.extend(cls.__subclasses__())
    return found
