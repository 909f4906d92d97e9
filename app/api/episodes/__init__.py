"""Agents and their episodes (seed 000, 7): mutations, tree and replay queries."""
