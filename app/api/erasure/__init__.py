"""Erasing a subject over GraphQL (seed 004, the right to be forgotten)."""

# Root types as module.Class, merged into Mutation (app/api/schema.py).
MUTATIONS = ("mutations.ErasureMutations",)
