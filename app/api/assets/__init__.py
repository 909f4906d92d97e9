"""GraphQL mutations of the asset graph and publishing (seed 000, section 4)."""

# Root types as module.Class, merged into Query and Mutation in this order (app/api/schema.py).
MUTATIONS = ("mutations.AssetGraphMutations", "publishing.PublishingMutations")
