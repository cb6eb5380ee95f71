"""The package list pyproject.toml cannot state: the repository's app/, models/ and
resources/ folders installed as sentspace.app, sentspace.models, sentspace.resources."""

from setuptools import find_packages, setup

FOLDERS = ("app", "models", "resources")

setup(
    packages=[
        "sentspace",
        *(
            f"sentspace.{package}"
            for package in find_packages(include=[f"{folder}*" for folder in FOLDERS])
        ),
    ],
    package_dir={"sentspace": "sentspace", **{f"sentspace.{folder}": folder for folder in FOLDERS}},
    # py.typed: the package ships its type hints (PEP 561), for users' type checkers.
    package_data={"sentspace": ["py.typed"], "sentspace.resources": ["**/*"]},
)
