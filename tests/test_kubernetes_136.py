"""Kubernetes 1.36 on EKS and ACK (issue 29 item 4): offered with each provider's calendar dates, and on EKS with its
own add-on versions."""

import datetime as dt

import pytest

from blueprints.cli import main
from blueprints.errors import BlueprintError
from blueprints.resolver import resolve
from blueprints.stackconfig import parse_cluster
from catalog.addons import addon_versions
from catalog.kubernetes_versions import support
from conftest import fails_besides_cpfs, resources, shipped_cluster, with_system_price, write_stack


def test_eks_136_has_awss_calendar_dates():
    state = support("aws", "1.36", dt.date(2026, 11, 24))
    assert state.support == "standard" and state.ends == dt.date(2027, 8, 2)
    assert support("aws", "1.36", dt.date(2027, 8, 3)).ends == dt.date(2028, 8, 2)


def test_136_addons_are_the_136_defaults_not_the_135_ones():
    versions = addon_versions("aws", "1.36")
    assert versions.managed["kube-proxy"] == "v1.36.0-eksbuild.25"
    assert versions.managed["coredns"] == "v1.14.3-eksbuild.23"
    assert versions.autoscaler_image_tag == "v1.36.1"  # the autoscaler's minor matches the cluster's


def test_kubernetes_136_plans_on_aws(plan_variant):
    plan = plan_variant("research-a100", lambda c: c.__setitem__("kubernetesVersion", "1.36"))
    [cluster] = resources(plan, "aws:eks/cluster:Cluster")
    assert cluster["version"] == "1.36"
    addons = {a["addonName"]: a.get("addonVersion") for a in resources(plan, "aws:eks/addon:Addon")}
    assert addons["kube-proxy"] == "v1.36.0-eksbuild.25"


def test_kubernetes_136_plan_exits_zero(capsys, tmp_path):
    cluster = shipped_cluster("research-a100")
    cluster["kubernetesVersion"] = "1.36"
    write_stack(tmp_path, "k136", cluster)
    assert main(["plan", "--stack", "k136", "--stacks-dir", str(tmp_path)]) == 0
    capsys.readouterr()


def test_ack_136_has_acks_calendar_date():
    state = support("alicloud", "1.36", dt.date(2026, 11, 24))
    assert state.support == "standard" and state.ends == dt.date(2027, 5, 30)
    assert support("alicloud", "1.36", dt.date(2027, 5, 31)).support == "ended"  # ACK has no extended support


def test_kubernetes_136_plans_on_ack_at_the_newest_136_patch(plan_variant):
    plan = plan_variant(
        "enterprise-aliyun", lambda c: (c.__setitem__("kubernetesVersion", "1.36"), with_system_price(c))
    )
    [cluster] = resources(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert cluster["version"] == "1.36.1-aliyun.1"
    assert not fails_besides_cpfs(plan)


def test_ack_does_not_offer_132():
    cluster = shipped_cluster("enterprise-aliyun")
    cluster["kubernetesVersion"] = "1.32"  # EKS does; ACK's calendar ended it
    with pytest.raises(BlueprintError, match="ACK does not offer Kubernetes 1.32"):
        resolve(parse_cluster(cluster, "test"), today=dt.date(2026, 11, 24))
