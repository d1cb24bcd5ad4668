"""numbast.static: render a standalone Numba-CUDA bindings module from a static-binding config.

Kept light on purpose: ``python -m numbast`` and the import system import the submodules they
need (``config``, ``cli``, the renderer), so importing this package costs nothing.
"""


def reset_renderer() -> None:
    """NVIDIA Numbast's reset of every renderer cache and registry between runs in one process.
    The generator here keeps no state between runs, so this does nothing."""


__all__ = ["reset_renderer"]
