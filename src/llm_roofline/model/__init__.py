"""The model of a transformer: ModelSpec, weights read, KV, attention FLOPs, the model catalog."""
