/** `cluster-key-slot` (ioredis's own dependency) ships no types. */
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0–16383) of `key`: CRC16 of its `{hash tag}`, else of all of it. */
  export default function calculateSlot(key: string | Buffer): number;
}
