"""What every shipped stack asks of NAS CreateFileSystem is what the provider and the NAS API accept (#35 item 7).

EncryptType 1 or 2 and KmsKeyId are accepted only for the file system types the pinned provider's documentation and
the NAS API model name (tests/data/alicloud/nas-encryption.yaml, verbatim with their commits); CPFS takes neither, so
the CPFS stacks sent `encryptType: 2` to an API that does not take it there. The plan must then say that CPFS data
at rest is not under the stack's key, and the packs must not call it encrypted."""

from __future__ import annotations

import re
from pathlib import Path

import pulumi_alicloud
import pytest
import yaml

from catalog.file_systems import customer_key_types
from conftest import SHIPPED, resources, shipped_plan

FACTS = yaml.safe_load((Path(__file__).parent / "data" / "alicloud" / "nas-encryption.yaml").read_text())
FILE_SYSTEM = "alicloud:nas/fileSystem:FileSystem"
RULE = "alicloud-nas-file-system-encrypted-with-cmk"


def _types_for(excerpt: str, value: int) -> set[str]:
    """The file system types one source accepts EncryptType ``value`` for (its line `value: ... standard or x.`)."""
    [line] = [line for line in excerpt.splitlines() if re.match(rf"^[#*\s-]*{value}: ", line)]
    [types] = re.findall(r"(?:FileSystemType = |is set to )(.+)\.$", line)
    return set(types.split(" or "))


def accepted(value: int) -> set[str]:
    """Types both the provider and the API model accept EncryptType ``value`` for."""
    return _types_for(FACTS["provider"]["encrypt_type"], value) & _types_for(FACTS["api_model"]["encrypt_type"], value)


def test_the_kept_provider_text_is_the_installed_sdks() -> None:
    """pulumi_alicloud 4.0.0's docstring carries the provider documentation kept as test data, line for line."""
    sdk = Path(pulumi_alicloud.__file__).parent / "nas" / "file_system.py"
    lines = {line.strip() for line in sdk.read_text().splitlines()}
    for key in ("encrypt_type", "kms_key_id"):
        assert all(line.strip() in lines for line in FACTS["provider"][key].splitlines()), key


def test_the_sources_give_no_encryption_for_cpfs_and_the_catalog_agrees() -> None:
    assert accepted(1) == {"standard", "extreme"} and accepted(2) == {"extreme"}
    assert set(customer_key_types()) == accepted(2)
    assert "EncryptType = 2" in FACTS["provider"]["kms_key_id"] and "EncryptType" in FACTS["api_model"]["kms_key_id"]


@pytest.mark.parametrize("stack", SHIPPED)
def test_each_file_system_asks_only_what_create_file_system_accepts(stack: str) -> None:
    for fs in resources(shipped_plan(stack), FILE_SYSTEM):
        kind, encrypt = fs.get("fileSystemType", "standard"), int(fs.get("encryptType") or 0)
        if encrypt:
            assert kind in accepted(encrypt), f"{stack}: encryptType {encrypt} is not accepted for {kind}"
        if "kmsKeyId" in fs:
            assert encrypt == 2, f"{stack}: kmsKeyId is taken only with encryptType 2"
        if kind in accepted(2):
            assert encrypt == 2 and fs["kmsKeyId"], f"{stack}: {kind} can and must use the stack key"


def test_shipped_stacks_cover_cpfs() -> None:
    kinds = {fs.get("fileSystemType") for s in SHIPPED for fs in resources(shipped_plan(s), FILE_SYSTEM)}
    assert "cpfs" in kinds


@pytest.mark.parametrize("stack", ["enterprise-aliyun", "research-a100-aliyun"])
def test_the_plan_says_cpfs_is_not_under_the_stack_key_and_the_packs_report_it(stack: str) -> None:
    plan = shipped_plan(stack)
    assert any("CPFS is not encrypted with the stack's KMS key" in note for note in plan.resolved.notes)
    found = [f for f in plan.findings if f["policy"] == RULE]
    assert found and all("fileSystemType cpfs" in f["message"] for f in found)
    assert {f["enforcementLevel"] for f in found} == {"mandatory"}
