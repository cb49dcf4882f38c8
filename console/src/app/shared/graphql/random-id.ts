/**
 * A fresh RFC 4122 v4 id for `x-request-id` and `x-correlation-id`.
 *
 * `crypto.randomUUID` exists only in secure contexts; operators on a private
 * network may well open the console over plain HTTP on a LAN address, where
 * `crypto.getRandomValues` (available everywhere) has to stand in.
 */
export function randomId(): string {
  if (typeof crypto.randomUUID === 'function') {
    return crypto.randomUUID();
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
