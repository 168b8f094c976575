"""The replacement catalog names real inputs of the installed provider SDKs, each with its source."""

import importlib
import re

import pytest

from blueprints.catalog.replacements import replacement_rules

RULES = replacement_rules()


def _args_class(type_token: str):
    """aws:eks/nodeGroup:NodeGroup -> pulumi_aws.eks.NodeGroupArgs (the SDK's own input class)."""
    provider, module_path, name = type_token.split(":")
    module = importlib.import_module(f"pulumi_{provider}.{module_path.split('/')[0]}")
    return getattr(module, f"{name}Args")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.mark.parametrize("type_token", sorted(RULES))
def test_every_forcing_input_is_an_input_of_the_installed_sdk(type_token):
    args = _args_class(type_token)
    rules = RULES[type_token]
    for path in rules.replaces + tuple(filter(None, [rules.replaces_when_shrinking, rules.fixed_name])):
        assert hasattr(args, _snake(path.split(".")[0])), f"{type_token}: {path} is not an input of {args.__name__}"


@pytest.mark.parametrize("type_token", sorted(RULES))
def test_every_entry_names_its_source(type_token):
    assert RULES[type_token].source.startswith(("https://github.com/pulumi/terraform-provider-aws ",
                                                "https://github.com/aliyun/terraform-provider-alicloud ",
                                                "the previous hand-kept table"))


def test_node_group_capacity_type_and_instance_types_force_replacement_but_scaling_does_not():
    rules = RULES["aws:eks/nodeGroup:NodeGroup"]
    assert rules.forcing("capacityType") and rules.forcing("instanceTypes")
    assert rules.forcing("launchTemplate.id") == "launchTemplate.id"
    assert not rules.forcing("scalingConfig.desiredSize") and not rules.forcing("launchTemplate.version")
