"""Bindings of CUDA toolkit headers, importable as ``numbast.headers.<name>``: ``cufp16``
(cuda_fp16.h), ``cubf16`` (cuda_bf16.h), ``cufp8`` (cuda_fp8.h), ``cufp6`` (cuda_fp6.h),
``cufp4`` (cuda_fp4.h), ``cucomplex`` (cuComplex.h) and ``curand`` (curand_kernel.h; its headers
come with the ``curand`` extra). See docs/builtin_headers.md.

They are generated on first import and cached by the import system (numbast_import), whose
mappings are in ``numbast_import.builtin_headers``. This package is the import system's
namespace under numbast's name, as ``cuda_headers`` is the user's: its only job is to install the
import system's finder. The rest of numbast never imports it or the import system, and
``import numbast`` does not import it (tests/test_layers.py).
"""

from numbast_import.finder import install as _install

_install()
