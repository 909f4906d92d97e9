"""The general agent memory over GraphQL: records, semantic documents, procedures, the access
log and the expiry sweeper."""
