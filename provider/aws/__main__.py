"""The aws components as the Pulumi component package gpu-blueprints-aws."""

from pulumi.provider.experimental import component_provider_host

from blueprints.components.aws import public_components

if __name__ == "__main__":
    component_provider_host(name="gpu-blueprints-aws", components=public_components())
