"""Search over GraphQL: hybrid search of every searchable record type."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.SearchQueries", "similar.SimilarQueries")
