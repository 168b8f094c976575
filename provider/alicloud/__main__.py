"""The alicloud components as the Pulumi component package gpu-blueprints-alicloud."""

from blueprints.components.alicloud import public_components
from pulumi.provider.experimental import component_provider_host

if __name__ == "__main__":
    component_provider_host(name="gpu-blueprints-alicloud", components=public_components())
