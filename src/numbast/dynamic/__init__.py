"""Dynamic binding: plan declarations and apply the rows in-process (``bind_cxx_*``,
``bind_header``), through the same runtime functions a generated module calls.

``numba_types`` is the process's C++ -> Numba type table that dynamic binding fills;
``shim_writer`` has NVIDIA Numbast's shim writer classes.
"""
