/** Validation of option values shared by the commands. Bad values are usage errors (exit 2). */
import { parseArgs } from 'node:util';
import type { ParseArgsOptionsConfig } from 'node:util';
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

/** The result of `parseArgs` for `options` with positionals allowed and unknown options refused. */
export type CommandLine<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/**
 * `parseArgs` with messages that name flags and suggest the nearest one: `unknown option --exact-bse; did you
 * mean --exact-base?` (ABS_ERR_USAGE) instead of Node's ERR_PARSE_ARGS_* text. The argv is read once loosely
 * (every option token, known or not) to find what is wrong, then strictly. `alsoKnown` names flags handled
 * before parsing (`--help`, `--version`) so that they are suggested too.
 */
export function parseCommandLine<O extends ParseArgsOptionsConfig>(argv: readonly string[], options: O, alsoKnown: readonly string[] = []): CommandLine<O> {
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (option === undefined) {
      if (alsoKnown.includes(token.name)) continue;
      const suggestion = nearestFlag(token.name, [...Object.keys(options), ...alsoKnown]);
      throw new AbsError(`unknown option ${token.rawName}${suggestion === null ? '' : `; did you mean --${suggestion}?`} (see --help)`, 'ABS_ERR_USAGE');
    }
    const flag = flagName(token.name, option);
    if (option.type === 'string' && (token.value === undefined || (token.inlineValue !== true && token.value.startsWith('-') && token.value !== '-'))) {
      const given = token.value === undefined ? '' : ` (${JSON.stringify(token.value)} looks like an option; write --${token.name}=${token.value} if it is the value)`;
      throw new AbsError(`${flag} needs a value${given}`, 'ABS_ERR_USAGE');
    }
    if (option.type === 'boolean' && token.value !== undefined) throw new AbsError(`${flag} takes no value (given ${JSON.stringify(token.value)})`, 'ABS_ERR_USAGE');
  }
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (err) {
    // Anything the loose reading let through: Node's text, first line only, as a usage error.
    throw new AbsError(String((err as Error).message).split('\n')[0]!, 'ABS_ERR_USAGE', { cause: err });
  }
}

function flagName(name: string, option: { short?: string | undefined }): string {
  return option.short === undefined ? `--${name}` : `-${option.short}/--${name}`;
}

/**
 * The known flag nearest to `name` (optimal string alignment distance: insertions, deletions, substitutions,
 * adjacent transpositions), if it is near enough to be a typo: at most 1 edit for names of up to 4 letters,
 * else at most a third of the length. A unique flag that `name` begins (`--exact` → `--exact-base`) counts too.
 */
export function nearestFlag(name: string, known: readonly string[]): string | null {
  const prefixed = known.filter((k) => k.startsWith(name) && name.length >= 3);
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  const allowed = name.length <= 4 ? 1 : Math.floor(name.length / 3);
  return bestDistance <= allowed ? best : null;
}

function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
