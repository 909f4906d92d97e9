"""API keys over GraphQL for the admins of a client: list, create, revoke, rotate."""
