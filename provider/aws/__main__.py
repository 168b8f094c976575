"""The aws components as the Pulumi component package gpu-blueprints-aws."""

from blueprints.components.aws import public_components
from pulumi.provider.experimental import component_provider_host

if __name__ == "__main__":
    component_provider_host(name="gpu-blueprints-aws", components=public_components())
