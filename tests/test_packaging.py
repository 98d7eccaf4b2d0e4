"""The installed package holds every Python package of the source tree: pyproject.toml lists packages
one by one, and an editable install (the suite's) finds an unlisted one anyway, so only a regular
install (the Docker image's ``pip install .``) would miss it: the image's server then failed at
import (``cannot import name 'distributions'``)."""
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_source_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for name, folder in config["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join((name,) + rel.parts))
    assert found - listed == set(), f"packages missing from pyproject.toml's list: {sorted(found - listed)}"
    assert listed - found == set(), f"listed packages with no __init__.py: {sorted(listed - found)}"
