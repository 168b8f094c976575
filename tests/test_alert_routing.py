"""Alerts reach someone: receivers from the spec (or the budget contacts) rendered into kube-prometheus-stack's
Alertmanager configuration, secrets kept as Pulumi secrets, checked by amtool (taken from Debian's
prometheus-alertmanager package the way the Makefile takes promtool), and the readiness warnings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from blueprints.errors import BlueprintError
from blueprints.offline.plan import make_plan
from blueprints.stackconfig import FULL_CONFIG_KEY, PROJECT
from components.kubernetes.monitoring import AlertReceiver, SmtpSettings, alertmanager_config
from tests.conftest import helm, shipped_cluster, shipped_plan

ROOT = Path(__file__).resolve().parents[1]
AMTOOL = ROOT / "tools" / "bin" / "amtool"
CHART = "kube-prometheus-stack"


def plan_with(tmp_path: Path, base: str, change, secrets: dict[str, str] | None = None):
    """Plan a copy of a shipped stack with the cluster changed and extra (secret) config values."""
    cluster = shipped_cluster(base)
    change(cluster)
    config = {FULL_CONFIG_KEY: cluster, **{f"{PROJECT}:{k}": v for k, v in (secrets or {}).items()}}
    (tmp_path / f"Pulumi.{base}-alerts.yaml").write_text(yaml.safe_dump({"config": config}))
    return make_plan(f"{base}-alerts", tmp_path)


def alert_findings(plan) -> set[str]:
    return {f.check for f in plan.readiness if f.check.startswith("alert-")}


def alerts_spec(**alerts):
    def change(cluster):
        cluster.setdefault("kubernetes", {}).setdefault("monitoring", {})["alerts"] = alerts

    return change


# --------------------------------------------------------------------------- rendered into the chart's values
def test_default_e_mails_the_budget_contacts():
    values = helm(shipped_plan("enterprise-aliyun"), CHART)["values"]
    config = values["alertmanager"]["config"]
    [receiver] = [r for r in config["receivers"] if r["name"] != "null"]
    assert receiver["email_configs"][0]["to"] == "finops@example.com"
    assert {"receiver": receiver["name"], "continue": True} in config["route"]["routes"]


def test_receivers_from_the_spec_keep_urls_and_password_secret(tmp_path):
    plan = plan_with(
        tmp_path,
        "research-a100",
        alerts_spec(
            receivers={
                "oncall": {"slackUrlConfig": "alerts-slack-url", "slackChannel": "#gpu"},
                "dingtalk": {"webhookUrlConfig": "alerts-dingtalk-url"},
                "mail": {"email": ["oncall@example.com"]},
            },
            smtp={
                "smarthost": "smtp.example.com:587",
                "sender": "alerts@example.com",
                "username": "alerts",
                "passwordConfig": "alerts-smtp-password",
            },
        ),
        secrets={
            "alerts-slack-url": "https://hooks.slack.com/services/T0/B0/XXXX",
            "alerts-dingtalk-url": "http://dingtalk-webhook:8060/dingtalk/ops/send",
            "alerts-smtp-password": "pw",
        },
    )
    config = helm(plan, CHART)["values"]["alertmanager"]["config"]
    by_name = {r["name"]: r for r in config["receivers"]}
    assert by_name["oncall"]["slack_configs"][0]["api_url"] == {"secret": True}
    assert by_name["oncall"]["slack_configs"][0]["channel"] == "#gpu"
    assert by_name["dingtalk"]["webhook_configs"][0]["url"] == {"secret": True}
    assert config["global"]["smtp_auth_password"] == {"secret": True}
    assert config["global"]["smtp_smarthost"] == "smtp.example.com:587"
    assert "budget-contacts" not in by_name  # the spec's receivers replace the default
    assert alert_findings(plan) == set()


def test_a_missing_secret_config_value_stops_the_program(tmp_path):
    with pytest.raises(BlueprintError, match="slackUrlConfig names the config value .alerts-slack-url."):
        plan_with(tmp_path, "research-a100", alerts_spec(receivers={"oncall": {"slackUrlConfig": "alerts-slack-url"}}))


# --------------------------------------------------------------------------- readiness
def test_no_receiver_warns(tmp_path):
    def change(cluster):
        cluster["budget"]["contacts"] = []

    plan = plan_with(tmp_path, "startup-t4", change)
    assert alert_findings(plan) == {"alert-receivers"}
    assert (
        "alertmanager" not in helm(plan, CHART)["values"] or "config" not in helm(plan, CHART)["values"]["alertmanager"]
    )


def test_e_mail_without_smtp_warns_and_with_smtp_does_not(tmp_path):
    assert alert_findings(shipped_plan("startup-t4")) == {"alert-smtp"}
    fixed = plan_with(
        tmp_path, "startup-t4", alerts_spec(smtp={"smarthost": "smtp.example.com:25", "sender": "alerts@example.com"})
    )
    assert alert_findings(fixed) == set()


# --------------------------------------------------------------------------- amtool
@pytest.fixture(scope="module")
def amtool():
    if not AMTOOL.exists():
        pytest.fail(f"{AMTOOL} is missing: `make install` fetches it")
    return str(AMTOOL)


def rendered(tmp_path: Path) -> Path:
    receivers = [
        AlertReceiver("budget-contacts", emails=("finops@example.com",)),
        AlertReceiver("oncall", slack_url="https://hooks.slack.com/services/T0/B0/XXXX", slack_channel="#gpu"),
    ]
    smtp = SmtpSettings("smtp.example.com:587", "alerts@example.com", "alerts", "pw")
    path = tmp_path / "alertmanager.yaml"
    path.write_text(yaml.safe_dump(alertmanager_config(receivers, smtp)))
    return path


def test_amtool_accepts_the_rendered_config_and_rejects_a_broken_one(amtool, tmp_path):
    path = rendered(tmp_path)
    ok = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = yaml.safe_load(path.read_text())
    broken["route"]["routes"].append({"receiver": "nobody"})
    path.write_text(yaml.safe_dump(broken))
    assert subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True).returncode != 0


def xid_labels() -> list[str]:
    """The labels of the XID alert promtool's test expects (tests/data/promtool), as amtool takes them."""
    cases = yaml.safe_load((ROOT / "tests/data/promtool/gpu_alerts_test.yaml").read_text())["tests"]
    [labels] = [
        {"alertname": "GpuXidFatal", **alert["exp_labels"]}
        for case in cases
        for test in case["alert_rule_test"]
        if test["alertname"] == "GpuXidFatal"
        for alert in test["exp_alerts"]
    ]
    return [f"{k}={v}" for k, v in labels.items()]


def test_xid_alert_is_routed_to_the_configured_receivers(amtool, tmp_path):
    """The labels of the XID alert promtool's test expects (tests/data/promtool) go to every receiver."""
    args = xid_labels()
    path = rendered(tmp_path)
    run = subprocess.run(
        [
            amtool,
            "config",
            "routes",
            "test",
            f"--config.file={path}",
            "--verify.receivers=budget-contacts,oncall",
            *args,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "budget-contacts,oncall"
    watchdog = subprocess.run(
        [amtool, "config", "routes", "test", f"--config.file={path}", "alertname=Watchdog"],
        capture_output=True,
        text=True,
    )
    assert watchdog.stdout.strip() == "null"  # the chart's always-firing heartbeat is not mailed


# --------------------------------------------------------------------------- access: Grafana's admin credential
@pytest.mark.parametrize("stack", ["research-a100", "enterprise-aliyun"])
def test_grafana_admin_password_is_generated_and_a_secret_output(stack):
    plan = shipped_plan(stack)
    [password] = [r for r in plan.registrations if r.type == "random:index/randomPassword:RandomPassword"]
    assert password.inputs["length"] >= 20
    # The chart's default is the public "prom-operator"; ours is the generated one, kept secret end to end.
    assert helm(plan, CHART)["values"]["grafana"]["adminPassword"] == {"secret": True}
    assert plan.outputs["grafana_admin_password"] == {"secret": True}


def test_plan_lists_the_credential_outputs():
    from blueprints.offline.render import render_text

    text = render_text(shipped_plan("startup-t4"))
    section = text.split("Credentials (secret stack outputs")[1].split("\n\n")[0]
    assert "grafana_admin_password" in section and "kubeconfig" in section
