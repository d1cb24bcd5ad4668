"""C++ templates at run time, on top of the runtime: instantiated when a kernel uses them.

``bindings`` binds a module's template rows (stubs); ``classes``, ``functions`` and ``members``
instantiate class, function and member function templates; ``instances`` makes one class
template instance; ``calls`` types and lowers one call of an instance; ``args`` deduces and
substitutes template arguments; ``probe`` asks NVRTC what substitution cannot tell; ``context``
holds what they share (a bindings' template context and its instance store).

Loaded only by bindings that have templates. Importing this package imports nothing.
"""
