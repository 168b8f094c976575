"""Serving configurations that cannot work are refused at parse time (issue #35 item 10): the table of object names
the refusal of colliding models judges is checked against what plans register, and the refusal of allowed-source
networks admitting every address is checked over a wide input space (Hypothesis)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from blueprints.serving_spec import NAMESPACE_OBJECTS, ExposureSpec, model_objects
from conftest import shipped_plan


@pytest.mark.parametrize("stack", ["startup-serving", "startup-serving-aliyun"])
def test_every_object_a_model_declares_is_in_the_table_the_refusal_judges(stack):
    """Every Kubernetes object in the serving namespace, and every cluster-scoped one named after the model, is one
    the spec knows a model (or the namespace) declares: a new object with a new name fails here until it is listed."""
    declared = model_objects("mistral-7b", "serving") | set(NAMESPACE_OBJECTS)
    seen = set()
    for r in shipped_plan(stack).registrations:
        if not r.type.startswith("kubernetes:") or r.type.startswith("kubernetes:helm.sh"):
            continue
        meta = r.inputs.get("metadata") or {}
        name, namespace = meta.get("name"), meta.get("namespace")
        kind = r.type.rpartition(":")[2]
        if namespace == "serving" or (namespace is None and kind != "Namespace" and "mistral-7b" in str(name)):
            seen.add((kind, name))
    assert seen and seen <= declared, sorted(seen - declared)


def test_names_that_collide_are_found_whatever_the_suffix():
    """x and x-epp collide (x's picker is x-epp); x and x-callers do not (x-callers' NetworkPolicy is
    x-callers-callers, and x's Deployment x differs from x-callers')."""
    assert model_objects("x", "serving") & model_objects("x-epp", "serving")
    assert model_objects("x", "serving") & model_objects("x-epp-metrics-reader", "serving")
    assert not model_objects("x", "serving") & model_objects("x-callers", "serving")


def _exposure(cidrs):
    return ExposureSpec(mode="internal", allowed_cidrs=cidrs, tls={"secret_name": "t"})


def _covers(nets, version):
    """Independent oracle: with prefixes of at most 6 bits, the union covers everything exactly when each of the 64
    blocks of 6 bits (/6, or ::/6) lies in one of the networks."""
    bits = 32 if version == 4 else 128
    blocks = [
        ipaddress.ip_network((i << (bits - 6), 6)) if version == 4 else ipaddress.IPv6Network((i << (bits - 6), 6))
        for i in range(64)
    ]
    mine = [n for n in nets if n.version == version]
    return all(any(b.subnet_of(n) for n in mine) for b in blocks)


@st.composite
def _cidr_sets(draw):
    nets = []
    for version in draw(st.sets(st.sampled_from([4, 6]), min_size=1)):
        bits = 32 if version == 4 else 128
        net = ipaddress.IPv4Network if version == 4 else ipaddress.IPv6Network
        for _ in range(draw(st.integers(1, 12))):
            prefix = draw(st.integers(1, 6))
            index = draw(st.integers(0, 2**prefix - 1))
            nets.append(net((index << (bits - prefix), prefix)))
        # a host network or a longer prefix sometimes, which never completes the union alone
        if draw(st.booleans()):
            nets.append(net((draw(st.integers(0, 2**bits - 1)) >> 8 << 8, bits - 8)))
    return nets


@settings(max_examples=300, deadline=None)
@given(_cidr_sets())
def test_allowed_cidrs_are_refused_exactly_when_their_union_admits_every_address(nets):
    covered = _covers(nets, 4) or _covers(nets, 6)
    try:
        _exposure([str(n) for n in nets])
    except ValidationError as error:
        assert covered and "together admit every address" in str(error), str(error)
    else:
        assert not covered


def test_the_halves_of_the_address_space_are_refused_like_all_of_it():
    with pytest.raises(ValidationError, match=r"together admit every address \(0.0.0.0/0\)"):
        _exposure(["0.0.0.0/1", "128.0.0.0/1"])
    with pytest.raises(ValidationError, match=r"together admit every address \(::/0\)"):
        _exposure(["::/1", "8000::/1", "10.0.0.0/8"])
    _exposure(["0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3"])  # 224.0.0.0/3 is left out
