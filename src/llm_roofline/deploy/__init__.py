"""A Deployment resolved once, and what it answers: fit advice, curves, report, scenarios."""
