"""The distribution's promises: light imports, working CLIs, and files that must not drift."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

# pip name -> conda-forge name, where they differ. numba-cuda's [cu13] extra is spelled out in
# conda as the toolkit component packages, checked separately below.
CONDA_NAME = {
    "libclang-ng": "libclang-ng",
    "numba-cuda[cu13]": "numba-cuda",
    "nvidia-cuda-crt": "cuda-crt",
}
CU13_COMPONENTS = {"cuda-nvrtc", "cuda-nvvm", "cuda-cudart-dev", "cuda-cccl", "libnvjitlink"}


def _requirement_name(req: str) -> str:
    return re.split(r"[<>=!~; ]", req, maxsplit=1)[0].strip()


def test_every_runtime_dependency_is_in_the_conda_environment():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "conda" / "environment.yaml").read_text())
    conda_names = {_requirement_name(dep) for dep in env["dependencies"] if isinstance(dep, str)}
    missing = []
    for req in project["dependencies"]:
        name = _requirement_name(req)
        if CONDA_NAME.get(name, name) not in conda_names:
            missing.append(name)
    assert not missing, f"pyproject dependencies absent from conda/environment.yaml: {missing}"
    if any(_requirement_name(r) == "numba-cuda[cu13]" for r in project["dependencies"]):
        assert CU13_COMPONENTS <= conda_names, CU13_COMPONENTS - conda_names
    pip_section = next(dep for dep in env["dependencies"] if isinstance(dep, dict))
    assert "-e .." in pip_section["pip"]


def test_ci_runs_the_readme_test_command():
    readme_blocks = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    assert len(readme_blocks) == 2, "the README gives exactly two set-up commands"
    test_command = readme_blocks[1].strip()
    assert test_command in (ROOT / ".ci" / "run").read_text().splitlines()


def test_importing_the_packages_loads_nothing_heavy():
    code = (
        "import sys, numbast_import, ast_canopy, numbast, cuda_headers, numbast.headers\n"
        "heavy = [m for m in ('numba', 'clang', 'clang.cindex', 'cuda.core', 'numpy', 'yaml')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"eagerly imported: {out.stdout.strip()}"


def test_numbast_cache_help():
    out = subprocess.run(
        [sys.executable, "-m", "numbast_import.cli", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "usage: numbast-cache" in out.stdout


def test_numbast_module_help():
    out = subprocess.run(
        [sys.executable, "-m", "numbast", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "--cfg-path" in out.stdout and "--output-dir" in out.stdout


def test_console_scripts_are_declared():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {
        "numbast-cache": "numbast_import.cli:main",
        "numbast": "numbast.__main__:main",
    }
