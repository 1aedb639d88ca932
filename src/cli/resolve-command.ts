/**
 * `absolutize resolve --base BASE [--resolver browser|rfc3986] [--encoding LABEL] [--json] REF...`
 * Prints one resolved URL per line, in order. An unresolvable reference prints unchanged, with a warning on
 * stderr, and makes the exit code 1.
 */
import { AbsError } from '../errors.ts';
import { getResolver } from '../uri/index.ts';
import type { ResolverName } from '../uri/index.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { wrapHelp } from './help.ts';
import { parseCommandLine, parseResolverName, validateEncodingLabel } from './options.ts';

export const RESOLVE_HELP = `Usage: absolutize resolve --base BASE [options] REF...

Resolves each reference against BASE and prints one URL per line, in order.

Options:
  -b, --base URL          the base URL (required)
  -r, --resolver NAME     browser (WHATWG URL, as Chromium; default) or rfc3986 (RFC 3986 §5.2, no normalization)
      --encoding LABEL    document encoding for the query (browser resolver), e.g. windows-1252, shift_jis
      --json              print a JSON object per reference: {"reference","kind","href"}
  -h, --help              this help

A reference that cannot be resolved is printed unchanged, with a warning on stderr; the exit code is then 1.

Examples:
  absolutize resolve -b 'http://a/b/c/d;p?q' ../g '?y' '#s'
  absolutize resolve --resolver rfc3986 --base 'http://a/b/c/d;p?q' http:g
  absolutize resolve --encoding shift_jis --base http://example.jp/ '?q=日本'
`;

export async function resolveCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    base: { type: 'string', short: 'b' },
    resolver: { type: 'string', short: 'r', default: 'browser' },
    encoding: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    io.stdout.write(wrapHelp(RESOLVE_HELP));
    return EXIT_OK;
  }
  if (values.base === undefined) throw new AbsError('resolve needs --base BASE (see absolutize resolve --help)', 'ABS_ERR_USAGE');
  const resolverName: ResolverName = parseResolverName(values.resolver);
  const encoding = values.encoding === undefined ? undefined : validateEncodingLabel(values.encoding);
  const resolver = getResolver(resolverName);
  if (!resolver.isValidBase(values.base)) {
    throw new AbsError(`--base ${JSON.stringify(values.base)} is not an absolute URL for the ${resolverName} resolver`, 'ABS_ERR_INVALID_BASE');
  }

  let exitCode = EXIT_OK;
  for (const ref of positionals) {
    const r = resolver.resolve(ref, values.base, encoding === undefined ? undefined : { encoding });
    if (r.warning !== undefined) {
      report(io, 'warning', r.warning.code, r.warning.message);
      exitCode = EXIT_INPUT;
    }
    io.stdout.write(values.json ? `${JSON.stringify({ reference: ref, kind: r.kind, href: r.href })}\n` : `${r.href ?? ref}\n`);
  }
  return exitCode;
}
