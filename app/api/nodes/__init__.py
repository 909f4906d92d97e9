"""GraphQL `node(id:)`: any record the caller may see by its id alone (Relay's global object
lookup), so a client cache can refetch what it holds."""

# Root types as module.Class, merged into Query in this order (app/api/schema.py).
QUERIES = ("queries.NodeQueries",)
