"""The replacement catalog names real inputs of the installed provider SDKs, each with its source, and
says exactly what the providers' source says (tests/data/replacements/, see SOURCE.md there)."""

import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest
import yaml

from catalog.replacements import PATH, replacement_rules
from conftest import SHIPPED, shipped_plan

RULES = replacement_rules()
DATA = Path(__file__).parent / "data" / "replacements"
SNIPPETS = {  # catalog type -> the file of ForceNew lines extracted from the provider's source
    "aws:eks/nodeGroup:NodeGroup": "aws-eks-node_group",
    "aws:fsx/lustreFileSystem:LustreFileSystem": "aws-fsx-lustre_file_system",
    "aws:s3/bucket:Bucket": "aws-s3-bucket",
    "aws:ebs/volume:Volume": "aws-ec2-ebs_volume",
    "aws:efs/fileSystem:FileSystem": "aws-efs-file_system",
    "aws:kms/key:Key": "aws-kms-key",
    "aws:cloudwatch/logGroup:LogGroup": "aws-logs-group",
    "alicloud:cs/nodePool:NodePool": "alicloud-cs_kubernetes_node_pool",
    "alicloud:oss/bucket:Bucket": "alicloud-oss_bucket",
    "alicloud:nas/fileSystem:FileSystem": "alicloud-nas_file_system",
    "alicloud:log/store:Store": "alicloud-log_store",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _camel(path: str) -> str:
    return ".".join(re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), part) for part in path.split("."))


def _inputs(type_token: str) -> set[str]:
    """The installed SDK's input names (snake_case) for a type: aws:eks/nodeGroup:NodeGroup ->
    pulumi_aws.eks.NodeGroupArgs; kubernetes:rbac.authorization.k8s.io/v1:RoleBinding ->
    pulumi_kubernetes.rbac.v1.RoleBindingArgs; a custom resource's kind -> apiextensions.CustomResource."""
    provider, module_path, name = type_token.split(":")
    if provider == "kubernetes":
        group, version = module_path.split("/")
        module_name = f"pulumi_kubernetes.{group.split('.')[0]}.{version}"
        try:
            args = getattr(importlib.import_module(module_name), f"{name}Args")
        except (ImportError, AttributeError):
            custom = importlib.import_module("pulumi_kubernetes.apiextensions").CustomResource
            return set(inspect.signature(custom.__init__).parameters) - {"self", "resource_name", "opts"}
    else:
        args = getattr(importlib.import_module(f"pulumi_{provider}.{module_path.split('/')[0]}"), f"{name}Args")
    return {n for n in dir(args) if not n.startswith("_")}


def _snippet(name: str) -> tuple[str, list[tuple[int, str]]]:
    header, *lines = (DATA / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return header, [(int(n), path) for n, path in (line.split() for line in lines)]


@pytest.mark.parametrize("type_token", sorted(RULES))
def test_every_forcing_input_is_an_input_of_the_installed_sdk(type_token):
    inputs = _inputs(type_token)
    rules = RULES[type_token]
    for path in rules.replaces + tuple(filter(None, [rules.replaces_when_shrinking, rules.fixed_name])):
        assert _snake(path.split(".")[0]) in inputs, f"{type_token}: {path} is not an input of the installed SDK"


@pytest.mark.parametrize("type_token", sorted(RULES))
def test_every_entry_names_its_source_file_and_commit(type_token):
    source = RULES[type_token].source
    assert source.startswith(
        (
            "https://github.com/pulumi/terraform-provider-aws ",
            "https://github.com/aliyun/terraform-provider-alicloud ",
            "https://github.com/pulumi/pulumi-kubernetes ",
        )
    )
    assert re.search(r" \S+\.go@[0-9a-f]{40}$", source), source


def test_no_entry_is_hand_kept_any_more():
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    assert set(data["sources"]) == {"tf-aws", "tf-alicloud", "pulumi-kubernetes"}
    assert "hand-kept" not in PATH.read_text(encoding="utf-8")


def test_every_terraform_type_has_its_extracted_snippet():
    terraform = {t for t in RULES if not t.startswith("kubernetes:")}
    assert terraform == set(SNIPPETS)


@pytest.mark.parametrize("type_token", sorted(SNIPPETS))
def test_catalog_is_exactly_what_the_snippet_says(type_token):
    """Every ForceNew attribute that is an input of the installed SDK, nested ones under a ForceNew
    parent folded into it; the entry cites the same file and commit as the snippet."""
    header, lines = _snippet(SNIPPETS[type_token])
    inputs = _inputs(type_token)
    forcing = [_camel(path) for _, path in lines if path.split(".")[0] in inputs]
    expected = sorted(p for p in forcing if not any(p.startswith(q + ".") for q in forcing))
    assert sorted(RULES[type_token].replaces) == expected
    repo, _ref, commit, path = header.split()[-4:]
    assert RULES[type_token].source == f"{repo} {path}@{commit}"


def _extractor():
    spec = importlib.util.spec_from_file_location("extract_forcenew", DATA / "extract_forcenew.py")
    extractor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extractor)
    return extractor


def _extract(name: str) -> tuple[list[str], int, str]:
    """The committed cut of the provider file: its source (repository, ref, commit, path), the file's line
    number of the cut's first line, and the cut itself (see SOURCE.md)."""
    header, text = (DATA / f"{name}.go.txt").read_text(encoding="utf-8").split("\n", 1)
    match = re.fullmatch(r"// (\S+) (\S+) ([0-9a-f]{40}) (\S+) lines (\d+)-(\d+): the Schema map, verbatim", header)
    assert match, header
    first, last = int(match[5]), int(match[6])
    assert len(text.splitlines()) == last - first + 1, f"{name}: the cut is not lines {first}-{last}"
    return list(match.groups()[:4]), first, text


@pytest.mark.parametrize("type_token", sorted(SNIPPETS))
def test_snippet_is_what_the_committed_provider_source_says(type_token):
    """The snippet is the extractor's reading of the committed cut of the provider file, named by the same
    repository, commit and path, and the cut is the resource's whole Schema map (so no ForceNew is left out)."""
    extractor = _extractor()
    header, lines = _snippet(SNIPPETS[type_token])
    source, first, text = _extract(SNIPPETS[type_token])
    assert source == header.split()[-4:]
    assert extractor.schema_span(text) == (1, len(text.splitlines()))
    assert [(first - 1 + n, path) for n, path in extractor.force_new(text)] == lines


def test_kubernetes_entries_are_what_pulumi_kubernetes_lists():
    rows = [
        line.split()
        for line in (DATA / "pulumi-kubernetes.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    every_kind = sorted(path for kind, path, _ in rows if kind == "*")
    kubernetes = {t for t in RULES if t.startswith("kubernetes:")}
    for type_token in kubernetes:
        own = [path for kind, path, _ in rows if kind == type_token]
        metadata = [] if type_token == "kubernetes:helm.sh/v3:Release" else every_kind
        assert sorted(RULES[type_token].replaces) == sorted(metadata + own), type_token
        assert not RULES[type_token].fixed_name  # the provider deletes a named object before replacing it


@pytest.mark.parametrize("stack", SHIPPED)
def test_kubernetes_entries_cover_every_kind_the_shipped_plans_register(stack):
    kinds = {r["type"] for r in shipped_plan(stack).to_json()["resources"] if r["type"].startswith("kubernetes:")}
    assert kinds and kinds <= set(RULES), kinds - set(RULES)


def test_extractor_reads_nested_schema_keys_and_names_constants():
    extractor = _extractor()
    go = """func resourceThing() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
			"name": {
				Type:     schema.TypeString,
				ForceNew: true, // a comment with a { brace
			},
			"block": {
				Type: schema.TypeList,
				Elem: &schema.Resource{
					Schema: map[string]*schema.Schema{
						"inner": {
							Description: "a { brace in a string",
							ForceNew:    true,
						},
						"free": {
							Type: schema.TypeString,
						},
					},
				},
			},
			names.AttrKMSKeyID: {
				ForceNew: true,
			},
			"after": {
				Optional: true,
			},
		},
	}
}
"""
    assert [p for _, p in extractor.force_new(go)] == ["name", "block.inner", "kms_key_id"]


def test_node_group_capacity_type_and_instance_types_force_replacement_but_scaling_does_not():
    rules = RULES["aws:eks/nodeGroup:NodeGroup"]
    assert rules.forcing("capacityType") and rules.forcing("instanceTypes")
    assert rules.forcing("launchTemplate.id") == "launchTemplate.id"
    assert not rules.forcing("scalingConfig.desiredSize") and not rules.forcing("launchTemplate.version")
