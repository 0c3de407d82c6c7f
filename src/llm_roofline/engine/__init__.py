"""The roofline engine: a pass timed on the busiest chip, memory, balance and cost."""
