"""Planning: declarations -> rows of plain data, decided without Numba.

``declarations`` plans one declaration (a function, a struct with its members, an enum) using
``calls`` (how arguments cross a shim), ``shim_text`` (the shims' C++), ``type_rules`` (C++ types
-> the types of a type table) and ``struct_layout``; ``templates`` turns templates into rows the
runtime instantiates. ``numbast.core.row_writer`` indexes the plans into the rows the runtime
applies (``numbast.core.rows``). ``type_refs`` describes Numba types as data
for the static generator. Nothing here imports Numba (tests/test_layers.py checks it).
"""
