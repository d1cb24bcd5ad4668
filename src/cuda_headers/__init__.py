"""User namespace for mapped headers: ``import cuda_headers.my_lib``.

Its only job is to install the import system's finder, which maps the names under
``[tool.numbast-import.headers]`` of your pyproject.toml to CUDA C++ headers (see
docs/import_system.md).
"""

from numbast_import.finder import install as _install

_install()
