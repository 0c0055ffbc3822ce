-- Spend summaries over long periods: closed days summed once per account and model, so a
-- 30-day summary reads about 30 rows per model plus the partial days at its edges.
create table spend_daily (
  user_id bigint not null references users (id),
  day date not null,
  -- '' stands for records without a model (a key can't hold null).
  model text not null,
  requests bigint not null,
  net_quota bigint not null,
  prompt_tokens bigint not null,
  completion_tokens bigint not null,
  primary key (user_id, day, model)
);
-- Every UTC day up to and including this one is in spend_daily (one row).
create table spend_daily_state (
  id boolean primary key default true check (id),
  rolled_through date not null
);
