"""GraphQL mutations of plans and the plan graph: plans, nodes, typed edges, bulk graphs,
approval constraints."""
