"""How a GraphQL request is executed and its reads answered: the view (http_view.py), the
caller's selection (selection.py) compiled into one Cypher query per root field (nodes.py,
records.py, graph_queries.py, lineage.py), relationship fields read from the compiled rows
(fast_fields.py), the fast completion of results (fast_path/), and read plans that answer a
repeated query without GraphQL execution (plans.py, learning.py). README.md names the strawberry
and graphql-core internals these rely on and how to check them on an upgrade."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("graph_queries.GraphQueries", "lineage.LineageQueries")
