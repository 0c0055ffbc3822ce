-- Versioned wallets (issue 16). Every transaction that changes an owner's balance or a key's
-- used budget bumps users.wallet_version, and its Redis update carries the new version: a
-- wallet rebuilt from a snapshot at version S applies only updates above S, each once, so a
-- flush or rebuild between a commit and its Redis update can neither lose nor double it.
-- A charge entry keeps the version its post set (each posted hold has its own), so a
-- repeated or late Redis update of that post (a retry, the reconciler) is the same one.
alter table users add column if not exists wallet_version bigint not null default 0;
alter table ledger_entries add column if not exists wallet_version bigint;
