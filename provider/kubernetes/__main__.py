"""The kubernetes components as the Pulumi component package gpu-blueprints-kubernetes."""

from blueprints.components.kubernetes import public_components
from pulumi.provider.experimental import component_provider_host

if __name__ == "__main__":
    component_provider_host(name="gpu-blueprints-kubernetes", components=public_components())
