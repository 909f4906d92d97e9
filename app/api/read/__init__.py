"""The read path: root fields answered by one compiled Cypher query over their selection
(nodes.py, graph_queries.py, lineage.py), relationship fields resolved from the compiled rows
(fast_fields.py), the fast completion of results (fast_path/), and read plans that answer a
repeated query without GraphQL execution (plans.py, learning.py)."""
