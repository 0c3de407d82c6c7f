"""The serving simulator: workload, step-time predictor, entities, scheduling policies and
routers (classes by name), the event loop, metrics."""
