-- A price may be zero (a 100% account discount, a free operation): its hold reserves
-- nothing, and the task still settles through the same path with a zero charge record,
-- instead of the call failing because a hold had to be positive.
alter table holds drop constraint holds_amount_quota_check;
alter table holds add constraint holds_amount_quota_check check (amount_quota >= 0);
alter table tasks drop constraint tasks_hold_quota_check;
alter table tasks add constraint tasks_hold_quota_check check (hold_quota >= 0);
