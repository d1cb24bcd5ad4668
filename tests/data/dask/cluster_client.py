"""A Dask client as a user writes one (tests/test_dask_workers.py runs it): in a project whose
pyproject.toml maps ``vec``, import the module and send a kernel using it to a LocalCluster of
worker processes started in a directory with no pyproject.toml. Each worker compiles and links
the kernel for sm_90 (no GPU needed). Prints one JSON object.

    python cluster_client.py PROJECT WORKDIR N_WORKERS LAYER HOST_ROOT

This process builds the module's entry into LAYER (as `numbast-cache warm --into LAYER` would);
the workers use LAYER read-only (NUMBAST_CACHE_PATH) and HOST_ROOT as their writable root.
"""

import json
import os
import sys
import time

project, workdir, n_workers, layer, host_root = sys.argv[1:6]


def link_on_worker(kernel):
    """On a worker: compile the unpickled kernel to LTO-IR and link it into an sm_90 cubin."""
    from numba.cuda import types
    from support import link_kernel_to_cubin

    cubin = link_kernel_to_cubin(kernel.py_func, (types.float32[:],), arch="sm_90")
    module = sys.modules["cuda_headers.vec"]
    return {
        "pid": os.getpid(),
        "cubin": len(cubin),
        "clang": "clang.cindex" in sys.modules,
        "module_file": module.__file__,
        "cwd": os.getcwd(),
    }


if __name__ == "__main__":
    started = time.perf_counter()
    os.chdir(project)
    os.environ["NUMBAST_CACHE_DIR"] = layer
    from distributed import Client, LocalCluster
    from numba import cuda

    import cuda_headers.vec as vec

    @cuda.jit
    def kernel(out):
        a = vec.Vec2(1.0, 2.0)
        out[0] = vec.scaled_dot(a, a)

    # The workers start here (no pyproject.toml), with this environment.
    os.chdir(workdir)
    os.environ.update(NUMBAST_CACHE_DIR=host_root, NUMBAST_CACHE_PATH=layer)
    result = {"timings": {"imported": time.perf_counter() - started}}
    with (
        LocalCluster(
            n_workers=int(n_workers), threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        result["timings"]["cluster"] = time.perf_counter() - started
        workers = sorted(client.scheduler_info()["workers"])
        header = os.path.join(project, "include", "vec.cuh")
        original = open(header).read()
        # Edited after the module was imported (and so pickled with its old digest): refused.
        with open(header, "a") as out:
            out.write("// edited\n")
        future = client.submit(link_on_worker, kernel, workers=workers[:1], pure=False)
        try:
            future.result()
            result["edited"] = "no error"
        except ImportError as exc:
            result["edited"] = f"{type(exc).__name__}: {exc}"
        result["timings"]["edited"] = time.perf_counter() - started
        with open(header, "w") as out:
            out.write(original)
        futures = [client.submit(link_on_worker, kernel, workers=[w], pure=False) for w in workers]
        result["workers"] = client.gather(futures)
    result["seconds"] = time.perf_counter() - started
    print(json.dumps(result))
