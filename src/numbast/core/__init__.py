"""The Numba-free vocabulary that planning, the runtime and the renderer share: the row format
(``rows``), call plans (``call_plans``), the shims' C++ text (``shim_text``), C++ type names
(``cxx_names``), indexing planned rows (``row_writer``), struct padding (``struct_padding``),
and the one NVRTC environment (``nvrtc``, with its stand-in system headers in ``nvrtc_headers/``).

Nothing here imports Numba or anything of numbast outside this package: a standalone generated
module carries a copy of it. Importing this package imports nothing.
"""
