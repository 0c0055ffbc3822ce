-- Signed webhooks (Standard Webhooks): a paid task may name a URL to be told when it ends.
-- The secret is per account (shown and rotated through the admin API, made on first use).
alter table users add column webhook_secret text;
alter table tasks add column webhook_url text check (length(webhook_url) between 1 and 2048);
-- The outbox: a delivery is recorded in the transaction that settles its task, so a task
-- that ended is told exactly once per task (the receiver dedupes retries by webhook-id).
create table webhook_deliveries (
  id bigserial primary key,
  task_id text not null unique references tasks (id) on delete cascade,
  user_id bigint not null references users (id),
  url text not null,
  attempts integer not null default 0,
  next_at timestamptz not null default now(),
  delivered_at timestamptz,
  given_up_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_due on webhook_deliveries (next_at)
  where delivered_at is null and given_up_at is null;
