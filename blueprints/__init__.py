"""GPU cluster blueprints: stack spec -> resolved plan -> Pulumi components."""
