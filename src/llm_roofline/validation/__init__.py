"""Predicted against measured: validation rows, cross-validation, a real PyTorch decode."""
