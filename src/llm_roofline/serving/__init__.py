"""Serving modes (decode, static, continuous) from the engine's passes; speculative decoding."""
