"""GraphQL mutations of the plan graph: nodes, typed edges, bulk graphs, approval constraints."""
