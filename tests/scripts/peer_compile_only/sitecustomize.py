"""Installs compile-only mode in every Python process when NUMBAST_COMPILE_ONLY=1."""

import os

if os.environ.get("NUMBAST_COMPILE_ONLY") == "1":
    import peer_compile_only

    peer_compile_only.install()
