/** Validation of option values shared by the commands. Bad values are usage errors (exit 2). */
import { AbsError } from '../errors.ts';
import type { ResolverName } from '../uri/index.ts';

export function parseResolverName(value: string): ResolverName {
  if (value === 'browser' || value === 'rfc3986') return value;
  throw new AbsError(`--resolver must be browser or rfc3986, not ${JSON.stringify(value)}`, 'ABS_ERR_USAGE');
}

/** Returns the label if it is a WHATWG Encoding label (https://encoding.spec.whatwg.org/#names-and-labels). */
export function validateEncodingLabel(label: string): string {
  try {
    // Node's TextDecoder (full ICU) knows every label of the Encoding standard and throws RangeError otherwise.
    return new TextDecoder(label).encoding;
  } catch {
    throw new AbsError(`unknown encoding label ${JSON.stringify(label)}`, 'ABS_ERR_ENCODING_UNSUPPORTED');
  }
}
