"""Issue #42 item 2: a registration's inputs are decoded once and shared; readiness looks registrations up by type and
name through one index instead of scanning the plan for each model (figures: docs/benchmarks.md)."""

from __future__ import annotations

from google.protobuf import json_format

from blueprints.offline.engine import plain
from blueprints.offline.index import RegistrationIndex, index
from conftest import SHIPPED, shipped_plan


def test_inputs_are_decoded_once_and_as_the_sdks_json_decoding_gives_them():
    for stack in SHIPPED:
        for r in shipped_plan(stack).registrations:
            assert r.inputs is r.inputs  # one decoding, shared by every reader
            # the same values, types (whole numbers as int) and key order as json_format's decoding
            assert repr(r.inputs) == repr(plain(json_format.MessageToDict(r.properties))), r.urn


def test_the_index_finds_what_a_scan_finds_in_plan_order():
    regs = shipped_plan("startup-serving").registrations
    found = RegistrationIndex(regs)
    assert index(found) is found and list(found) == list(regs)
    monitors = ("kubernetes:monitoring.coreos.com/v1:PodMonitor", "kubernetes:monitoring.coreos.com/v1:ServiceMonitor")
    for types in [(t,) for t in {r.type for r in regs}] + [monitors]:
        assert list(found.of_type(*types)) == [r for r in regs if r.type in types]
    kubernetes = [r for r in regs if r.type.startswith("kubernetes:")]
    assert kubernetes
    for r in kubernetes:
        meta = r.inputs.get("metadata") or {}
        expected = [
            o
            for o in kubernetes
            if o.type == r.type
            and (o.inputs.get("metadata") or {}).get("namespace") == meta.get("namespace")
            and (o.inputs.get("metadata") or {}).get("name") == meta.get("name")
        ]
        assert list(found.named(r.type, meta.get("namespace"), meta.get("name"))) == expected
    assert found.release_names() == {r.inputs["name"] for r in regs if r.type == "kubernetes:helm.sh/v3:Release"}
    assert found.named("kubernetes:core/v1:Service", "no-such-namespace", "x") == ()
