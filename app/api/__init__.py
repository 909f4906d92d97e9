# Registers the model's enums with strawberry before any GraphQL type refers to them.
from app.api import enums as _enums  # noqa: F401
