"""The program `pulumi up` runs: load the stack's spec, resolve it once, compose the cluster, export outputs."""

import pulumi

from blueprints.compose import build_cluster, resolve_config
from blueprints.stackconfig import CONFIG_KEY

plan = resolve_config(pulumi.Config().require_object(CONFIG_KEY), source=f"stack {pulumi.get_stack()}")
cluster = build_cluster(plan)
for name, value in cluster.outputs.items():
    pulumi.export(name, value)
