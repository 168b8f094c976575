"""What the user asks `size` about, validated with pydantic: a model, how it is trained or served, where.

Why its own module: the CLI, the tests and `--write-stack` all start from the same validated workload, and
every bad field becomes one line naming the field and what is allowed (BlueprintError, exit 2).
"""

from __future__ import annotations

import math
import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import BlueprintError

# Decimal multipliers as model cards write them: 110M, 7B, 175B, 1T (tokens), 300B.
UNITS = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
ALLOWED_UNITS = "K, M, B (or G), T, e.g. 110M, 7B, 1.5T"
MAX_COUNT = 1e18  # a quintillion tokens or parameters: far past any model or corpus, and finite
_COUNT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")

MAX_BATCH = 4096  # most sequences a served replica decodes together (vLLM --max-num-seqs; the spec's maxBatch)
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
PRECISIONS: tuple[str, ...] = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
INFERENCE_ONLY = ("int8", "int4")
SERVED_PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4")  # what the model server runs (the serving spec's)
Sharding = Literal["dp", "zero1", "zero2", "zero3", "fsdp"]
Optimizer = Literal["adam", "adamw", "sgd"]
Recompute = Literal["none", "selective", "full"]


def parse_count(value: object, field: str) -> float:
    """'7B' -> 7e9. Units are decimal (a model card's 7B is 7 x 10^9 parameters); anything else is refused."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        match = _COUNT.match(str(value))
        if not match:
            raise BlueprintError(field, f"{value!r} is not a count; write a number with a unit: {ALLOWED_UNITS}")
        digits, unit = match.groups()
        if unit.upper() not in UNITS or (unit and unit != unit.upper() and unit.lower() != "k"):
            raise BlueprintError(field, f"unknown unit {unit!r} in {value!r}; allowed units: {ALLOWED_UNITS}")
        number = float(digits) * UNITS[unit.upper()]
    if not number > 0:
        raise BlueprintError(field, f"must be greater than 0 (got {value!r})")
    if not math.isfinite(number):
        raise BlueprintError(field, f"{value!r} is not a finite number; {ALLOWED_UNITS}")
    if not number <= MAX_COUNT:  # nothing we size is beyond a quintillion
        raise BlueprintError(field, f"must be at most {MAX_COUNT:.0e} (got {value!r})")
    return number


class Workload(BaseModel):
    """One training run or one inference service. Counts are plain numbers here (parse_count reads units)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)  # --mfu inf, --target-days nan

    # Bounds far past anything published (the largest dense models ~2T parameters, Llama 3's 15.6T tokens): a value
    # beyond them is a typo, answered in one line instead of a time in 10^21 hours.
    params: float = Field(gt=0, le=1e14, description="Model parameters, e.g. 7e9 (at most 100T).")
    mode: Literal["training", "inference"] = "training"
    precision: Precision = "bf16"
    optimizer: Optimizer = "adamw"
    sharding: Sharding = "zero3"
    tokens: Optional[float] = Field(
        None, gt=0, le=1e16, description="Tokens to train on (or to serve, for inference); at most 1e16."
    )
    steps: Optional[int] = Field(None, gt=0, description="Optimizer steps; tokens = steps x global batch x seq len.")
    seq_len: int = Field(4096, gt=0, le=1_048_576)
    micro_batch: int = Field(1, gt=0, le=4096, description="Sequences per GPU per forward pass.")
    global_batch: Optional[int] = Field(None, gt=0, description="Sequences per optimizer step (for --steps).")
    recompute: Recompute = "selective"
    hidden_size: Optional[int] = Field(None, gt=0)
    layers: Optional[int] = Field(None, gt=0)
    heads: Optional[int] = Field(None, gt=0)
    kv_heads: Optional[int] = Field(None, gt=0, description="Key/value heads (grouped-query attention).")
    active_params: Optional[float] = Field(None, gt=0, description="Mixture-of-experts: parameters used per token.")
    model: Optional[str] = Field(None, description="A published architecture from model_shapes.yaml.")
    # Vision and other non-transformer work: FLOPs per sample x samples x epochs (flops.py).
    flops_per_sample: Optional[float] = Field(None, gt=0, le=1e18, description="Forward-pass FLOPs per sample.")
    samples: Optional[float] = Field(None, gt=0, le=1e15, description="Samples per epoch.")
    epochs: Optional[float] = Field(None, gt=0, le=1e6)
    workload: Optional[str] = Field(None, description="A named workload from model_shapes.yaml (resnet50).")
    # Serving (mode inference with a request rate or concurrent users): see blueprints/sizing/serving.py.
    request_rate: Optional[float] = Field(None, gt=0, le=1e7, description="Requests per second to serve.")
    concurrency: Optional[int] = Field(None, gt=0, le=10_000_000, description="Users generating at once.")
    input_tokens: int = Field(512, gt=0, le=1_048_576, description="Prompt tokens per request.")
    output_tokens: int = Field(256, gt=0, le=1_048_576, description="Generated tokens per request.")
    ttft_ms: Optional[float] = Field(None, gt=0, description="Time-to-first-token target, milliseconds.")
    tpot_ms: Optional[float] = Field(None, gt=0, description="Time-per-output-token target, milliseconds.")
    max_context: Optional[int] = Field(
        None,
        ge=128,
        le=1_048_576,
        description="Tokens a served sequence may hold (vLLM --max-model-len, the serving spec's maxContext); "
        "default: prompt + output tokens.",
    )
    max_batch: Optional[int] = Field(
        None,
        ge=1,
        le=MAX_BATCH,
        description="Sequences decoded together at most (vLLM --max-num-seqs, the serving spec's maxBatch); "
        "default: as many as fit at the context.",
    )
    spare_replicas: int = Field(0, ge=0, le=1000, description="Replicas that may be lost while still serving.")
    mbu: float = Field(0.6, gt=0, le=1, description="Memory-bandwidth utilization of a decode step.")
    mfu: float = Field(0.40, gt=0, le=1)
    target_hours: Optional[float] = Field(None, gt=0, description="Finish within this many hours.")
    # A fleet you have (issue #37): time and cost of the run, or the rate a service sustains, on exactly it.
    fleet_gpus: Optional[int] = Field(
        None, gt=0, le=1_000_000, description="GPUs you have: shapes that make exactly this many, whole nodes."
    )
    fleet_nodes: Optional[int] = Field(None, gt=0, le=1000, description="Nodes you have of --shape.")
    fleet_shape: Optional[str] = Field(None, min_length=1, max_length=64, description="The instance type you have.")
    clouds: tuple[Literal["aws", "alicloud"], ...] = ("aws", "alicloud")
    regions: tuple[str, ...] = ()
    spot_overhead: float = Field(0.10, ge=0, le=5, description="Extra run time spot interruptions cost (0.10 = 10%).")
    dataset_tb: float = Field(0.0, ge=0)
    checkpoints_kept: int = Field(3, ge=0, le=1000)

    @model_validator(mode="after")
    def _consistent(self) -> "Workload":
        if self.mode == "training" and self.precision in INFERENCE_ONLY:
            raise ValueError(f"precision {self.precision} is for inference only; training allows fp32, bf16, fp16, fp8")
        if self.fleet_gpus is not None and (self.fleet_nodes is not None or self.fleet_shape is not None):
            raise ValueError("give --gpus N, or --nodes N with --shape S, not both")
        if (self.fleet_nodes is None) != (self.fleet_shape is None):
            raise ValueError("--nodes and --shape go together: N nodes of the instance type S")
        serving = self.request_rate is not None or self.concurrency is not None
        if serving and self.mode != "inference":
            raise ValueError("request rate and concurrent users are for --mode inference")
        if serving and self.request_rate is not None and self.concurrency is not None:
            raise ValueError("give a request rate or concurrent users, not both")
        if self.max_context is not None and self.max_context < self.input_tokens + self.output_tokens:
            raise ValueError(
                f"max context {self.max_context} is shorter than a request ({self.input_tokens} prompt + "
                f"{self.output_tokens} output tokens); allowed: at least {self.input_tokens + self.output_tokens}"
            )
        per_sample = self.flops_per_sample is not None
        if per_sample and (self.samples is None or self.epochs is None):
            raise ValueError("flops per sample needs --samples and --epochs")
        if self.tokens is None and self.steps is None and not self.serving and not per_sample:
            raise ValueError("give tokens (e.g. --tokens 1T) or steps with --global-batch")
        if self.heads and self.kv_heads and (self.kv_heads > self.heads or self.heads % self.kv_heads):
            raise ValueError(f"kv_heads {self.kv_heads} must divide heads {self.heads}")
        if self.active_params is not None and self.active_params > self.params:
            raise ValueError("active parameters cannot exceed total parameters")
        if self.steps is not None and self.tokens is None and self.global_batch is None:
            raise ValueError("steps need --global-batch (sequences per step) to count tokens")
        return self

    @property
    def fleet(self) -> bool:
        """A fleet was given (--gpus, or --nodes with --shape): answer for it instead of sizing one."""
        return self.fleet_gpus is not None or self.fleet_nodes is not None

    @property
    def serving(self) -> bool:
        """A service: a rate or users to serve, or an inference fleet whose sustained rate is asked."""
        return (
            self.request_rate is not None or self.concurrency is not None or (self.mode == "inference" and self.fleet)
        )

    @property
    def context(self) -> int:
        """Tokens a served sequence holds: --max-context, else one request's prompt + output."""
        return self.max_context or self.input_tokens + self.output_tokens

    @property
    def compute_params(self) -> float:
        """Parameters each token passes through: the active ones of a mixture of experts, else all."""
        return self.active_params or self.params

    @property
    def total_tokens(self) -> float:
        if self.tokens is not None:
            return self.tokens
        return float(self.steps) * float(self.global_batch) * self.seq_len  # type: ignore[arg-type]


# Workload fields whose command-line flag is spelled differently.
FLAGS = {
    "clouds": "--cloud",
    "regions": "--region",
    "target_hours": "--target-days",
    "request_rate": "--rps",
    "checkpoints_kept": "--checkpoints",
    "fleet_gpus": "--gpus",
    "fleet_nodes": "--nodes",
    "fleet_shape": "--shape",
}


def with_model(fields: dict[str, object]) -> dict[str, object]:
    """Fill params and shape from model_shapes.yaml when ``model`` is named (explicit shape flags still win)."""
    name = fields.get("model")
    if name is None:
        return fields
    from catalog.model_shapes import model_shapes

    known = model_shapes()[1]
    if name not in known:
        raise BlueprintError(
            "--model",
            f"unknown model {name!r}; allowed: {', '.join(known)} "
            "(or --params with --layers/--hidden-size/--heads/--kv-heads)",
        )
    if fields.get("params") is not None:
        raise BlueprintError("--params", f"give --model or --params, not both (--model {name} sets the parameters)")
    shape = known[name]
    out = dict(fields)
    for key in ("params", "active_params", "layers", "hidden_size", "heads", "kv_heads"):
        if out.get(key) is None:
            out[key] = getattr(shape, key)
    if out.get("seq_len") is None:
        out["seq_len"] = min(shape.context, 4096 if fields.get("mode", "training") == "training" else shape.context)
    return out


def with_named_workload(fields: dict[str, object]) -> dict[str, object]:
    """Fill FLOPs per sample, samples, epochs, params and MFU from a named workload (explicit flags still win)."""
    name = fields.get("workload")
    if name is None:
        return fields
    from catalog.model_shapes import named_workloads

    known = named_workloads()[1]
    if name not in known:
        raise BlueprintError(
            "--workload",
            f"unknown workload {name!r}; allowed: {', '.join(known)} "
            "(or --flops-per-sample with --samples and --epochs)",
        )
    facts, out = known[name], dict(fields)
    for key, value in (
        ("flops_per_sample", facts.forward_flops),
        ("params", facts.params),
        ("samples", facts.samples),
        ("epochs", facts.epochs),
        ("mfu", facts.mfu),
    ):
        if out.get(key) is None:
            out[key] = value
    return out


def build_workload(**fields: object) -> Workload:
    """A Workload from CLI values, or BlueprintError naming the first bad field in one line."""
    fields = with_named_workload(with_model(fields))
    try:
        return Workload(**{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        where = FLAGS.get(field, "--" + field.replace("_", "-")) if field else "workload"
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "literal_error":
            message = f"got {error.get('input')!r}; {message.lower()}"
        raise BlueprintError(where, message) from None
