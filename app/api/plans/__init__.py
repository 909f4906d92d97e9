"""GraphQL mutations of plans and the plan graph: plans, nodes, typed edges, bulk graphs,
approval constraints."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
MUTATIONS = ("mutations.PlanMutations", "graph_mutations.PlanGraphMutations")
