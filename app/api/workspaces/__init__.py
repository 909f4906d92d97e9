"""Workspaces over GraphQL: create a workspace, write and delete files, snapshot; list files
by prefix, read a file (by id or path, or as a snapshot holds it) and diff snapshots (reads by
id and lists of workspaces and snapshots come from the model's root fields)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = ("queries.WorkspaceQueries",)
MUTATIONS = ("mutations.WorkspaceMutations",)
