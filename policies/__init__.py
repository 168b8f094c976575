"""CrossGuard policy packs (one folder each) and the rule library they share."""
