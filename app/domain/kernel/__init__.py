"""The shared kernel of every aggregate: typed errors, ids, the principal (who is calling),
keyset pagination, the status-machine check, field rules, repository helpers (records), and
idempotent creates with their result codec.

Nothing is re-exported here: the graph and object-storage layers import errors and Principal
from their modules, so this package must not pull in the modules that use those layers.
"""
