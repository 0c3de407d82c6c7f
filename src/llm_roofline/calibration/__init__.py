"""The calibrated engine: the ideal terms under fitted constants, and their fit."""
