"""Personas over GraphQL (seed 003): create, edit (a new version), and personaContext, the
composite prompt of a persona for a subject (reads by id and lists come from the model's root
fields)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.PersonaQueries",)
MUTATIONS = ("mutations.PersonaMutations",)
