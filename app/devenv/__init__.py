"""The local development servers: Neo4j Community and s3proxy, provisioned from Maven Central
(the two pom files), started and stopped (servers.py)."""
