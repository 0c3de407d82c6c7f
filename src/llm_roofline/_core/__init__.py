"""Units, typed errors, data types, arrays and the backend: nothing of the project below."""
