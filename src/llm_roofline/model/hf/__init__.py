"""config.json readers: a Hugging Face checkpoint's config into a ModelSpec."""
