"""Bindings of CUDA toolkit headers, importable as ``numbast.headers.<name>``: ``cufp16``
(cuda_fp16.h), ``cubf16`` (cuda_bf16.h) and ``cufp8`` (cuda_fp8.h).

They are generated on first import and cached by the import system (numbast_import), whose
finder this package installs; the mappings are in ``numbast_import.builtin_headers``.
"""

from numbast_import.finder import install as _install

_install()
