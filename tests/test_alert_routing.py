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
def test_with_a_relay_the_default_e_mails_the_budget_contacts():
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


# --------------------------------------------------------------------------- a default that delivers
def test_aws_default_reaches_the_budget_contacts_through_the_sns_topic_and_says_they_must_confirm():
    """Issue #35 item 2: with no receivers, an AWS stack's alerts reach budget.contacts through its SNS topic (no
    SMTP relay to guess); the plan says each address receives nothing until it confirms."""
    plan = shipped_plan("startup-t4")
    config = helm(plan, CHART)["values"]["alertmanager"]["config"]
    [receiver] = [r for r in config["receivers"] if r["name"] != "null"]
    assert receiver["name"] == "budget-contacts" and "email_configs" not in receiver
    assert receiver["sns_configs"][0]["topic_arn"] == plan.outputs["alert_topic_arn"]
    subscriptions = [r.inputs for r in plan.registrations if r.type == "aws:sns/topicSubscription:TopicSubscription"]
    assert [(s["protocol"], s["endpoint"]) for s in subscriptions] == [("email", "platform-team@example.com")]
    [finding] = [f for f in plan.readiness if f.check == "alert-subscriptions"]
    assert finding.level == "warning" and "confirms" in finding.message
    assert "platform-team@example.com" in finding.resource


def test_alibaba_stacks_mail_the_contacts_through_directmail_with_the_password_in_a_mounted_secret():
    """Alibaba Cloud: nothing Alertmanager can notify works without a credential the plan cannot hold, so the shipped
    stacks name DirectMail's SMTP relay with the password in a Kubernetes Secret Alertmanager mounts (read when it
    sends), and the nodes may reach the relay's port (an enterprise group drops any other egress)."""
    plan = shipped_plan("startup-t4-aliyun")
    values = helm(plan, CHART)["values"]["alertmanager"]
    glob = values["config"]["global"]
    assert glob["smtp_smarthost"] == "smtpdm.aliyun.com:465"
    assert glob["smtp_auth_password_file"] == "/etc/alertmanager/secrets/alertmanager-smtp/password"
    assert "smtp_auth_password" not in glob
    assert values["alertmanagerSpec"]["secrets"] == ["alertmanager-smtp"]
    [secret_warning] = [f for f in plan.readiness if f.check == "alert-secret"]
    assert "kubectl -n monitoring create secret generic alertmanager-smtp" in secret_warning.fix
    [rule] = [
        r.inputs
        for r in plan.registrations
        if r.type == "alicloud:ecs/securityGroupRule:SecurityGroupRule" and r.inputs["portRange"] == "465/465"
    ]
    assert rule["type"] == "egress" and rule["cidrIp"] == "0.0.0.0/0" and rule["ipProtocol"] == "tcp"


def test_no_smtp_port_is_opened_without_a_relay(tmp_path):
    plan = plan_with(tmp_path, "startup-t4-aliyun", alerts_spec(receivers={"mail": {"email": ["a@example.com"]}}))
    ports = [
        r.inputs["portRange"]
        for r in plan.registrations
        if r.type == "alicloud:ecs/securityGroupRule:SecurityGroupRule" and r.inputs["type"] == "egress"
    ]
    assert "465/465" not in ports


# --------------------------------------------------------------------------- readiness: non-functional is blocking
def test_alibaba_without_a_relay_has_no_receiver_and_blocks(tmp_path):
    """No SMTP relay on Alibaba Cloud: nothing can deliver, so no receiver is rendered and the plan blocks."""

    def change(cluster):
        del cluster["kubernetes"]["monitoring"]

    plan = plan_with(tmp_path, "startup-t4-aliyun", change)
    assert {(f.check, f.level) for f in plan.readiness if f.check.startswith("alert-")} == {
        ("alert-receivers", "blocking")
    }
    assert "config" not in helm(plan, CHART)["values"]["alertmanager"]


def test_no_receiver_blocks(tmp_path):
    def change(cluster):
        cluster["budget"]["contacts"] = []

    plan = plan_with(tmp_path, "startup-t4", change)
    assert {(f.check, f.level) for f in plan.readiness if f.check.startswith("alert-")} == {
        ("alert-receivers", "blocking")
    }
    assert "config" not in helm(plan, CHART)["values"]["alertmanager"]


def test_e_mail_without_smtp_blocks_and_with_smtp_does_not(tmp_path):
    """Alertmanager refuses the whole file ("no global SMTP smarthost set"): no receiver works, so it blocks."""
    mail = {"mail": {"email": ["oncall@example.com"]}}
    plan = plan_with(tmp_path, "startup-t4", alerts_spec(receivers=mail))
    findings = [f for f in plan.readiness if f.check.startswith("alert-")]
    assert {(f.check, f.level) for f in findings} == {("alert-smtp", "blocking")}
    assert "no global SMTP smarthost set" in findings[0].message and "no global SMTP from set" in findings[1].message
    fixed = plan_with(
        tmp_path,
        "startup-t4",
        alerts_spec(receivers=mail, smtp={"smarthost": "smtp.example.com:25", "sender": "alerts@example.com"}),
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


# --------------------------------------------------------------------------- bad input: one line, exit 2
@pytest.mark.parametrize(
    "name, says",
    [
        (None, "None is not a name: quote it"),  # `null:` and `~:` are YAML's null
        (1, "1 is not a name: quote it"),
        ("", "Alertmanager refuses an empty one"),
        ("  ", "is blank"),
        ("null", "the receiver the stack routes the Watchdog alert to"),
    ],
)
def test_receiver_names_alertmanager_refuses_or_that_collide_with_ours_are_one_line(capsys, tmp_path, name, says):
    """Issue #36: receivers named null or "" were accepted, and amtool refused the file (config.go: "missing name in
    receiver"; "notification config name "null" is not unique" beside the route's own "null")."""
    from test_bad_input import assert_one_line, run_cli, variant

    argv = variant(tmp_path, alerts_spec(receivers={name: {"sns": True}}), base="startup-t4")
    code, _, err = run_cli(capsys, *argv)
    assert_one_line(code, err, "cluster.kubernetes.monitoring.alerts.receivers:", says)


def test_a_receiver_with_no_destination_is_one_line(capsys, tmp_path):
    """Accepted by Alertmanager, it drops every alert routed to it: refused where the user writes it."""
    from test_bad_input import assert_one_line, run_cli, variant

    code, _, err = run_cli(capsys, *variant(tmp_path, alerts_spec(receivers={"oncall": {}}), base="startup-t4"))
    assert_one_line(code, err, "receivers.oncall", "a receiver with no destination drops every alert")


def test_both_smtp_passwords_is_one_line(capsys, tmp_path):
    from test_bad_input import assert_one_line, run_cli, variant

    smtp = {
        "smarthost": "smtp.example.com:587",
        "sender": "a@example.com",
        "passwordConfig": "pw",
        "passwordSecret": "smtp",
    }
    code, _, err = run_cli(capsys, *variant(tmp_path, alerts_spec(smtp=smtp), base="startup-t4"))
    assert_one_line(code, err, "kubernetes.monitoring.alerts.smtp", "set passwordConfig or passwordSecret, not both")


# --------------------------------------------------------------------------- the plan's check judges as amtool does
BASE_CONFIG = {
    "global": {"smtp_smarthost": "smtp.example.com:25", "smtp_from": "a@example.com"},
    "route": {"receiver": "null", "routes": [{"receiver": "mail", "continue": True}]},
    "receivers": [{"name": "null"}, {"name": "mail", "email_configs": [{"to": "b@example.com"}]}],
}


def _broken(change):
    import copy

    config = copy.deepcopy(BASE_CONFIG)
    change(config)
    return config


BROKEN = {
    "no smarthost": lambda c: c["global"].pop("smtp_smarthost"),
    "no from": lambda c: c["global"].pop("smtp_from"),
    "undefined receiver": lambda c: c["route"]["routes"].append({"receiver": "nobody"}),
    "duplicate name": lambda c: c["receivers"].append({"name": "mail", "webhook_configs": [{"url": "http://x/"}]}),
    "a second null": lambda c: c["receivers"].append({"name": "null"}),
    "empty name": lambda c: c["receivers"].append({"name": "", "webhook_configs": [{"url": "http://x/"}]}),
    "no root receiver": lambda c: c["route"].pop("receiver"),
    "two passwords": lambda c: c["global"].update(smtp_auth_password="a", smtp_auth_password_file="/f"),
}


@pytest.mark.parametrize("case", ["valid", *BROKEN])
def test_the_readiness_check_refuses_exactly_what_amtool_refuses(amtool, tmp_path, case):
    """alertmanager_config.problems, which the plan runs, against amtool 0.25.0 on the same file."""
    from blueprints.offline.alertmanager_config import problems

    config = BASE_CONFIG if case == "valid" else _broken(BROKEN[case])
    path = tmp_path / "alertmanager.yaml"
    path.write_text(yaml.safe_dump(config))
    run = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True)
    assert (run.returncode == 0) == (problems(config) == []), (case, run.stdout, problems(config))
    if problems(config):
        assert problems(config)[0].message.split(": ")[-1].replace("'", '"') in run.stdout.replace("'", '"')


def test_a_receiver_without_a_destination_routed_everything_blocks():
    """What amtool accepts but cannot deliver: a receiver with no notifier on a route without matchers."""
    from blueprints.offline.alertmanager_config import deliveries

    silent = _broken(lambda c: c["receivers"][1].pop("email_configs"))
    assert deliveries(silent) == ([], ["mail"])
    assert deliveries(BASE_CONFIG) == (["mail"], [])  # the Watchdog's "null" is a drop by matcher, not silence
