"""The node contract: the labels, taints and resource names both clouds' clusters put on GPU nodes and the Kubernetes
layer and the offline plan select on, each defined once.

A cluster labels and taints its nodes with these names; the platform's charts, queues and checks select on the same
ones; the offline plan's readiness checks read them back. Change a name here and every side follows.
"""

# Extended resources a GPU node advertises: NVIDIA's device plugin; the AWS EFA and Alibaba Cloud eRDMA plugins.
GPU_RESOURCE = "nvidia.com/gpu"
# Under the GPU Operator's mixed MIG strategy each MIG instance is nvidia.com/mig-<profile> (k8s-device-plugin v0.20.0
# README, MIG_STRATEGY), e.g. nvidia.com/mig-1g.10gb.
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
ERDMA_RESOURCE = "aliyun/erdma"
RDMA_RESOURCES = {"efa": EFA_RESOURCE, "erdma": ERDMA_RESOURCE}
"""Fabric kind (as `GpuNodes.rdma` names it) -> the extended resource its device plugin advertises."""

# Labels the clusters set on every node of a group.
NODE_GROUP_LABEL = "gpu-blueprints/node-group"
# The GPU Operator's MIG manager applies the profile this label names.
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
# The device plugin's config-manager picks the entry of its ConfigMap this label names (k8s-device-plugin v0.20.0
# cmd/config-manager/main.go DefaultConfigLabel): a sharing group's own time-slicing or MPS configuration.
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
# A `devices: dra` group: its GPUs are claimed through Dynamic Resource Allocation, not counted by a device plugin.
# The GPU Operator labels a GPU node nvidia.com/gpu.deploy.device-plugin=true only where the label is absent or empty
# (NVIDIA/gpu-operator v26.7.0 controllers/state_manager.go addGPUStateLabels) and its device-plugin DaemonSet selects
# "true" (assets/state-device-plugin/0500_daemonset.yaml), so "false" set by the group keeps the plugin off its nodes;
# NVIDIA's DRA driver must not share a node with it (dra-driver-nvidia-gpu v0.4.1 templates/validation.yaml).
# GPU_DEVICES_LABEL=dra is what the DRA driver's kubelet plugin selects.
DEVICE_PLUGIN_DEPLOY_LABEL = "nvidia.com/gpu.deploy.device-plugin"
GPU_DEVICES_LABEL = "gpu-blueprints/gpu-devices"
DRA = "dra"
# The DeviceClass NVIDIA's DRA driver installs for whole GPUs (dra-driver-nvidia-gpu v0.4.1
# templates/deviceclass-gpu.yaml: driver gpu.nvidia.com, attribute type == 'gpu').
DRA_GPU_CLASS = "gpu.nvidia.com"
# The resource Kueue counts claimed GPUs as (its Configuration's resources.deviceClassMappings name, kubernetes-sigs/
# kueue v0.19.2 apis/config/v1beta2 DeviceClassMapping): its own name, so a DRA flavor's quota is never spent by an
# nvidia.com/gpu request, nor a device-plugin flavor's by a claim.
DRA_GPU_QUOTA = "gpu-blueprints/dra-gpu"


# A DRA group whose EFA devices are claimed through AWS's dranet (aws/eks-charts stable/aws-dranet 1.0.0): the
# DeviceClass its chart installs (templates/deviceclass.yaml), the label its DaemonSet selects here, and the resource
# Kueue counts them as. Such nodes carry no EFA_PRESENT_LABEL, so the EFA device plugin stays off them.
DRA_EFA_CLASS = "efa.networking.k8s.aws"
FABRIC_DEVICES_LABEL = "gpu-blueprints/fabric-devices"
DRA_EFA_QUOTA = "gpu-blueprints/dra-efa"


def claim_template_name(group: str) -> str:
    """The ResourceClaimTemplate in each team namespace that claims a whole node of a DRA group's GPUs."""
    return f"gpus-{group}"


def device_labels(devices: str, rdma_dra: bool = False) -> dict[str, str]:
    """The labels a group's nodes carry for how their GPUs (and fabric devices) are handed out: none for the device
    plugins."""
    gpus = {GPU_DEVICES_LABEL: DRA, DEVICE_PLUGIN_DEPLOY_LABEL: "false"} if devices == DRA else {}
    return {**gpus, **({FABRIC_DEVICES_LABEL: DRA} if rdma_dra else {})}


# What NVIDIA's device plugin and exporter charts require (node affinity) when NFD is not installed, and what the
# EFA device plugin chart selects on.
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
EFA_PRESENT_LABEL = "vpc.amazonaws.com/efa.present"
# ACK node pools with eRDMA carry it (the ack-erdma-controller's device plugin lands there).
ERDMA_PRESENT_LABEL = "alibabacloud.com/erdma"
# ACK runs its own NVIDIA device plugin (the ack-nvidia-device-plugin DaemonSet) on GPU nodes labelled
# ack.node.gpu.schedule=default, a label ACK adds; the value "disabled" keeps it off the node so another plugin owns
# nvidia.com/gpu (ACK "Schedule GPUs using DRA", https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/
# user-guide/scheduling-gpu-using-dra, as ACK's own AI conformance entry applies it: cncf/k8s-ai-conformance
# v1.35/ack secure_accelerator_access; HAMi's "Install HAMi on ACK", verified on v1.36.2-aliyun.1). Our GPU pools carry
# it so the GPU Operator's plugin, with its volume-mount device lists, is the only one.
ACK_GPU_SCHEDULE_LABEL = "ack.node.gpu.schedule"
ACK_DEVICE_PLUGIN_OFF = "disabled"
# The untainted on-demand CPU group for cluster services: its NODE_GROUP_LABEL value.
SYSTEM_GROUP = "system"

# New GPU nodes join behind this startup taint; acceptance/gpu_check.py lifts it when the node passes (the same
# key as its GATE_TAINT_KEY). The Cluster Autoscaler treats the prefix as a startup taint
# (cluster-autoscaler FAQ, "startup taints"), so a gated new node still counts as capacity on its way.
STARTUP_TAINT_PREFIX = "startup-taint.cluster-autoscaler.kubernetes.io/"
GATE_TAINT = {"key": STARTUP_TAINT_PREFIX + "gpu-acceptance", "value": "pending", "effect": "NoSchedule"}
# The GPU groups' taint key: by convention (and the spec's default taint) the GPU resource's own name.
GPU_TAINT_KEY = GPU_RESOURCE
