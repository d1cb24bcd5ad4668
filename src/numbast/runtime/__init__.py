"""The runtime: what registers bindings with Numba, from rows of plain data.

``rows`` defines the data (and imports only the standard library, so planning can use it without
Numba); ``apply`` registers rows, through ``calls`` (the lowering of one bound call),
``overloads`` (overload sets and stubs), ``structs`` and ``members`` (struct types, models,
conversions and methods) and ``shim_library`` (the shims kernels link). ``state`` holds the
registration tables every copy of the runtime in a process shares.

The runtime imports numba-cuda and the standard library only: a standalone generated module
carries a copy of it and runs where numbast is not installed. Importing this package imports
nothing.
"""
