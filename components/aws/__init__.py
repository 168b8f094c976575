"""AWS components of a GPU cluster, one concern a module (type tokens gpu-blueprints:aws:<Name>)."""
