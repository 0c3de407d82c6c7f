"""The serving simulator: workload, step-time predictor, requests, policies, router, event loop."""
