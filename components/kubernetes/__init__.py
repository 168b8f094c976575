"""The Kubernetes layer that makes GPUs and RDMA devices schedulable (pulumi-kubernetes)."""
