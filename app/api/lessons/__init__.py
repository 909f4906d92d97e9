"""Lessons, client snapshots and the cross-agent traversals over GraphQL."""
