"""Rewrite the Alibaba rows of catalog/shapes.yaml and prices.yaml from vms-catalog-shapes.csv.

Run from the repository root: python tests/data/alicloud/derive.py. It is how the catalog rows were made (so a
reviewer can re-run it against a newer extract); tests/test_alicloud_prices.py checks the result independently.
"""
import csv
import re
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
SHAPES = ROOT / "catalog/shapes.yaml"
PRICES = ROOT / "catalog/prices.yaml"
AS_OF = "2026-11-24"  # the extract is undated: the date is when it was read (see SOURCE.md)
# Prefer the regions our stacks use for the shape's headline price, then any region the data has.
HEADLINE = ("cn-hangzhou", "cn-wulanchabu", "cn-shanghai", "cn-beijing", "cn-shenzhen")


def load():
    data = defaultdict(dict)
    for row in csv.DictReader(open(HERE / "vms-catalog-shapes.csv")):
        spots = [float(s) for s in row["SpotPrices"].split()]
        data[row["InstanceType"]][row["Region"]] = (float(row["Price"]), sum(spots) / len(spots))
    return data


def flow(items, indent=6, width=112):
    """A YAML flow list wrapped to the repository's line length."""
    lines, cur = [], "["
    for i, it in enumerate(items):
        piece = it + ("," if i < len(items) - 1 else "")
        if len(cur) + len(piece) + indent > width:
            lines.append(cur.rstrip())
            cur = " " * indent
        cur += piece + " "
    return "\n".join(lines + [cur.rstrip() + "]"])


def rewrite_shapes(data):
    lines = SHAPES.read_text().splitlines()
    out, block = [], []

    def flush():
        if not block:
            return
        text = "\n".join(block)
        m = re.search(r"instance_type: (ecs\.\S+)", text)
        if m:
            it = m.group(1)
            regions = data.get(it, {})
            old = [r for r in re.split(r"[,\s]+", re.search(r"\n    regions: \[([^\]]*)\]", text).group(1)) if r]
            req = re.search(r"\n    on_request_regions: \[([^\]]*)\]", text)
            old += [r for r in re.split(r"[,\s]+", req.group(1)) if r] if req else []
            kept = [r for r in dict.fromkeys(old) if r not in regions]
            new = sorted(regions)
            if regions:
                head = next((r for r in HEADLINE if r in regions), new[0])
                payg = regions[head][0]
                text = re.sub(r"\n    price: \{[^\n]*\}", f'\n    price: {{usd_per_hour: {payg:.4f}, region: {head}, '
                              f'as_of: "{AS_OF}"}}', text)
            if it.startswith("ecs.gn8is"):  # the API data sells it pay-as-you-go in the regions listed
                text = re.sub(r"\n    sales_note: [^\n]*", "", text)
            text = re.sub(r"\n    regions: \[[^\]]*\]", "\n    regions: " + flow(new), text)
            text = re.sub(r"\n    on_request_regions: \[[^\]]*\]", "", text)
            if kept:
                text += "\n    on_request_regions: " + flow(kept)
            text = re.sub(r"\n    sources: \{[^\n]*\}", "", text)
            rdma = "ali-ack-erdma" if "ebmgn7ex" in it else "ali-erdma"
            specs = "ali-ebm-families" if it.startswith("ecs.ebm") else "ali-gpu-families"
            text = text.replace("  - <<: *ali\n", f"  - <<: *ali\n    sources: {{specs: {specs}, rdma: {rdma}, "
                                f"regions: ali-api-vms, price: {'ali-api-vms' if regions else 'ali-pricing'}}}\n", 1)
        out.extend(text.split("\n"))
        block.clear()

    for line in lines:
        if line.startswith("  - <<:") or line.startswith("  #") or not line.startswith("    "):
            flush()
            (block if line.startswith("  - <<: *ali") else out).append(line)
        elif block:
            block.append(line)
        else:
            out.append(line)
    flush()
    SHAPES.write_text("\n".join(out) + "\n")


def rewrite_prices(data):
    """Replace page rows the API data covers; keep (with a note) page rows for regions it has no offer in."""
    lines = PRICES.read_text().splitlines()
    out, inserted = [], False
    for ln in lines:
        m = re.search(r"instance_type: (ecs\.\S+), region: (\S+), option: on-demand, usd_per_hour: ([\d.]+), "
                      r"source: ali-pricing", ln)
        if "source: ali-api-vms" in ln:
            continue
        if m:
            it, region = m.group(1), m.group(2)
            if region in data.get(it, {}):
                continue  # the API row below wins
            if "note:" not in ln:
                near = ", ".join(f"{r} ${v[0]:.2f}" for r, v in sorted(data.get(it, {}).items())[:3]) or "none"
                ln = ln[:-1] + (f', note: "price page figure; the API data has no pay-as-you-go offer for this type '
                                f'here (on request or subscription only); API pay-as-you-go elsewhere: {near}"}}')
        out.append(ln)
        if m and not inserted:
            pass
    at = max(i for i, ln in enumerate(out) if "instance_type: ecs." in ln) + 1
    rows = ["  # Alibaba Cloud from the API data (ali-api-vms): pay-as-you-go and preemptible (SpotAsPriceGo, the mean"
            " of the", "  # region's zones), CNY x 0.138, 40 GB ESSD system disk included."]
    for it in sorted(data):
        for region in sorted(data[it]):
            payg, spot = data[it][region]
            rows.append(f"  - {{instance_type: {it}, region: {region}, option: on-demand, usd_per_hour: {payg:.4f}, "
                        f'source: ali-api-vms, as_of: "{AS_OF}"}}')
            rows.append(f"  - {{instance_type: {it}, region: {region}, option: spot, usd_per_hour: {spot:.4f}, "
                        f'source: ali-api-vms, as_of: "{AS_OF}"}}')
    out[at:at] = rows
    PRICES.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    d = load()
    rewrite_shapes(d)
    rewrite_prices(d)
