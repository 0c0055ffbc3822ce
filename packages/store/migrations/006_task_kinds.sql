-- One paid-task engine for every media kind: a task's kind names the runner that does
-- its work (image now; audio and video next), so the table no longer lists kinds.
alter table tasks drop constraint tasks_kind_check;
alter table tasks add constraint tasks_kind_check check (kind ~ '^[a-z]{1,16}$');
-- Each task's money mode: hold -> post/void (images, video) or reserve -> charge ->
-- refund (audio), so settlement knows which to apply.
alter table tasks add column money text not null default 'hold' check (money in ('hold', 'reserve'));
