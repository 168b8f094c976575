"""A first multi-node training job: PyTorch DDP that reads its data from the shared file system, writes a
checkpoint to the object-storage prefix every few steps, and resumes from the newest one after an interruption
(a spot reclaim, a preemption by Kueue, a failed node).

Run by torchrun in every pod (see jobset.yaml). Checkpoints go to CHECKPOINT_URI: s3://bucket/checkpoints/<run>/
(credentials from the `trainer` ServiceAccount's IRSA role), oss://... (RRSA role), or file:///path for a local run.
"""

from __future__ import annotations

import argparse
import io
import os
import re
from pathlib import Path
from urllib.parse import urlparse

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CHECKPOINT = re.compile(r"step-(\d{8})\.pt$")


class Store:
    """Checkpoints as objects under a prefix: list, read and write bytes."""

    def __init__(self, uri: str):
        self.uri = urlparse(uri)
        self.prefix = self.uri.path.lstrip("/")
        if self.uri.scheme == "s3":
            import boto3  # in the AWS Deep Learning Containers; the pod's IRSA role signs the calls

            self.s3 = boto3.client("s3")
        elif self.uri.scheme == "oss":
            import oss2  # Alibaba Cloud's SDK; RRSA credentials come from the injected environment
            from oss2.credentials import EnvironmentVariableCredentialsProvider

            self.oss = oss2.Bucket(
                oss2.ProviderAuth(EnvironmentVariableCredentialsProvider()), os.environ["OSS_ENDPOINT"], self.uri.netloc
            )
        elif self.uri.scheme != "file":
            raise ValueError(f"CHECKPOINT_URI must be s3://, oss:// or file:// (got {uri})")

    def names(self) -> list[str]:
        if self.uri.scheme == "s3":
            pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.uri.netloc, Prefix=self.prefix)
            return [o["Key"].rsplit("/", 1)[-1] for page in pages for o in page.get("Contents", [])]
        if self.uri.scheme == "oss":
            import oss2

            return [o.key.rsplit("/", 1)[-1] for o in oss2.ObjectIterator(self.oss, prefix=self.prefix)]
        folder = Path(self.uri.path)
        return [p.name for p in folder.iterdir()] if folder.exists() else []

    def read(self, name: str) -> bytes:
        key = f"{self.prefix.rstrip('/')}/{name}"
        if self.uri.scheme == "s3":
            return self.s3.get_object(Bucket=self.uri.netloc, Key=key)["Body"].read()
        if self.uri.scheme == "oss":
            return self.oss.get_object(key).read()
        return (Path(self.uri.path) / name).read_bytes()

    def write(self, name: str, data: bytes) -> None:
        key = f"{self.prefix.rstrip('/')}/{name}"
        if self.uri.scheme == "s3":
            self.s3.put_object(Bucket=self.uri.netloc, Key=key, Body=data)
        elif self.uri.scheme == "oss":
            self.oss.put_object(key, data)
        else:
            folder = Path(self.uri.path)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f".{name}.tmp").write_bytes(data)
            (folder / f".{name}.tmp").replace(folder / name)  # a half-written checkpoint is never the newest

    def latest(self) -> str | None:
        found = sorted(n for n in self.names() if CHECKPOINT.search(n))
        return found[-1] if found else None


def dataset(data_dir: Path, samples: int = 4096) -> TensorDataset:
    """The training data from the shared file system (data.pt), or a synthetic regression task if there is none."""
    path = data_dir / "data.pt"
    if path.exists():
        x, y = torch.load(path)
    else:
        generator = torch.Generator().manual_seed(0)
        x = torch.randn(samples, 32, generator=generator)
        y = x @ torch.linspace(-1, 1, 32).unsqueeze(1) + 0.1 * torch.randn(samples, 1, generator=generator)
    return TensorDataset(x, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="total optimizer steps of the run")
    parser.add_argument(
        "--stop-after", type=int, help="exit after this many steps of this attempt (simulates a reclaim)"
    )
    parser.add_argument("--checkpoint-every", type=int, default=20)
    parser.add_argument("--data-dir", default=os.environ.get("DATA_DIR", "/data"))
    parser.add_argument("--checkpoint-uri", default=os.environ.get("CHECKPOINT_URI", "file:///tmp/checkpoints"))
    args = parser.parse_args()

    backend = "nccl" if torch.cuda.is_available() else "gloo"
    dist.init_process_group(backend)
    rank = dist.get_rank()
    device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if backend == "nccl" else "cpu")
    if backend == "nccl":
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).to(device),
        device_ids=[device.index] if backend == "nccl" else None,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    store, step = Store(args.checkpoint_uri), 0
    newest = store.latest()
    if newest:  # every rank loads the same checkpoint, so replicas start equal
        state = torch.load(io.BytesIO(store.read(newest)), map_location=device)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
        if rank == 0:
            print(f"resumed from {newest} at step {step}", flush=True)
    data = dataset(Path(args.data_dir))
    sampler = DistributedSampler(data, seed=0)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    done_here, loss = 0, torch.tensor(0.0)
    while step < args.steps:
        sampler.set_epoch(step)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step, done_here = step + 1, done_here + 1
            if rank == 0 and (step % args.checkpoint_every == 0 or step == args.steps):
                buffer = io.BytesIO()
                torch.save(
                    {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, buffer
                )
                store.write(f"step-{step:08d}.pt", buffer.getvalue())
                print(f"step {step}: loss {loss.item():.4f}, checkpoint written", flush=True)
            if step >= args.steps or (args.stop_after and done_here >= args.stop_after):
                break
        if args.stop_after and done_here >= args.stop_after:
            break
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
