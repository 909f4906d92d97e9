// Agent state and learning (seeds 001-004): an agent's feedback history is paged newest first.
CREATE INDEX feedback_event_agent_created IF NOT EXISTS FOR (n:FeedbackEvent) ON (n.client_id, n.agent_name, n.created_at);
