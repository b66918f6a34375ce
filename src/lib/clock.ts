// Time is injected wherever a rule depends on it, so tests move it instead of sleeping.
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
