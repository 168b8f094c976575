"""Every Alibaba Cloud rule implements an MLPS 2.0 level 3 control: it sits in the mlps pack and cites its
GB/T 22239-2019 clause 8 requirement; one that names an Alibaba Cloud Config managed rule links a page of it."""

import re

from policies.library.packs import PACKS
from policies.library.registry import all_rules

ALICLOUD = [r for r in all_rules() if r.name.startswith("alicloud-")]
NOT_MLPS = {  # rule -> why it cites no level 3 clause
    "alicloud-cs-node-pool-auto-repair": "baseline hygiene (the mlps pack holds it through the baseline)",
    "alicloud-oss-bucket-lifecycle": "GDPR storage limitation (Art. 5(1)(e)); MLPS asks for no expiry",
}


def test_every_alibaba_rule_cites_its_mlps_level_3_clause():
    mlps = {r.name for r in PACKS["mlps"].rules()}
    for rule in ALICLOUD:
        if rule.name in NOT_MLPS:
            continue
        assert rule.name in mlps, rule.name
        assert re.match(r"GB/T 22239-2019 8\.1\.\d\.\d+ ", rule.references.get("mlps", "")), rule.name


def test_a_cited_config_rule_is_named_as_alibaba_cloud_names_it():
    """`Alibaba Cloud Config <rule-id>`: a lower-case, dashed identifier, as Config's rule pages spell it."""
    for rule in ALICLOUD:
        for cited in re.findall(r"Alibaba Cloud Config (\S+)", rule.references.get("baseline", "")):
            assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", cited.rstrip(";")), (rule.name, cited)


def test_the_mlps_pack_flags_each_alibaba_rules_first_mutation():
    """Judged as an MLPS stack is judged (the mlps pack with its initial config): the first violating fixture of
    every Alibaba rule that cites a level 3 clause is reported, at the rule's level."""
    from blueprints.offline.policy import PackSession
    from policies.library.registry import rule_modules
    from policy_rules.harness import STACK, case_file, load_case, registrations

    session = PackSession("mlps", in_process=True)
    for module, rule in zip(rule_modules(), all_rules()):
        if not rule.name.startswith("alicloud-") or rule.name in NOT_MLPS or not case_file(module).is_file():
            continue
        variant = next(v for v in load_case(module)["violating"] if "config" not in v)
        findings = [
            f for f in session.judge(STACK, registrations(variant["resources"]), {}) if f["policy"] == rule.name
        ]
        assert findings and all(f["enforcementLevel"] == rule.level for f in findings), rule.name
        assert all(f["framework"]["reference"] == rule.references["mlps"] for f in findings), rule.name
