"""numbast.static: render a standalone Numba-CUDA bindings module from a static-binding config.

Kept empty on purpose: ``python -m numbast`` and the import system import the submodules they
need (``config``, ``cli``, the renderer), so importing this package costs nothing.
"""
