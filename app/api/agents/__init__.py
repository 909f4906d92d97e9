"""Agent state and learning over GraphQL: cycles, state, feedback, subjects, get_context."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
QUERIES = (
    "cycles.CycleQueries",
    "learning.LearningQueries",
    "subjects.SubjectQueries",
    "context.ContextQueries",
)
MUTATIONS = ("cycles.CycleMutations", "learning.LearningMutations", "subjects.SubjectMutations")
