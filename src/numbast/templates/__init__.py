"""C++ function and class templates: bound once, instantiated when a kernel (or an index on the
host) needs an instance. ``arguments`` (template arguments and substitution), ``deduction``
(from Numba argument types), ``probe`` (asking clang what substitution cannot tell),
``class_instances`` (one instance as a plain struct declaration), and the two binders.
"""
