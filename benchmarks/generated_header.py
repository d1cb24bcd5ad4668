"""Write a large generated CUDA header: N blocks of the declarations real device headers have.

    python benchmarks/generated_header.py 8000 /tmp/big.cuh     # about 6 MB

Each block is a namespace holding a struct (three fields, two constructors, a getter, a
setter, a member operator), an enum, three free functions and an operator, a function
template with a default, a class template and a function naming one of its instances, a
typedef, a constexpr variable and a literal macro. ``benchmarks/parse.py --generated`` times the
parser on it; the import system's measurements use ``write_header`` too.
"""

from __future__ import annotations

import sys
from pathlib import Path

BLOCK = """
namespace g{ns} {{
struct S{i} {{
  float a; int b; double c;
  __device__ S{i}() : a(0), b(0), c(0) {{}}
  __device__ S{i}(float x, int y) : a(x), b(y), c(0) {{}}
  __device__ float get() const {{ return a + b; }}
  __device__ void set(float v) {{ a = v; }}
  __device__ S{i} operator+(const S{i} &o) const {{ S{i} r; r.a = a + o.a; return r; }}
}};
enum E{i} {{ E{i}_A = {i}, E{i}_B, E{i}_C }};
__device__ inline float f{i}(const S{i} &s, float x) {{ return s.a * x; }}
__device__ inline S{i} make{i}(float x) {{ return S{i}(x, {i}); }}
__device__ inline bool operator==(const S{i} &l, const S{i} &r) {{ return l.a == r.a; }}
template <class T, int N = {small}> __device__ T t{i}(T x) {{ return x * N; }}
template <class T, int N> struct Box{i} {{ T v[N]; __device__ T first() const {{ return v[0]; }} }};
__device__ inline float unbox{i}(const Box{i}<float, 2> &b) {{ return b.first(); }}
typedef S{i} Alias{i};
constexpr int K{i} = {i};
}}
#define GEN_K{i} {i}
"""


def header_text(blocks: int) -> str:
    parts = ["#pragma once\n"]
    parts += [BLOCK.format(i=i, ns=i % 50, small=i % 7) for i in range(blocks)]
    return "".join(parts)


def write_header(path: str | Path, blocks: int) -> Path:
    """Write the header of ``blocks`` blocks to ``path``; returns the path."""
    path = Path(path)
    path.write_text(header_text(blocks), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path = write_header(args[1], int(args[0]))
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB, {args[0]} blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
