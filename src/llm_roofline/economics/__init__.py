"""Token economics: prices read backwards, cost floors, cache tiers."""
