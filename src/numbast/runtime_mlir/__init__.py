"""The numba-cuda-mlir backend: the rows numbast.runtime applies, registered with numba-cuda-mlir.

``numbast.runtime.backends`` hands this backend what each apply registers once the process
imports ``numba_cuda_mlir`` (``backend.receive``); the registrations run before numba-cuda-mlir
next compiles (``backend``). They are the numba-cuda registrations' counterparts: the rows'
numba-cuda types translated (``type_translation``), struct types and data models (``structs``),
overload sets and their lowering (``overloads``), one bound call lowered to MLIR (``calls``),
and the shim library's link object in numba-cuda-mlir's terms (``links``: the same shims, the
same compiled LTO-IR), and structs passed where functions take a pointer to them
(``struct_pointers``). ``registration`` composes them for one struct or function.

Imports numba-cuda-mlir, numba-cuda (the rows' types are numba-cuda's) and numbast.core and
numbast.runtime only. Importing this package imports nothing.
"""
