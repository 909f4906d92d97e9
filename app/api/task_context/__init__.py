"""The task context over GraphQL: what an agent needs to start a task, in one query."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.TaskContextQueries",)
