-- The control plane's durable state as four values: a sha256 over the
-- registry (models, licenses, runtimes, model versions, aliases and their
-- revisions, trusted signing keys; whole rows), a sha256 over the desired
-- state (deployments, their replicas' node, generation and intent, nodes'
-- lifecycle, cordon, labels and taints; heartbeats, leases, observations and
-- the scheduler's placement record are left out), and the audit chain's
-- length and head hash (which commits to every event before it).
--
-- One statement, read by libs/persistence controlPlaneDigest and by
-- infra/backup/backup.sh (beside each dump, from the dump's own snapshot) and
-- restore.sh (on the restored database). Run it with TimeZone = 'UTC' so
-- timestamps render the same on every cluster; rows are ordered in the "C"
-- collation so clusters with other default collations agree.
WITH registry_rows (t, k, v) AS (
  SELECT 0, id::text, to_jsonb(models)::text FROM models
  UNION ALL SELECT 1, id::text, to_jsonb(licenses)::text FROM licenses
  UNION ALL SELECT 2, id::text, to_jsonb(runtimes)::text FROM runtimes
  UNION ALL SELECT 3, id::text, to_jsonb(model_versions)::text FROM model_versions
  UNION ALL SELECT 4, id::text, to_jsonb(aliases)::text FROM aliases
  UNION ALL SELECT 5, alias_id::text || '/' || revision, to_jsonb(alias_revisions)::text FROM alias_revisions
  UNION ALL SELECT 6, key_id::text, to_jsonb(trusted_signing_keys)::text FROM trusted_signing_keys
),
desired_rows (t, k, v) AS (
  SELECT 0, id::text,
         jsonb_build_array(id, name, model_version_id, model_ref, desired_replicas, generation, node_selector,
                           requested_node_id, workflow_id, purpose, rollout_id, placement_strategy, created_by)::text
    FROM deployments
  UNION ALL SELECT 1, id::text, jsonb_build_array(id, deployment_id, node_id, generation, intent)::text FROM assignments
  UNION ALL SELECT 2, id::text, jsonb_build_array(id, name, lifecycle, cordoned, labels, taints)::text FROM nodes
)
SELECT
  (SELECT encode(sha256(convert_to(coalesce(string_agg(t || ' ' || k || ' ' || v, E'\n' ORDER BY t, k COLLATE "C"), ''), 'UTF8')), 'hex')
     FROM registry_rows) AS registry,
  (SELECT encode(sha256(convert_to(coalesce(string_agg(t || ' ' || k || ' ' || v, E'\n' ORDER BY t, k COLLATE "C"), ''), 'UTF8')), 'hex')
     FROM desired_rows) AS desired_state,
  (SELECT count(*)::integer FROM audit_events) AS audit_events,
  (SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1) AS audit_head_hash;
