"""GraphQL engagement events, performance metric ingest and rollups (seed 000, section 6)."""
