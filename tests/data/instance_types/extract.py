"""Re-create aws-gpu-instance-types.json from the upstream files named in SOURCE.md.

    python tests/data/instance_types/extract.py VANTAGE_JSON BANDWIDTH_GO VPCLIMITS_GO DESCRIBE_GO > out.json

Values are copied as published (vantage strings and numbers unchanged; Go literals parsed to ints).
Only the instance types in TYPES below (the catalog's AWS shapes) are kept.
"""

from __future__ import annotations

import json
import re
import sys

TYPES = sorted("""
g4dn.xlarge g4dn.2xlarge g4dn.4xlarge g4dn.8xlarge g4dn.12xlarge g4dn.16xlarge g4dn.metal
g5.xlarge g5.2xlarge g5.4xlarge g5.8xlarge g5.12xlarge g5.16xlarge g5.24xlarge g5.48xlarge
g6.xlarge g6.2xlarge g6.4xlarge g6.8xlarge g6.12xlarge g6.16xlarge g6.24xlarge g6.48xlarge
g6e.xlarge g6e.2xlarge g6e.4xlarge g6e.8xlarge g6e.12xlarge g6e.16xlarge g6e.24xlarge g6e.48xlarge
p4d.24xlarge p4de.24xlarge p5.4xlarge p5.48xlarge p5e.48xlarge p5en.48xlarge p6-b200.48xlarge p6-b300.48xlarge
""".split())

VANTAGE_KEYS = ("vCPU", "memory", "GPU", "GPU_model", "GPU_memory", "network_performance")


def vantage(path: str) -> dict:
    rows = {r["instance_type"]: r for r in json.load(open(path))}
    out = {}
    for t in TYPES:
        if t not in rows:
            continue
        r = rows[t]
        kept = {k: r[k] for k in VANTAGE_KEYS}
        st = r.get("storage") or None
        kept["storage"] = None if st is None else {k: st.get(k) for k in ("devices", "size", "size_unit", "nvme_ssd")}
        out[t] = kept
    return out


def bandwidth(path: str) -> dict:
    text = open(path).read()
    found = dict((m.group(1), int(m.group(2))) for m in re.finditer(r'"([a-z0-9.-]+)":\s+(\d+),', text))
    return {t: found[t] for t in TYPES if t in found}


def network_cards(path: str) -> dict:
    text = open(path).read()
    out = {}
    for t in TYPES:
        m = re.search(r'\n\t"' + re.escape(t) + r'": \{(.*?)\n\t\},', text, re.S)
        if m:
            out[t] = len(re.findall(r"\n\s+NetworkCardIndex:\s+\d+", m.group(1)))
    return out


def describe(path: str) -> dict:
    text = open(path).read()
    blocks = re.split(r"\n\t\t\{\n\t\t\tInstanceType:\s+", text)
    out = {}
    for b in blocks[1:]:
        t = b.split('"')[1]
        if t not in TYPES or "VCpuInfo" not in b.split("\n\t\t}")[0]:
            continue  # the file's offerings list names types again without their facts
        def num(pat: str, b: str = b) -> int | None:
            m = re.search(pat, b, re.S)
            return int(m.group(1)) if m else None

        out[t] = {
            "DefaultVCpus": num(r"DefaultVCpus:\s+aws.Int32\((\d+)\)"),
            "MemoryInfo.SizeInMiB": num(r"MemoryInfo: &ec2types.MemoryInfo\{\s+SizeInMiB:\s+aws.Int64\((\d+)\)"),
            "Gpus[0].Name": (re.search(r'Gpus: .*?Name:\s+aws.String\("([^"]+)"\)', b, re.S) or [None, None])[1],
            "Gpus[0].Count": num(r"Gpus: .*?Count:\s+aws.Int32\((\d+)\)"),
            "Gpus[0].MemoryInfo.SizeInMiB": num(r"GpuDeviceMemoryInfo\{\s+SizeInMiB:\s+aws.Int32\((\d+)\)"),
            "InstanceStorageInfo.TotalSizeInGB": num(r"TotalSizeInGB:\s+aws.Int64\((\d+)\)"),
            "EfaInfo.MaximumEfaInterfaces": num(r"MaximumEfaInterfaces:\s+aws.Int32\((\d+)\)"),
        }
    return out


if __name__ == "__main__":
    v, bw, vpc, desc = sys.argv[1:5]
    json.dump({"vantage": vantage(v), "karpenter_bandwidth_megabits": bandwidth(bw),
               "karpenter_network_cards": network_cards(vpc), "karpenter_describe_instance_types": describe(desc)},
              sys.stdout, indent=1, sort_keys=True)
    print()
