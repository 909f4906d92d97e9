// Issue 14 review: each constraint version keeps the document's title as of that version.
// Versions written before that take their document's title.
MATCH (d:ConstraintDocument)-[:HAS_VERSION]->(v:ConstraintVersion) WHERE v.title IS NULL SET v.title = d.title;
