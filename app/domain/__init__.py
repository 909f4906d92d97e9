"""The domain: one package per aggregate (rules, repository functions and their Cypher), and the
shared kernel. Outside the domain, import an aggregate's public functions from its package
(`from app.domain import plans`, then `plans.create_plan(...)`); kernel modules by module."""
