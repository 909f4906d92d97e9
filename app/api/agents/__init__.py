"""Agent state and learning over GraphQL: cycles, state, feedback, subjects, get_context,
versioned configuration (directives, config overrides), recall for an agent."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = (
    "cycles.CycleQueries",
    "learning.LearningQueries",
    "subjects.SubjectQueries",
    "context.ContextQueries",
    "recall.RecallQueries",
    "session_state.SessionStateQueries",
)
MUTATIONS = (
    "cycles.CycleMutations",
    "learning.LearningMutations",
    "subjects.SubjectMutations",
    "config.AgentConfigMutations",
    "session_state.SessionStateMutations",
)
