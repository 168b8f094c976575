"""ruff's settings keep the plan unchanged: the scripts shipped byte for byte as ConfigMap data are never reformatted
(`make fmt` over them would replace the acceptance and fabric ConfigMaps on every cluster)."""

import tomllib

from blueprints.stackconfig import ROOT
from components.kubernetes import acceptance, fabric

RUFF = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]


def test_every_script_shipped_as_configmap_data_is_excluded_from_the_formatter():
    shipped = {acceptance.SCRIPT, acceptance.RECHECK_SCRIPT, fabric.SCRIPT}
    assert {str(path.relative_to(ROOT)) for path in shipped} == set(RUFF["format"]["exclude"])
