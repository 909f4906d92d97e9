"""API keys over GraphQL for the admins of a client: list, create, revoke, rotate."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("resolvers.ApiKeyQueries",)
MUTATIONS = ("resolvers.ApiKeyMutations",)
