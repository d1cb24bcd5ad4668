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
- ``generated``: the specification's DynamicModule (preamble + functions into a template);
  ``dynamic``: DynamicModule / DynamicSourceModule in both forms (and PyCUDA's linker)
- ``host_memory``: page-locked, registered and aligned host arrays; ``mempool``: memory pools;
  ``memoize``: per-context results; ``dtypes``: numpy dtypes <-> C types, kernel arguments
- ``array_layout`` (shapes, strides, indexing), ``array_ops`` (elementwise kernels of array
  arithmetic), ``array_operators`` / ``array_views`` (GPUArray's mixins), ``launch_shapes``
  (grid and block for grid-stride loops), ``linear_combination``: behind ``gpuarray``,
  ``elementwise``, ``reduction`` and ``curandom``
"""
