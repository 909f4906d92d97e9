"""GraphQL mutations of the asset graph and publishing (seed 000, section 4)."""
