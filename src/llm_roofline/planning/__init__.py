"""Searches over deployments: optimize, the cheapest fleet (plan), the lecture's train."""
