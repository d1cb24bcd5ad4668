"""Bindings of CUDA toolkit headers, importable as ``numbast.headers.<name>``: ``cufp16``
(cuda_fp16.h), ``cubf16`` (cuda_bf16.h), ``cufp8`` (cuda_fp8.h), ``cufp6`` (cuda_fp6.h),
``cufp4`` (cuda_fp4.h), ``cucomplex`` (cuComplex.h) and ``curand`` (curand_kernel.h; its headers
come with the ``curand`` extra). See docs/builtin_headers.md.

They are generated on first import and cached by the import system (numbast_import), whose
finder this package installs; the mappings are in ``numbast_import.builtin_headers``.
"""

from numbast_import.finder import install as _install

_install()
