"""Bindings of CUDA toolkit headers, importable as ``numbast.headers.<name>``.

This is a namespace for built-in header modules; each arrives with the import system.
"""
