"""GraphQL change feed: `changes(after:)` pages it, subscriptions follow it (graphql-transport-ws
at /graphql), each change able to load its record as the caller selects it."""

# Root types as module.Class, merged into Query and Subscription (app/api/schema.py).
QUERIES = ("queries.ChangeQueries",)
SUBSCRIPTIONS = ("subscriptions.ChangeSubscriptions",)
