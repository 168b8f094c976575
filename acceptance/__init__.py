"""GPU node acceptance check: measure a node against its catalog spec before training runs on it."""
