"""Agents and their episodes (seed 000, 7): mutations, tree and replay queries."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.EpisodeQueries",)
MUTATIONS = ("mutations.EpisodeMutations",)
