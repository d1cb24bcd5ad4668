"""User namespace for mapped headers: ``import cuda_headers.my_lib``.

Its only job is to install the import system's finder (see numbast_import). Until the import
system lands, importing a submodule raises ModuleNotFoundError as for any missing module.
"""
