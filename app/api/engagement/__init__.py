"""GraphQL engagement events, performance metric ingest and rollups (seed 000, section 6)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.EngagementQueries",)
MUTATIONS = ("mutations.EngagementMutations",)
