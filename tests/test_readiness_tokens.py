"""The plan's token-Secret check (blueprints/offline/readiness_tokens.py): a ServiceAccount token Secret whose account
the plan does not declare, or which may be created before it, is deleted by Kubernetes' token controller; each is a
blocking finding. Run over the shipped serving plan (its endpoint picker's metrics reader) and variants of it."""

from __future__ import annotations

import copy
import dataclasses

from google.protobuf import struct_pb2

from blueprints.offline import readiness_tokens
from conftest import shipped_plan

STACK = "startup-serving"


def token_and_account(regs):
    [token] = [
        r for r in regs if r.type == readiness_tokens.SECRET and r.inputs.get("type") == readiness_tokens.TOKEN_TYPE
    ]
    owner = token.inputs["metadata"]["annotations"][readiness_tokens.OWNER]
    [account] = [
        r for r in regs if r.type == readiness_tokens.SERVICE_ACCOUNT and r.inputs["metadata"]["name"] == owner
    ]
    return token, account


def with_inputs(reg, inputs):
    properties = struct_pb2.Struct()
    properties.update(inputs)
    return dataclasses.replace(reg, properties=properties)


def replaced(regs, old, new):
    return [new if r is old else r for r in regs]


def test_the_shipped_serving_plan_declares_a_token_secret_after_its_account():
    regs = list(shipped_plan(STACK).registrations)
    token, account = token_and_account(regs)  # the check has something to judge
    assert account.urn in token.dependencies
    assert readiness_tokens.check(regs) == []
    assert not [f for f in shipped_plan(STACK).readiness if f.check.startswith("token-secret")]


def test_a_token_secret_created_beside_its_account_is_blocking():
    regs = list(shipped_plan(STACK).registrations)
    token, account = token_and_account(regs)
    unordered = dataclasses.replace(token, dependencies=[d for d in token.dependencies if d != account.urn])
    [finding] = readiness_tokens.check(replaced(regs, token, unordered))
    assert (finding.check, finding.level, finding.resource) == ("token-secret-order", "blocking", token.name)
    assert "depends_on" in finding.fix


def test_a_token_secret_naming_an_undeclared_account_is_blocking():
    regs = list(shipped_plan(STACK).registrations)
    token, _ = token_and_account(regs)
    inputs = copy.deepcopy(token.inputs)
    inputs["metadata"]["annotations"][readiness_tokens.OWNER] = "nobody"
    [finding] = readiness_tokens.check(replaced(regs, token, with_inputs(token, inputs)))
    assert (finding.check, finding.level) == ("token-secret-owner", "blocking")
    assert "'nobody'" in finding.message


def test_an_account_of_the_same_name_in_another_namespace_does_not_count():
    regs = list(shipped_plan(STACK).registrations)
    token, _ = token_and_account(regs)
    inputs = copy.deepcopy(token.inputs)
    inputs["metadata"]["namespace"] = "elsewhere"
    [finding] = readiness_tokens.check(replaced(regs, token, with_inputs(token, inputs)))
    assert finding.check == "token-secret-owner" and "namespace elsewhere" in finding.fix
