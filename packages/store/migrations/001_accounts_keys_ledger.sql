-- Accounts, their keys, and the durable ledger. Money is bigint quota units
-- (1 USD = 500,000); nothing here is ever a float.

create table users (
  id bigserial primary key,
  name text not null check (length(name) between 1 and 200),
  balance_quota bigint not null default 0,
  spent_quota bigint not null default 0,
  discount_ppm integer not null default 0 check (discount_ppm between 0 and 1000000),
  status text not null default 'active' check (status in ('active', 'disabled')),
  created_at timestamptz not null default now()
);

create table api_keys (
  id bigserial primary key,
  user_id bigint not null references users (id),
  name text not null check (length(name) between 1 and 200),
  secret_hash bytea not null unique,
  secret_hint text not null,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  -- null: no separate budget, the key spends the owner's wallet.
  quota_limit bigint check (quota_limit >= 0),
  used_quota bigint not null default 0,
  rpm_limit integer not null default 0 check (rpm_limit >= 0),
  model_limits text[] not null default '{}',
  allowed_ips text[] not null default '{}',
  -- Unix seconds; 0 means the key never expires.
  expires_at bigint not null default 0 check (expires_at >= 0),
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index api_keys_user on api_keys (user_id);

-- A hold is a pending transfer: later posted (charged, possibly for less) or voided,
-- at most once. Its id is the business id of what it pays for (a task id).
create table holds (
  id text primary key check (length(id) between 1 and 200),
  user_id bigint not null references users (id),
  key_id bigint references api_keys (id),
  amount_quota bigint not null check (amount_quota > 0),
  state text not null default 'pending' check (state in ('pending', 'posted', 'voided')),
  posted_quota bigint check (posted_quota >= 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  resolved_at timestamptz,
  check ((state = 'posted') = (posted_quota is not null)),
  check (posted_quota is null or posted_quota <= amount_quota)
);
create index holds_pending_expiry on holds (expires_at) where state = 'pending';
create index holds_pending_user on holds (user_id) where state = 'pending';

-- Posted money movements. delta_quota is the effect on the wallet: a credit (top-up)
-- and a refund add, a charge subtracts. business_key makes every posting idempotent.
create table ledger_entries (
  id bigserial primary key,
  user_id bigint not null references users (id),
  key_id bigint references api_keys (id),
  hold_id text references holds (id),
  kind text not null check (kind in ('credit', 'charge', 'refund')),
  delta_quota bigint not null,
  business_key text not null unique,
  request_id text,
  model text,
  prompt_tokens integer not null default 0,
  completion_tokens integer not null default 0,
  cache_read_tokens integer not null default 0,
  cache_write_tokens integer not null default 0,
  note text,
  created_at timestamptz not null default now(),
  check ((kind = 'charge' and delta_quota <= 0) or (kind <> 'charge' and delta_quota >= 0))
);
create index ledger_entries_user on ledger_entries (user_id, id desc);
create index ledger_entries_key on ledger_entries (key_id, id desc);

-- Endpoints an administrator has closed; they answer 503.
create table closed_endpoints (
  path text primary key,
  closed_at timestamptz not null default now()
);
