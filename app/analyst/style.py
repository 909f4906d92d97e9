"""The Neo4j Browser style (GraSS) for this graph: every label of the model gets its family's
colour and a caption made of properties that say what the record is (a plan's name, a variant's
platform and format, an approval's status). Browser fills `{property}` from the node."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.model import MODEL


@dataclass(frozen=True)
class Family:
    """Labels that belong together share a colour: fill, border, caption text."""

    color: str
    border: str
    text: str


PLANNING = Family("#4C8EDA", "#2870C2", "#FFFFFF")
MAKING = Family("#F79767", "#F36924", "#FFFFFF")
PUBLISHING = Family("#57C7E3", "#23B3D7", "#2A2C34")
CONSTRAINTS = Family("#8DCC93", "#5DB665", "#2A2C34")
CONVERSATION = Family("#C990C0", "#B261A5", "#FFFFFF")
AGENTS = Family("#F16667", "#EB2728", "#FFFFFF")
LEARNING = Family("#FFC454", "#D7A013", "#2A2C34")
MEMORY = Family("#D9C8AE", "#C0A378", "#2A2C34")
WORKSPACE = Family("#ECB5C9", "#DA7298", "#2A2C34")
ADMIN = Family("#A5ABB6", "#9AA1AC", "#2A2C34")

# label: (family, caption). Captions name only the label's own properties (a test checks) and
# hold no ':', which ends a declaration for Browser's GraSS parser (the rest is lost).
STYLED: dict[str, tuple[Family, str]] = {
    "Client": (ADMIN, "{name}"),
    "ApiKey": (ADMIN, "{prefix} {role}"),
    "AccessLogEntry": (ADMIN, "{operation} {outcome}"),
    "Plan": (PLANNING, "{name}"),
    "PlanNode": (PLANNING, "{node_type} · {title}"),
    "ConstraintsSnapshot": (CONSTRAINTS, "snapshot · {notes}"),
    "ConstraintDocument": (CONSTRAINTS, "{kind} · {title}"),
    "ConstraintVersion": (CONSTRAINTS, "{kind} v{version}"),
    "KnowledgeFact": (CONSTRAINTS, "{topic} · {statement}"),
    "Asset": (MAKING, "{asset_type} · {title}"),
    "AssetVariant": (MAKING, "{platform} {format}"),
    "PromptArtifact": (MAKING, "{task_class} via {model}"),
    "ApprovalRecord": (PUBLISHING, "approval {status}"),
    "PublishPackage": (PUBLISHING, "package {status}"),
    "PublishRun": (PUBLISHING, "{platform} run {status}"),
    "EvidenceArtifact": (PUBLISHING, "{kind}"),
    "ConversationThread": (CONVERSATION, "{platform} {thread_type}"),
    "ConversationEvent": (CONVERSATION, "{direction} · {text}"),
    "ThreadSummary": (CONVERSATION, "summary v{version}"),
    "EngagementEvent": (CONVERSATION, "{platform} {event_kind} · {result}"),
    "PerformanceMetric": (LEARNING, "{metric_type} {value}"),
    "Agent": (AGENTS, "{name}"),
    "AgentEpisode": (AGENTS, "{agent_name} {task_class} · {status}"),
    "AgentCycle": (AGENTS, "{agent_name} cycle {sequence}"),
    "AgentConfigVersion": (AGENTS, "{agent_name} config v{version}"),
    "AgentSessionState": (AGENTS, "{agent_name} state v{version}"),
    "AgentPerformance": (AGENTS, "{agent_name} {task_type}"),
    "FeedbackEvent": (AGENTS, "{agent_name} feedback {rating}"),
    "Lesson": (LEARNING, "{lesson_type} · {statement}"),
    "ClientSnapshot": (LEARNING, "{period} {window_key}"),
    "MemoryRecord": (MEMORY, "{kind} {key}"),
    "MemoryVersion": (MEMORY, "{kind} v{version}"),
    "MemoryArtifact": (MEMORY, "{kind}"),
    "MemorySession": (MEMORY, "{agent} session {status}"),
    "MemorySubject": (MEMORY, "{display_name}"),
    "Persona": (MEMORY, "{name}"),
    "PersonaVersion": (MEMORY, "persona v{version}"),
    "Workspace": (WORKSPACE, "{agent_name}/{name}"),
    "WorkspaceFile": (WORKSPACE, "{path}"),
    "WorkspaceFileVersion": (WORKSPACE, "{path} v{version}"),
    "WorkspaceSnapshot": (WORKSPACE, "{label}"),
    "WorkspaceMemory": (WORKSPACE, "{memory_type} {key}"),
}
CAPTION_PROPERTY = re.compile(r"\{([a-z_]+)\}")
BASE = """node {
  diameter: 56px;
  color: #A5ABB6;
  border-color: #9AA1AC;
  border-width: 2px;
  text-color-internal: #2A2C34;
  font-size: 10px;
  caption: '{id}';
}
relationship {
  color: #A5ABB6;
  shaft-width: 1px;
  font-size: 8px;
  padding: 3px;
  text-color-external: #000000;
  text-color-internal: #FFFFFF;
  caption: '<type>';
}
"""


def caption_properties(label: str) -> set[str]:
    return set(CAPTION_PROPERTY.findall(STYLED[label][1]))


def grass() -> str:
    """The style sheet: defaults, then one rule per label in the model's order."""
    rules = [BASE]
    for cls in MODEL:
        family, caption = STYLED[cls.__name__]
        rules.append(
            f"node.{cls.__name__} {{\n  color: {family.color};\n  border-color: {family.border};\n"
            f"  text-color-internal: {family.text};\n  caption: '{caption}';\n}}\n"
        )
    return "".join(rules)
