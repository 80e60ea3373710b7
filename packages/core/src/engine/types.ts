/** `Omit` that distributes over a union, keeping each member's own keys. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
