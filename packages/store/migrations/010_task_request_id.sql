-- The x-request-id of the call that made a task, so its lines in the worker's log can be
-- followed back to the request (issue 14). Null for tasks made before it was recorded.
alter table tasks add column if not exists request_id text;
