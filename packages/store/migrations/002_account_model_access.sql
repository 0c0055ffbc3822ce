-- Which models an account may use: an empty list means every model of the catalog.
-- A key's own model_limits narrow this further; a model must pass both.
alter table users add column allowed_models text[] not null default '{}';
