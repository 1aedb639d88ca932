/** A header's value as node:http and undici give it: the last one when the field came more than once. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/**
 * A list-valued header (RFC 9110 §5.3: field lines of one name combine, in order, into one comma-separated
 * list) as one value: `Content-Encoding: gzip` twice is `gzip, gzip`, as Chromium reads it.
 */
export function headerList(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
