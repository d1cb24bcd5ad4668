"""Runtime kernel compilation in PyCUDA's API, on cuda.core: the internals behind
``numbast_import.compiler``, ``numbast_import.driver`` and ``numbast_import.autoinit``.

One module, one job:

- ``options``: user options (nvcc spelling) to NVRTC / nvcc command lines
- ``source``: the ``extern "C"`` wrapper; ``textures_rewrite``: texture references to objects
- ``includes``: the user headers a source includes (for the cache key)
- ``nvrtc`` / ``nvcc``: the two compilers; ``errors``: CompileError
- ``store``: the on-disk cache; ``build``: key, in-process memo, disk cache, compile
- ``context``, ``memory``, ``events``: driver objects; ``args``: kernel argument packing
- ``launch``: launching through the driver; ``function``: Function; ``module``: Module
- ``textures``, ``arrays``: texture references and CUDA arrays at run time
"""
