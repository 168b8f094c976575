"""Issue #35 (a): every object every stack declares is one the API server accepts as written.

Over every shipped stack (stacks/) and every test stack (tests/data/stacks), each planned once: every custom
resource validates against its CRD's openAPIV3Schema at the version the plan pins (tests/data/crds/index.yaml says
which; a custom resource without a kept CRD fails), unknown fields reported rather than pruned, and passes the CRD's
x-kubernetes-validations CEL rules; every built-in object validates strictly (unknown fields refused) at the
cluster's Kubernetes minor. The validator is tests/kube_schema.py; below it, tests that it catches what it names on
real pinned CRDs."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import typing
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml

import kube_schema as ks
from blueprints.offline.plan import Plan
from blueprints.stackconfig import ROOT, STACKS_DIR, available_stacks
from conftest import shipped_plan

TEST_STACKS = ROOT / "tests" / "data" / "stacks"
STACKS = [(s, STACKS_DIR) for s in available_stacks()] + [
    (p.name.removeprefix("Pulumi.").removesuffix(".yaml"), TEST_STACKS)
    for p in sorted(TEST_STACKS.glob("Pulumi.*.yaml"))
]
NOT_OBJECTS = ("kubernetes:helm.sh/",)  # a Helm release is the chart's values, not an object we declare


@dataclass
class Judged:
    version: str
    custom: int = 0
    builtin: int = 0
    report: ks.Report = field(default_factory=ks.Report)
    no_crd: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def is_builtin(obj: dict[str, Any], version: str) -> bool:
    """Built in at this minor iff kubernetes-validate ships a schema for its kind and apiVersion there."""
    try:
        ks.builtin_schema(obj, version)
    except FileNotFoundError:
        return False
    return True


def judge(plan: Plan) -> Judged:
    judged = Judged(version=plan.resolved.spec.kubernetes_version)
    for registration in plan.registrations:
        if not registration.custom or not registration.type.startswith("kubernetes:"):
            continue
        if registration.type.startswith(NOT_OBJECTS):
            continue
        obj = ks.registration_object(registration)
        where = f"{obj['kind']} {obj['metadata'].get('namespace', '')}/{obj['metadata'].get('name')}"
        if is_builtin(obj, judged.version):
            judged.builtin += 1
            report = ks.validate_builtin(obj, judged.version)
        else:
            schema = ks.crd_schema(obj["apiVersion"], obj["kind"])
            if schema is None:
                judged.no_crd.append(f"{where}: no pinned CRD for {obj['apiVersion']} {obj['kind']} in tests/data/crds")
                continue
            judged.custom += 1
            report = ks.validate_custom(obj, schema, judged.version)
        judged.failures += [f"{where}: {failure}" for failure in report.failures]
        judged.report.add(report)
    return judged


@pytest.fixture(scope="module")
def judged() -> dict[str, Judged]:
    """Every stack planned once and judged, through the test process's shared plans (their packs judge only when
    a test reads findings, and do not change what is registered)."""
    return {stack: judge(shipped_plan(stack, folder)) for stack, folder in STACKS}


@pytest.mark.parametrize("stack", [s for s, _ in STACKS])
def test_every_custom_resource_has_its_pinned_crd(judged, stack):
    assert judged[stack].no_crd == []


@pytest.mark.parametrize("stack", [s for s, _ in STACKS])
def test_every_object_is_valid_and_passes_its_cel_rules(judged, stack):
    assert judged[stack].failures == []


def test_each_stack_was_judged_and_the_counts_are_shown(judged, capsys):
    lines = [f"{'stack':24} {'k8s':5} {'CRs':>4} {'rules':>6} {'oldSelf':>8} {'built-in':>9} {'computed':>9}"]
    for stack, j in judged.items():
        r = j.report
        lines.append(
            f"{stack:24} {j.version:5} {j.custom:4} {r.rules_evaluated:6} {r.rules_transition_skipped:8} "
            f"{j.builtin:9} {r.computed_fields + r.rules_computed_skipped:9}"
        )
    with capsys.disabled():
        print(
            "\nschema and CEL check (rules: evaluated; oldSelf: transition rules, create skips them; computed: "
            "fields and rules skipped as unknown offline)\n" + "\n".join(lines)
        )
    assert len(judged) == len(STACKS) >= 13
    assert all(j.custom > 0 and j.builtin > 0 for j in judged.values())
    assert sum(j.report.rules_evaluated for j in judged.values()) > 0


# --- the index pins the same versions the plan does ---------------------------------------------------------------
CHARTS = yaml.safe_load((ROOT / "components" / "kubernetes" / "charts.yaml").read_text())


@pytest.mark.parametrize("api_version", sorted(ks.crd_index()))
def test_the_kept_crd_is_the_one_the_plan_pins(api_version):
    entry = ks.crd_index()[api_version]
    folder = ks.CRDS / entry["folder"]
    assert (folder / "SOURCE.md").exists() and any(folder.glob("*.json"))
    if "chart" in entry:
        assert CHARTS[entry["chart"]]["version"] == entry["version"], "bump tests/data/crds with the chart"
    else:
        crd = yaml.safe_load((ROOT / entry["crd"]).read_text())
        [served] = [v for v in crd["spec"]["versions"] if v["name"] == api_version.split("/")[1]]
        kept = json.loads((folder / f"{crd['spec']['names']['kind']}.json").read_text())
        assert served["schema"]["openAPIV3Schema"] == kept


# --- the validator catches what it names, on real pinned CRDs ---------------------------------------------------
def _schema(api_version: str, kind: str) -> dict[str, Any]:
    schema = ks.crd_schema(api_version, kind)
    assert schema is not None
    return schema


POOL = {
    "apiVersion": "inference.networking.k8s.io/v1",
    "kind": "InferencePool",
    "metadata": {"name": "m", "namespace": "serving"},
    "spec": {
        "endpointPickerRef": {"name": "m-epp", "port": {"number": 9002}, "failureMode": "FailClose"},
        "selector": {"matchLabels": {"app": "m"}},
        "targetPorts": [{"number": 8000}],
    },
}
QUEUE = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ClusterQueue",
    "metadata": {"name": "team-a"},
    "spec": {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [{"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]}],
            }
        ],
    },
}


def _pool(**spec) -> dict[str, Any]:
    pool = copy.deepcopy(POOL)
    pool["spec"].update(spec)
    return pool


def _check(obj: dict[str, Any]) -> ks.Report:
    return ks.validate_custom(obj, _schema(obj["apiVersion"], obj["kind"]), "1.35")


def test_a_valid_object_passes_and_its_rules_run():
    report = _check(POOL)
    assert report.failures == [] and report.rules_evaluated == 1


def test_a_schema_violation_is_caught():
    [failure] = _check(_pool(targetPorts=[{"number": "8000"}])).schema_failures
    assert failure.startswith("spec.targetPorts.0.number:") and "integer" in failure
    [failure] = _check(_pool(targetPorts=[{"number": 70000}])).schema_failures
    assert "maximum" in failure or "greater than" in failure


def test_an_unknown_field_is_reported_where_the_api_server_would_drop_it():
    """Kueue's schemas set no additionalProperties: a plain JSON-Schema validator passes this; the API server
    prunes the field and Kueue never sees it."""
    queue = copy.deepcopy(QUEUE)
    queue["spec"]["cohort"] = "gpu"  # v1beta1's spelling; v1beta2 reads cohortName
    [failure] = _check(queue).schema_failures
    assert failure.startswith("spec:") and "'cohort' was unexpected" in failure
    pool = _pool()
    pool["metadata"]["labelz"] = {"a": "b"}  # metadata is ObjectMeta, strictly
    [failure] = _check(pool).schema_failures
    assert failure.startswith("metadata:") and "'labelz'" in failure


def test_a_cel_rule_violation_is_caught_after_defaults_are_applied():
    """InferencePool: `self.kind != 'Service' || has(self.port)`; kind is unset in our object and defaults to
    Service, so the rule holds only because of the default."""
    pick = {"name": "m-epp", "failureMode": "FailClose"}
    report = _check(_pool(endpointPickerRef=pick))
    assert report.schema_failures == []
    [failure] = report.cel_failures
    assert failure.startswith("spec.endpointPickerRef:") and "port is required" in failure
    assert _check(_pool(endpointPickerRef={**pick, "kind": "Other", "group": "x.io"})).cel_failures == []


def test_kueue_cel_rules_on_list_items_and_nested_objects():
    queue = copy.deepcopy(QUEUE)
    queue["spec"]["resourceGroups"][0]["coveredResources"].append("cpu")  # flavors cover 1 resource, not 2
    queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = 8  # no cohortName
    failures = _check(queue).cel_failures
    assert any(f.startswith("spec.resourceGroups[0]:") and "same number of resources" in f for f in failures)
    assert any(f.startswith("spec:") and "borrowingLimit must be nil" in f for f in failures)


def test_gateway_api_rules_deep_in_list_items():
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "r"},
        "spec": {"rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/a//b"}}]}]},
    }
    failures = _check(route).cel_failures
    assert any(f.startswith("spec.rules[0].matches[0].path:") and "'//'" in f for f in failures)
    route["spec"]["rules"][0]["matches"][0]["path"]["value"] = "/a/b"
    assert _check(route).failures == []


def test_the_kubernetes_string_functions_cel_python_lacks():
    """upperAscii() and split() (cel-go ext strings) in the pinned rules that use them."""
    assert ks.compile_rule("self.upperAscii() == 'POST'").program.evaluate({"self": ks.to_cel("post", {})})
    gateway = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "g"},
        "spec": {"gatewayClassName": "c", "listeners": [{"name": "h", "port": 80, "protocol": "HTTP"}]},
    }
    gateway["spec"]["infrastructure"] = {"labels": {"a" * 253 + "/x": "y"}}
    assert any("prefix must be a DNS subdomain" in f for f in _check(gateway).cel_failures)
    gateway["spec"]["infrastructure"] = {"labels": {"example.com/x": "y"}}
    report = _check(gateway)
    assert report.failures == [] and report.rules_evaluated > 0
    proxy = _schema("gateway.envoyproxy.io/v1alpha1", "EnvoyProxy")
    http = {"path": "/healthz", "method": "post", "requestBody": {"type": "Text", "text": "x"}}  # upperAscii: POST
    check = {"active": {"type": "HTTP", "http": http}}
    sink = {
        "type": "OpenTelemetry",
        "openTelemetry": {"host": "otel", "port": 4317, "backendSettings": {"healthCheck": check}},
    }
    obj = {
        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
        "kind": "EnvoyProxy",
        "metadata": {"name": "p"},
        "spec": {"telemetry": {"metrics": {"sinks": [sink]}}},
    }
    assert ks.validate_custom(obj, proxy).failures == []
    http["method"] = "GET"
    [failure] = ks.validate_custom(obj, proxy).cel_failures
    assert "requestBody field can only be set when method is POST or PUT" in failure


def test_a_rule_that_cannot_compile_or_has_no_implementation_fails_loudly():
    with pytest.raises(ks.RuleError, match="does not compile"):
        ks.compile_rule("self.a ==")
    with pytest.raises(ks.RuleError, match="isURL"):
        ks.compile_rule("isURL(self.url)")
    schema = copy.deepcopy(_schema(POOL["apiVersion"], "InferencePool"))
    schema["properties"]["spec"]["x-kubernetes-validations"] = [{"rule": "self.selector.quantity() > 0"}]
    with pytest.raises(ks.RuleError, match="quantity"):
        ks.validate_custom(POOL, schema)


def test_transition_rules_are_skipped_on_create_and_counted():
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}, "spec": {}}
    report = _check(flavor)
    assert report.failures == [] and report.rules_transition_skipped > 0


def test_a_value_unknown_offline_skips_only_its_field_and_is_counted():
    report = _check(_pool(targetPorts=[{"number": ks.COMPUTED}]))
    assert report.failures == [] and report.computed_fields == 1 and report.rules_evaluated == 1
    pick = {"name": ks.COMPUTED, "failureMode": "FailClose", "port": {"number": 9002}}
    report = _check(_pool(endpointPickerRef=pick))
    assert report.failures == [] and report.rules_computed_skipped == 1 and report.rules_evaluated == 0
    assert _check(_pool(targetPorts=[{"number": ks.COMPUTED}, {"number": "x"}])).schema_failures != []


def test_duplicate_keys_of_a_map_list_are_caught():
    """Gateway listeners: x-kubernetes-list-type map keyed by name (and a CEL rule saying the same)."""
    listener = {"name": "h", "port": 80, "protocol": "HTTP"}
    gateway = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "g"},
        "spec": {"gatewayClassName": "c", "listeners": [listener, {**listener, "port": 81}]},
    }
    report = _check(gateway)
    [failure] = report.schema_failures
    assert failure.startswith("spec.listeners:") and "duplicate map entry ('h',)" in failure
    assert any("Listener name must be unique" in f for f in report.cel_failures)


def test_a_custom_resource_without_a_kept_crd_fails(monkeypatch):
    plan = shipped_plan("startup-t4")
    queue = next(r for r in plan.registrations if r.type == "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue")
    index = {k: v for k, v in ks.crd_index().items() if not k.startswith("kueue")}
    monkeypatch.setattr(ks, "crd_index", lambda: index)
    judged = judge(dataclasses.replace(plan, registrations=(queue,)))
    assert judged.no_crd and "kueue.x-k8s.io/v1beta2 LocalQueue" in judged.no_crd[0]


def test_a_built_in_object_is_validated_strictly_at_the_clusters_minor():
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "a"}}
    assert ks.validate_builtin(account, "1.35").failures == []
    [failure] = ks.validate_builtin({**account, "automountToken": False}, "1.35").failures
    assert "'automountToken' was unexpected" in failure
    [failure] = ks.validate_builtin({**account, "automountServiceAccountToken": "no"}, "1.35").failures
    assert "boolean" in failure
    container = {"name": "c", "image": "i", "resources": {"limits": {"memory": "8Gi"}}, "memoryLimit": "8Gi"}
    template = {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [container]}}
    spec = {"selector": {"matchLabels": {"a": "b"}}, "template": template}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}
    [failure] = ks.validate_builtin(deployment, "1.35").failures
    assert failure.startswith("spec.template.spec.containers.0:") and "'memoryLimit' was unexpected" in failure
    assert not is_builtin({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue"}, "1.35")
    assert not is_builtin({"apiVersion": "batch/v1beta1", "kind": "CronJob"}, "1.35")  # removed in 1.25


def test_a_field_named_like_a_cel_keyword_is_read_by_its_escaped_name():
    """HTTPRoute parentRefs rules read `p.__namespace__` (apiserver pkg/cel/escaping.go): two refs to same-named
    Gateways in different namespaces are different parents, so no sectionName is needed."""
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "r"},
        "spec": {"parentRefs": [{"name": "g", "namespace": "a"}, {"name": "g", "namespace": "b"}]},
    }
    assert _check(route).failures == []
    route["spec"]["parentRefs"][1]["namespace"] = "a"
    [failure] = _check(route).cel_failures
    assert failure.startswith("spec.parentRefs:") and "sectionName must be unique" in failure
    assert (ks.cel_escape("namespace"), ks.cel_unescape("__namespace__")) == ("__namespace__", "namespace")
    assert ks.cel_escape("a-b.c/d__e") == "a__dash__b__dot__c__slash__d__underscores__e"


def test_kubernetes_validate_has_a_strict_schema_for_every_minor_a_stack_may_pin():
    import kubernetes_validate.utils as kv

    from blueprints.spec import ClusterSpec

    minors = typing.get_args(ClusterSpec.model_fields["kubernetes_version"].annotation)
    assert minors and set(minors) <= {kv.major_minor(v) for v in kv.all_versions()}


def _tiny(spec_schema: dict[str, Any], spec: Any) -> ks.Report:
    schema = {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}}
    schema["properties"]["spec"] = spec_schema
    return ks.validate_custom({"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "x"}, "spec": spec}, schema)


@pytest.mark.parametrize(
    "schema, good, bad",
    [
        ({"x-kubernetes-int-or-string": True}, [8080, "http", None], [1.5, True, {}]),  # null: pruned
        ({"type": "string", "nullable": True}, ["a", None], [1]),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, [2], [1, 0]),
        ({"type": "string", "pattern": "^(?i)ab+$"}, ["ABB", "ab"], ["a", "abc"]),  # RE2, as Go reads it
        ({"type": "string", "format": "byte"}, ["aGk="], ["not base64!"]),
        ({"type": "string", "format": "ipv4"}, ["10.0.0.1"], ["10.0.0.256"]),
        ({"type": "string", "format": "date-time"}, ["2026-11-24T10:00:00Z"], ["yesterday"]),
        ({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}, [["a", "b"]], [["a", "a"]]),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-preserve-unknown-fields": True},
            [{"a": "x", "anything": {"b": 1}}],
            [{"a": 1}],
        ),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, [{"a": "x"}], [{"b": "x"}]),
        ({"type": "object"}, [{}], [{"pruned": 1}]),  # an object without properties keeps nothing
        ({"type": "object", "additionalProperties": {"type": "integer"}}, [{"k": 1}], [{"k": "1"}]),
        (
            {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"spec": {"type": "object"}}},
            [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {}}],
            [{"apiVersion": "v1", "kind": "Pod", "metadata": {"nam": "p"}}],
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
            },
            [{"a": "x"}, {"b": "y"}],
            [{"a": "x", "b": "y"}, {}],
        ),
    ],
)
def test_openapi_to_json_schema_keeps_the_api_servers_meaning(schema, good, bad):
    for value in good:
        assert _tiny(schema, value).failures == [], value
    for value in bad:
        assert _tiny(schema, value).schema_failures != [], value


def test_defaults_fill_missing_fields_before_validation_and_rules():
    schema = {
        "type": "object",
        "properties": {"mode": {"type": "string", "default": "A"}, "n": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.mode == 'A' ? has(self.n) : true", "message": "n with mode A"}],
    }
    [failure] = _tiny(schema, {}).cel_failures
    assert "n with mode A" in failure
    assert _tiny(schema, {"mode": "B"}).failures == []
    assert _tiny(schema, {"n": 1}).failures == []


def test_cel_types_follow_the_schema_formats():
    """date-time reads as a timestamp, duration as a duration, byte as bytes (SchemaDeclType)."""
    schema = {
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "every": {"type": "string", "format": "duration"},
            "ca": {"type": "string", "format": "byte"},
        },
        "x-kubernetes-validations": [
            {"rule": "self.at > timestamp('2026-01-01T00:00:00Z')", "message": "after 2026"},
            {"rule": "self.every < duration('1h')", "message": "under an hour"},
            {"rule": "size(self.ca) == 2", "message": "two bytes"},
        ],
    }
    good = {"at": "2026-11-24T10:00:00Z", "every": "30m", "ca": base64.b64encode(b"hi").decode()}
    report = _tiny(schema, good)
    assert report.failures == [] and report.rules_evaluated == 3
    bad = {"at": "2025-11-24T10:00:00Z", "every": "2h", "ca": base64.b64encode(b"hey").decode()}
    assert len(_tiny(schema, bad).cel_failures) == 3
