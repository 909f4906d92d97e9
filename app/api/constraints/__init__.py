"""Constraint documents over GraphQL: create, edit (a new version), diff two versions, the JSON
Schema of a kind, and the versions a plan works under (reads by id and lists come from the
model's root fields)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.ConstraintQueries",)
MUTATIONS = ("mutations.ConstraintMutations",)
