"""Alibaba Cloud components of a GPU cluster (type tokens gpu-blueprints:alicloud:<Name>)."""
