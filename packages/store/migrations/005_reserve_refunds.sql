-- Reserve -> charge -> refund (audio, spec 2.6.2): the reserve is charged at submission
-- (a hold posted at once); after the generation the unused part is refunded once. The
-- refund is a compare-and-set on refunded_quota (null until refunded), so overlapping
-- polls, sweeps and workers never refund twice.
alter table holds add column refunded_quota bigint check (refunded_quota >= 0);
alter table holds add column refunded_at timestamptz;
