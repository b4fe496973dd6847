"""Maps the project's top-level folders into one import namespace, ``dialectica.*``.

The metadata lives in pyproject.toml; this file only computes the package list, so that a new graph
folder (or any new subpackage or data folder) ships without editing a list of names.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

CODE = ("sim", "graphs", "metrics")  # Python packages
DATA = ("conf", "datasets")  # data read through importlib.resources
ROOT = Path(__file__).parent


def _packages(folder: str) -> list[str]:
    found = find_namespace_packages(where=str(ROOT / folder), exclude=["*__pycache__*"])
    return [f"dialectica.{folder}", *(f"dialectica.{folder}.{name}" for name in found)]


setup(
    packages=["dialectica", *(p for folder in CODE + DATA for p in _packages(folder))],
    package_dir={"dialectica": "dialectica", **{f"dialectica.{folder}": folder for folder in CODE + DATA}},
    package_data={f"dialectica.{folder}": ["**/*.yaml", "**/*.md", "**/*.json"] for folder in DATA}
    | {"dialectica": ["py.typed"], "dialectica.sim.analysis.report": ["*.ipynb"]},
)
