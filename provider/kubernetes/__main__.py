"""The kubernetes components as the Pulumi component package gpu-blueprints-kubernetes."""

from pulumi.provider.experimental import component_provider_host

from blueprints.components.kubernetes import public_components

if __name__ == "__main__":
    component_provider_host(name="gpu-blueprints-kubernetes", components=public_components())
