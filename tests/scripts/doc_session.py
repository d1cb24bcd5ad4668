"""Run the Python blocks of one documentation page in one interpreter, as a reader pasting them
in order would (tests/test_docs_commands.py writes the plan; tests/docs_blocks.py says what the
options mean).

    python doc_session.py PLAN.json RESULTS.json

PLAN: {"has_gpu": bool, "blocks": [{where, code, before, after, link: [[kernel, signature]],
path, cpu_until, gpu, requires}]}. A ``gpu`` block runs where there is a GPU; elsewhere only
its lines before ``cpu_until`` run (none without it), and ``after`` does not.
RESULTS: per block {where, status, error, output, linked}; the session stops at the first
failed block (later ones build on it).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from pathlib import Path


def run_block(block: dict, namespace: dict, has_gpu: bool) -> dict:
    result = {"where": block["where"], "status": "ok", "error": "", "output": "", "linked": []}
    code = block["code"]
    if block.get("requires") == "curand" and not curand_headers_installed():
        result["status"] = "skipped"
        result["error"] = 'cuRAND headers not installed: pip install "numbast-import[curand]"'
        return result
    if block["gpu"] and not has_gpu:
        if not block.get("cpu_until"):
            result["status"] = "skipped"
            return result
        lines = code.splitlines()
        cut = next(i for i, line in enumerate(lines) if line.startswith(block["cpu_until"]))
        code = "\n".join(lines[:cut]) + "\n"
        block = dict(block, after="")  # it checks what the GPU part computed
    if block.get("path"):
        sys.path.insert(0, str(Path(block["path"]).resolve()))
    # The block as a file of its own, as a reader would save it (kernels with cache=True need
    # a source file; tracebacks show its lines).
    source = Path("doc_blocks") / (block["where"].replace("/", "_").replace(":", "_") + ".py")
    source.parent.mkdir(exist_ok=True)
    source.write_text(code)
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            for part, filename in (
                (block.get("before"), f"{block['where']} (before)"),
                (code, str(source.resolve())),
                (block.get("after"), f"{block['where']} (after)"),
            ):
                if part:
                    exec(compile(part, filename, "exec"), namespace)
            for kernel, signature in block["link"]:
                result["linked"].append(link(namespace, kernel, signature))
    except BaseException:  # reported to the test, which fails naming the block
        result["status"] = "failed"
        result["error"] = traceback.format_exc()
    result["output"] = captured.getvalue()
    return result


def link(namespace: dict, kernel: str, signature: str) -> str:
    from numba.cuda import types
    from support import link_kernel_to_cubin

    function = namespace[kernel]
    function = getattr(function, "py_func", function)  # a @cuda.jit dispatcher's function
    # The docs' text, with the page's names (a bound struct's type) beside Numba's types.
    argument_types = eval(f"({signature},)", {**vars(types), **namespace})
    cubin = link_kernel_to_cubin(function, argument_types, arch="sm_90")
    return f"{kernel}: {len(cubin)}-byte sm_90 cubin"


def curand_headers_installed() -> bool:
    from ast_canopy.toolkit import curand_include_dir

    return curand_include_dir() is not None


def main() -> int:
    plan = json.loads(Path(sys.argv[1]).read_text())
    namespace: dict = {"__name__": "__main__"}
    results = []
    for block in plan["blocks"]:
        results.append(run_block(block, namespace, plan["has_gpu"]))
        if results[-1]["status"] == "failed":
            break  # later blocks of the page build on this one
    Path(sys.argv[2]).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
