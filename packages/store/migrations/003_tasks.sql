-- Paid generation tasks. A task's id is also the id of the hold that pays for it, so a
-- task is charged at most once. Postgres is the truth: Redis streams only deliver work,
-- and every queued or processing task can be enqueued again from here.

create table tasks (
  id text primary key check (length(id) between 1 and 64),
  user_id bigint not null references users (id),
  key_id bigint references api_keys (id),
  kind text not null check (kind in ('image')),
  -- The model that runs (a family ID resolves to its default variant) and what was named.
  model text not null,
  requested_model text not null,
  operation text not null,
  prompt text,
  input jsonb not null,
  response_format text not null default 'url' check (response_format in ('url', 'b64_json')),
  -- The rates fixed at submission (a PriceSnapshot); settlement uses them, not the catalog.
  price jsonb not null,
  hold_quota bigint not null check (hold_quota > 0),
  status text not null default 'queued'
    check (status in ('queued', 'processing', 'completed', 'failed')),
  attempts integer not null default 0,
  -- Who runs the task and until when; another worker may take it over after that.
  lease_owner text,
  lease_until timestamptz,
  enqueued_at timestamptz not null default now(),
  -- {"files": [{"key", "content_type", "index"?, "name"?}]} of a completed task.
  result jsonb,
  -- The settled billing object (spec 2.4) and the amount charged.
  billing jsonb,
  charged_quota bigint,
  fail_code text,
  fail_reason text,
  idempotency_key text check (length(idempotency_key) between 1 and 255),
  request_hash text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  -- When the files were deleted at the end of the link lifetime.
  files_deleted_at timestamptz,
  check ((status = 'completed') = (result is not null and charged_quota is not null)),
  check ((status = 'failed') = (fail_code is not null))
);
create unique index tasks_idempotency on tasks (user_id, idempotency_key)
  where idempotency_key is not null;
create index tasks_active on tasks (enqueued_at) where status in ('queued', 'processing');
create index tasks_user on tasks (user_id, created_at desc);
create index tasks_files_kept on tasks (finished_at) where files_deleted_at is null;
