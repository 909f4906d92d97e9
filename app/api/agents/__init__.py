"""Agent state and learning over GraphQL: cycles, state, feedback, subjects, get_context."""
