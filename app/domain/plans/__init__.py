"""Plans and their plan graph (seed 000, 3): plans, nodes, typed acyclic edges, whole graphs in
one transaction, and the constraints frozen at approval."""

from app.domain.plans.edges import add_plan_edge, remove_plan_edge
from app.domain.plans.graph import create_plan_graph
from app.domain.plans.nodes import create_plan_node, transition_plan_node, update_plan_node
from app.domain.plans.repository import create_plan, transition_plan, update_plan

__all__ = [
    "add_plan_edge",
    "create_plan",
    "create_plan_graph",
    "create_plan_node",
    "remove_plan_edge",
    "transition_plan",
    "transition_plan_node",
    "update_plan",
    "update_plan_node",
]
