"""The general agent memory over GraphQL: records, semantic documents, procedures, the access
log and the expiry sweeper."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = (
    "queries.MemoryQueries",
    "document_queries.DocumentQueries",
    "search.MemorySearchQueries",
    "admin.MemoryAdminQueries",
)
MUTATIONS = (
    "mutations.MemoryMutations",
    "documents.DocumentMutations",
    "admin.MemoryAdminMutations",
)
