-- Spend history, summary and key log (spec 2.11-2.13, 4.10).
-- What the key log shows beyond the columns: the service's own prompt estimate and the
-- provider's overhead where known (spec 2.13 `other`), and whether the call streamed.
alter table ledger_entries add column is_stream boolean not null default false;
alter table ledger_entries add column other jsonb;
-- History pages are keyset-paged by id within one account: charges and refunds only, so
-- credits never sit between two records of a page.
create index ledger_entries_spend on ledger_entries (user_id, id desc)
  where kind in ('charge', 'refund');
-- The summary sums a period from the index alone (an index-only scan, no table reads).
create index ledger_entries_spend_period on ledger_entries (user_id, created_at)
  include (kind, model, delta_quota, prompt_tokens, completion_tokens)
  where kind in ('charge', 'refund');
