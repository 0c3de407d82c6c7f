"""The serving simulator: workload, step-time predictor, scheduler, event loop and metrics."""
