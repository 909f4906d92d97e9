"""Workspace memory over GraphQL (seed 002): the client's shared context, keyed per client."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.WorkspaceMemoryQueries",)
MUTATIONS = ("mutations.WorkspaceMemoryMutations",)
