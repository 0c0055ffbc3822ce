export {
  type Backoff,
  DEFAULT_BACKOFF,
  nextDelay,
  type SupervisedChild,
  type Supervisor,
  supervise,
} from "./supervise.ts";
