"""Pulumi ComponentResources: typed args in, resources out; no presets, no stacks."""
