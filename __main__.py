"""The program `pulumi up` runs: load the stack's spec, resolve it, build it, export outputs."""

import pulumi

from blueprints.program import build_cluster
from blueprints.stackconfig import CONFIG_KEY, parse_cluster
from blueprints.resolver import resolve

spec = parse_cluster(pulumi.Config().require_object(CONFIG_KEY), source=f"stack {pulumi.get_stack()}")
cluster = build_cluster(resolve(spec))
for name, value in cluster.outputs.items():
    pulumi.export(name, value)
