"""Maps the repository's folders onto the one import name `blueprints` (metadata lives in pyproject.toml).

The folders stay where the Pulumi project and its tests expect them (components/, policies/library/,
acceptance/); a wheel carries them as blueprints.components, blueprints.policies and blueprints.acceptance.
Only the layers a consumer builds on are shipped: the stack spec, resolver, offline plan and CLI are not.
Rules are found by walking the folders, so a new rule folder needs no edit here.
"""

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

FOLDERS = {
    "blueprints.catalog": "catalog",
    "blueprints.components": "components",
    "blueprints.policies": "policies/library",
    "blueprints.acceptance": "acceptance",
}
SKIP = ["__pycache__", "*.__pycache__"]

package_dir = {"blueprints": "blueprints", **FOLDERS}
packages = ["blueprints"]
for name, folder in FOLDERS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=SKIP)]


class BuildPy(build_py):
    """Ship only `blueprints/__init__.py` of the top package: the spec, resolver, composition, offline plan and CLI
    import the repository's folders by their top-level names and belong to the Pulumi project, not the library."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        if package == "blueprints":
            modules = [m for m in modules if m[1] == "__init__"]
        return modules


setup(
    cmdclass={"build_py": BuildPy},
    packages=packages,
    package_dir=package_dir,
    package_data={name: ["*.yaml", "*.json"] for name in packages},
    py_modules=[],
)
