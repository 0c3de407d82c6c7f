"""Accelerators: Chip and System, and the shipped hardware catalog."""
