"""Quick start: bind a small CUDA C++ header at run time and call it from a Numba-CUDA kernel.

Run with ``python examples/quickstart.py``. With a GPU it launches the kernel and checks the
result; without one it still parses, binds and compiles the kernel for sm_90, and says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from demo_dynamic import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
